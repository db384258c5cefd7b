//! Self-tests of the fake GitHub (`tests/suite/support/fake_github.rs`), driven through
//! plain `octocrab` (raw `_get`/`_post`/`_patch`/`_delete` and a few typed calls),
//! so that the publisher's tests against the fake mean something.

use crate::support;

use octocrab::models::issues::Comment as GhComment;
use octocrab::Octocrab;
use serde_json::{json, Value};
use support::fake_github::{Failure, FakeGitHub, Flavor, Route, User, UserKind, MAX_BODY_CHARS};

const BOT: &str = "ghs_bot_token";
const ALICE: &str = "ghp_alice_token";
const OWNER: &str = "ghp_owner_token";

fn crab(base: &str, token: Option<&str>) -> Octocrab {
    let b = Octocrab::builder().base_uri(base).expect("base uri");
    match token {
        Some(t) => b.personal_token(t.to_string()).build(),
        None => b.build(),
    }
    .expect("octocrab client")
}

/// A fake with `acme/infra#7` (head `abc123`), the Actions bot, `alice` and the owner `acme`.
async fn setup(flavor: Flavor) -> FakeGitHub {
    let gh = FakeGitHub::start(flavor).await;
    gh.add_repo("acme", "infra");
    gh.add_pull("acme", "infra", 7, "abc123", "feature/x", "open");
    gh.add_token(BOT, User::actions_bot());
    gh.add_token(ALICE, User::human("alice", 1001));
    gh.add_token(OWNER, User::human("acme", 500));
    gh
}

/// `call!(client, client._get(..))` → (status, headers, body text) of a raw response.
macro_rules! call {
    ($c:expr, $fut:expr) => {{
        let res = $fut.await.expect("transport ok");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        (
            status,
            headers,
            $c.body_to_string(res).await.expect("utf-8 body"),
        )
    }};
}

fn hdr<'a>(h: &'a http::HeaderMap, name: &str) -> &'a str {
    h.get(name).map(|v| v.to_str().unwrap()).unwrap_or("")
}

/// `rel` → URL from a `Link` header.
fn links(link: &str) -> Vec<(String, String)> {
    link.split(", ")
        .map(|part| {
            let (url, rel) = part.split_once("; rel=").expect("link part");
            (
                rel.trim_matches('"').to_owned(),
                url.trim_matches(['<', '>']).to_owned(),
            )
        })
        .collect()
}

fn rel<'a>(l: &'a [(String, String)], name: &str) -> Option<&'a str> {
    l.iter().find(|(r, _)| r == name).map(|(_, u)| u.as_str())
}

mod comments;
mod faults;
mod graphql;
mod pagination;
