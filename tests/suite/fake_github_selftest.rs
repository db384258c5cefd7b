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

async fn paginate(flavor: Flavor) {
    let gh = setup(flavor).await;
    let alice = User::human("alice", 1001);
    let seeded: Vec<u64> = (0..250)
        .map(|i| {
            let who = if i % 2 == 0 {
                User::actions_bot()
            } else {
                alice.clone()
            };
            gh.seed_comment("acme", "infra", 7, &who, &format!("comment {i}"))
        })
        .collect();
    let api = gh.api_url();
    let c = crab(&api, Some(BOT));

    let mut next = Some("/repos/acme/infra/issues/7/comments?per_page=100".to_owned());
    let mut got = Vec::new();
    let mut pages = 0;
    while let Some(path) = next.take() {
        pages += 1;
        let (status, h, body) = call!(c, c._get(path.as_str()));
        assert_eq!(status, 200, "{body}");
        assert_eq!(hdr(&h, "content-type"), "application/json; charset=utf-8");
        assert!(!hdr(&h, "x-github-request-id").is_empty());
        assert_eq!(hdr(&h, "x-ratelimit-limit"), "1000");
        assert_eq!(hdr(&h, "x-ratelimit-resource"), "core");
        let page: Vec<GhComment> = serde_json::from_str(&body).expect("octocrab Comment model");
        got.extend(page.iter().map(|c| c.id.0));
        let l = links(hdr(&h, "link"));
        for (_, url) in &l {
            assert!(url.starts_with(&format!("{api}/")), "{url} not on {api}");
            assert!(url.contains("per_page=100&page="), "{url}");
        }
        let rels: Vec<&str> = l.iter().map(|(r, _)| r.as_str()).collect();
        match pages {
            1 => assert_eq!(rels, ["next", "last"]),
            2 => assert_eq!(rels, ["prev", "next", "last", "first"]),
            _ => assert_eq!(rels, ["prev", "first"]),
        }
        if pages == 1 {
            assert!(rel(&l, "last").unwrap().ends_with("page=3"));
        }
        // Follow `next` by stripping the API base: octocrab prepends its base path.
        next = rel(&l, "next").map(|u| u.strip_prefix(&api).unwrap().to_owned());
    }
    assert_eq!(pages, 3);
    assert_eq!(got, seeded, "all comments, in creation order");
    let paths: Vec<String> = gh.requests().iter().map(|r| r.path.clone()).collect();
    if flavor == Flavor::Enterprise {
        assert!(paths.iter().all(|p| p.starts_with("/api/v3/")), "{paths:?}");
    }
    assert!(
        paths[1].contains("/repositories/"),
        "GitHub-style next links: {paths:?}"
    );

    // Default 30 per page; per_page is capped at 100; past the end is an empty page.
    let (_, h, body) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(serde_json::from_str::<Vec<Value>>(&body).unwrap().len(), 30);
    assert!(rel(&links(hdr(&h, "link")), "last")
        .unwrap()
        .ends_with("?page=9"));
    let (_, _, body) = call!(
        c,
        c._get("/repos/acme/infra/issues/7/comments?per_page=500")
    );
    assert_eq!(
        serde_json::from_str::<Vec<Value>>(&body).unwrap().len(),
        100
    );
    let (_, _, body) = call!(
        c,
        c._get("/repos/acme/infra/issues/7/comments?per_page=100&page=4")
    );
    assert_eq!(body, "[]");
}

#[tokio::test]
async fn pagination_dotcom() {
    paginate(Flavor::Dotcom).await;
}

#[tokio::test]
async fn pagination_enterprise_keeps_api_v3() {
    paginate(Flavor::Enterprise).await;
}

#[tokio::test]
async fn typed_octocrab_lists_all_pages_on_enterprise() {
    let gh = setup(Flavor::Enterprise).await;
    for i in 0..205 {
        gh.seed_comment("acme", "infra", 7, &User::actions_bot(), &format!("c{i}"));
    }
    let c = crab(&gh.api_url(), Some(BOT));
    let first = c
        .issues("acme", "infra")
        .list_comments(7)
        .per_page(100)
        .send()
        .await
        .expect("first page");
    assert_eq!(first.number_of_pages(), Some(3));
    let all = c.all_pages(first).await.expect("all pages");
    assert_eq!(all.len(), 205);
    assert_eq!(all[0].user.login, "github-actions[bot]");
    assert_eq!(all[0].user.r#type, "Bot");
    assert_eq!(all[0].user.node_id, "MDM6Qm90NDE4OTgyODI=");
    assert!(all[0].node_id.starts_with("IC_kwDO"), "{}", all[0].node_id);
    assert!(all[0].id.0 > i32::MAX as u64);
    assert!(all.windows(2).all(|w| w[0].created_at < w[1].created_at));
}

#[tokio::test]
async fn comment_payload_matches_github() {
    let gh = setup(Flavor::Dotcom).await;
    let id = gh.seed_comment("acme", "infra", 7, &User::actions_bot(), "hello");
    gh.seed_comment("acme", "infra", 7, &User::human("alice", 1001), "hi");
    let c = crab(&gh.api_url(), Some(BOT));
    let (_, _, body) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    let v: Vec<Value> = serde_json::from_str(&body).unwrap();
    let bot = &v[0];
    assert_eq!(bot["id"], id);
    assert_eq!(
        bot["html_url"],
        format!("https://github.com/acme/infra/pull/7#issuecomment-{id}")
    );
    assert_eq!(
        bot["url"],
        format!("{}/repos/acme/infra/issues/comments/{id}", gh.api_url())
    );
    assert_eq!(
        bot["issue_url"],
        format!("{}/repos/acme/infra/issues/7", gh.api_url())
    );
    assert_eq!(bot["created_at"], "2024-05-01T12:00:02Z"); // the PR took the first tick
    assert_eq!(bot["user"]["id"], 41_898_282);
    assert_eq!(
        bot["user"]["html_url"],
        "https://github.com/apps/github-actions"
    );
    assert_eq!(bot["performed_via_github_app"]["slug"], "github-actions");
    assert_eq!(bot["reactions"]["total_count"], 0);
    assert!(v[1]["performed_via_github_app"].is_null());
    assert_eq!(v[1]["user"]["type"], "User");
    assert_eq!(v[1]["user"]["user_view_type"], "public");
    let typed: GhComment = serde_json::from_value(v[1].clone()).expect("typed");
    assert_eq!(typed.body.as_deref(), Some("hi"));
}

#[tokio::test]
async fn create_update_delete() {
    let gh = setup(Flavor::Dotcom).await;
    let c = crab(&gh.api_url(), Some(BOT));
    let (status, h, body) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": "v1"}))
        )
    );
    assert_eq!(status, 201, "{body}");
    let created: GhComment = serde_json::from_str(&body).unwrap();
    assert_eq!(hdr(&h, "location"), created.url.as_str());
    assert_eq!(created.user.login, "github-actions[bot]");
    let id = created.id.0;
    let path = format!("/repos/acme/infra/issues/comments/{id}");

    let (status, _, body) = call!(c, c._patch(path.as_str(), Some(&json!({"body": "v2"}))));
    assert_eq!(status, 200, "{body}");
    let patched: GhComment = serde_json::from_str(&body).unwrap();
    assert!(patched.updated_at.unwrap() > created.updated_at.unwrap());
    // octocrab's own update_comment sends POST; GitHub accepts it.
    let typed = c
        .issues("acme", "infra")
        .update_comment(created.id, "v3")
        .await
        .expect("POST update");
    assert_eq!(typed.body.as_deref(), Some("v3"));
    assert_eq!(gh.comments("acme", "infra", 7)[0].body, "v3");
    let (status, _, body) = call!(c, c._get(path.as_str()));
    assert_eq!(
        (
            status,
            serde_json::from_str::<Value>(&body).unwrap()["body"].clone()
        ),
        (200, json!("v3"))
    );

    let (status, h, body) = call!(c, c._delete(path.as_str(), None::<&()>));
    assert_eq!((status, body.as_str()), (204, ""));
    assert_eq!(hdr(&h, "content-type"), "");
    assert!(gh.comments("acme", "infra", 7).is_empty());
    let (status, _, _) = call!(c, c._get(path.as_str()));
    assert_eq!(status, 404);

    // Typed create through octocrab works too.
    let made = c
        .issues("acme", "infra")
        .create_comment(7, "typed")
        .await
        .expect("create");
    assert_eq!(gh.comments("acme", "infra", 7)[0].id, made.id.0);
}

#[tokio::test]
async fn authentication() {
    let gh = setup(Flavor::Dotcom).await;
    let api = gh.api_url();
    let anon = crab(&api, None);
    let (status, _, body) = call!(anon, anon._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 401);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["message"],
        "Requires authentication"
    );
    let bad = crab(&api, Some("ghp_nope"));
    let (status, _, body) = call!(bad, bad._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 401);
    let want = json!({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"});
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), want);

    let bot = crab(&api, Some(BOT));
    let (status, _, body) = call!(bot, bot._get("/user"));
    assert_eq!(status, 403);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["message"],
        "Resource not accessible by integration"
    );
    let alice = crab(&api, Some(ALICE));
    let me = alice.current().user().await.expect("typed GET /user");
    assert_eq!((me.login.as_str(), me.id.0), ("alice", 1001));

    // `token X` works as well as `Bearer X`.
    let legacy = Octocrab::builder()
        .base_uri(api.as_str())
        .unwrap()
        .build()
        .unwrap();
    let mut headers = http::HeaderMap::new();
    headers.insert("authorization", format!("token {ALICE}").parse().unwrap());
    let (status, _, _) = call!(legacy, legacy._get_with_headers("/user", Some(headers)));
    assert_eq!(status, 200);
}

#[tokio::test]
async fn others_comments_are_forbidden() {
    let gh = setup(Flavor::Dotcom).await;
    let id = gh.seed_comment("acme", "infra", 7, &User::human("bob", 1002), "bob's");
    let path = format!("/repos/acme/infra/issues/comments/{id}");
    let api = gh.api_url();
    let body = json!({"body": "hijack"});
    for (token, message) in [
        (BOT, "Resource not accessible by integration"),
        (ALICE, "Must have admin rights to Repository."),
    ] {
        let c = crab(&api, Some(token));
        let (status, _, text) = call!(c, c._patch(path.as_str(), Some(&body)));
        assert_eq!(
            (
                status,
                serde_json::from_str::<Value>(&text).unwrap()["message"].clone()
            ),
            (403, json!(message))
        );
        let (status, _, _) = call!(c, c._delete(path.as_str(), None::<&()>));
        assert_eq!(status, 403);
    }
    assert_eq!(gh.comments("acme", "infra", 7)[0].body, "bob's");
    // The repository owner (admin) may edit it.
    let owner = crab(&api, Some(OWNER));
    let (status, _, _) = call!(owner, owner._patch(path.as_str(), Some(&body)));
    assert_eq!(status, 200);

    // A fork PR's read-only token may read but not write.
    gh.add_read_only_token("ghs_fork", User::actions_bot());
    let fork = crab(&api, Some("ghs_fork"));
    let (status, _, _) = call!(fork, fork._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 200);
    let (status, _, _) = call!(
        fork,
        fork._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": "x"}))
        )
    );
    assert_eq!(status, 403);
}

#[tokio::test]
async fn not_found_and_validation() {
    let gh = setup(Flavor::Dotcom).await;
    let c = crab(&gh.api_url(), Some(BOT));
    let (status, _, body) = call!(c, c._get("/repos/acme/infra/issues/999/comments"));
    assert_eq!(status, 404);
    let want = json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest/issues/comments#list-issue-comments", "status": "404"});
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), want);
    for path in [
        "/repos/acme/other/issues/7/comments",
        "/repos/acme/infra/issues/999/comments",
    ] {
        let (status, _, _) = call!(c, c._post(path, Some(&json!({"body": "x"}))));
        assert_eq!(status, 404, "{path}");
    }
    let (status, _, _) = call!(
        c,
        c._patch(
            "/repos/acme/infra/issues/comments/12345",
            Some(&json!({"body": "x"}))
        )
    );
    assert_eq!(status, 404);
    let (status, _, _) = call!(c, c._get("/repos/acme/infra/nonsense"));
    assert_eq!(status, 404);
    // Owner and repository names are case-insensitive, as on GitHub.
    let (status, _, _) = call!(c, c._get("/repos/ACME/Infra/issues/7/comments"));
    assert_eq!(status, 200);

    // Exactly 65,536 characters (131,072 bytes) is accepted; one more is not.
    let at_limit = "é".repeat(MAX_BODY_CHARS);
    let (status, _, _) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": at_limit}))
        )
    );
    assert_eq!(status, 201);
    let too_long = "x".repeat(MAX_BODY_CHARS + 1);
    let (status, _, body) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": too_long}))
        )
    );
    assert_eq!(status, 422);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["message"], "Validation Failed");
    assert_eq!(
        v["errors"][0]["message"],
        "Body is too long (maximum is 65536 characters)"
    );
    assert_eq!(v["errors"][0]["field"], "data");
    let id = gh.comments("acme", "infra", 7)[0].id;
    let (status, _, body) = call!(
        c,
        c._patch(
            format!("/repos/acme/infra/issues/comments/{id}").as_str(),
            Some(&json!({"body": too_long}))
        )
    );
    assert_eq!(status, 422);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["errors"][0]["message"],
        "body is too long (maximum is 65536 characters)"
    );
    let (status, _, _) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"text": "x"}))
        )
    );
    assert_eq!(status, 422);
    // The typed client surfaces the 422 as Error::GitHub.
    let err = c
        .issues("acme", "infra")
        .create_comment(7, &too_long)
        .await
        .unwrap_err();
    match err {
        octocrab::Error::GitHub { source, .. } => assert_eq!(source.status_code.as_u16(), 422),
        other => panic!("expected Error::GitHub, got {other:?}"),
    }
    assert_eq!(gh.comments("acme", "infra", 7).len(), 1);
}

async fn graphql(flavor: Flavor) {
    let gh = setup(flavor).await;
    let id = gh.seed_comment("acme", "infra", 7, &User::actions_bot(), "old plan");
    let node = gh.comments("acme", "infra", 7)[0].node_id.clone();
    let gql_base = gh
        .graphql_url()
        .strip_suffix("/graphql")
        .unwrap()
        .to_owned();
    match flavor {
        Flavor::Dotcom => assert_eq!(gql_base, gh.api_url()),
        Flavor::Enterprise => assert_eq!(format!("{gql_base}/v3"), gh.api_url()),
    }
    let g = crab(&gql_base, Some(BOT));
    let viewer: Value = g
        .graphql(&json!({"query": "query { viewer { login databaseId } }"}))
        .await
        .expect("viewer");
    assert_eq!(
        viewer,
        json!({"viewer": {"login": "github-actions[bot]", "databaseId": 41_898_282}})
    );

    let mutation = "mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) { minimizedComment { isMinimized minimizedReason } } }";
    let res: Value = g
        .graphql(&json!({"query": mutation, "variables": {"id": node}}))
        .await
        .expect("minimize");
    assert_eq!(
        res["minimizeComment"]["minimizedComment"],
        json!({"isMinimized": true, "minimizedReason": "outdated"})
    );
    let stored = &gh.comments("acme", "infra", 7)[0];
    assert!(stored.minimized && stored.id == id);
    // Minimized comments are still listed by REST.
    let rest = crab(&gh.api_url(), Some(BOT));
    let (_, _, body) = call!(rest, rest._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(serde_json::from_str::<Vec<Value>>(&body).unwrap().len(), 1);

    // Unknown node: HTTP 200 with `errors`, which octocrab turns into Error::Graphql.
    let inline = "mutation { minimizeComment(input: {subjectId: \"IC_nope\", classifier: OUTDATED}) { minimizedComment { isMinimized } } }";
    let (status, h, body) = call!(g, g._post("/graphql", Some(&json!({"query": inline}))));
    assert_eq!(status, 200);
    assert_eq!(hdr(&h, "x-ratelimit-resource"), "graphql");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["data"]["minimizeComment"].is_null());
    assert_eq!(v["errors"][0]["type"], "NOT_FOUND");
    assert_eq!(
        v["errors"][0]["message"],
        "Could not resolve to a node with the global id of 'IC_nope'."
    );
    let err = g
        .graphql::<Value>(&json!({"query": inline}))
        .await
        .unwrap_err();
    assert!(matches!(err, octocrab::Error::Graphql { .. }), "{err:?}");

    // GHES pitfall: octocrab's graphql() on the REST base posts to /api/v3/graphql, a 404.
    if flavor == Flavor::Enterprise {
        let wrong = crab(&gh.api_url(), Some(BOT));
        let (status, _, _) = call!(
            wrong,
            wrong._post("/graphql", Some(&json!({"query": "{ viewer { login } }"})))
        );
        assert_eq!(status, 404);
    }
    let paths: Vec<String> = gh
        .requests()
        .iter()
        .filter(|r| r.route == Some(Route::GraphQl))
        .map(|r| r.path.clone())
        .collect();
    let want = if flavor == Flavor::Dotcom {
        "/graphql"
    } else {
        "/api/graphql"
    };
    assert!(
        paths.len() >= 4 && paths.iter().all(|p| p == want),
        "{paths:?}"
    );
}

#[tokio::test]
async fn graphql_dotcom() {
    graphql(Flavor::Dotcom).await;
}

#[tokio::test]
async fn graphql_enterprise() {
    graphql(Flavor::Enterprise).await;
}

#[tokio::test]
async fn scripted_rate_limits_then_success() {
    let gh = setup(Flavor::Dotcom).await;
    gh.fail_next(Route::CreateComment, Failure::secondary_rate_limit(7));
    gh.fail_next(Route::CreateComment, Failure::rate_limited_429(3));
    gh.fail_next(
        Route::ListComments,
        Failure::primary_rate_limit(1_900_000_000),
    );
    let c = crab(&gh.api_url(), Some(BOT));
    let body = json!({"body": "x"});
    let post = || c._post("/repos/acme/infra/issues/7/comments", Some(&body));
    let (status, h, body) = call!(c, post());
    assert_eq!((status, hdr(&h, "retry-after")), (403, "7"));
    assert!(serde_json::from_str::<Value>(&body).unwrap()["message"]
        .as_str()
        .unwrap()
        .contains("secondary rate limit"));
    assert_ne!(hdr(&h, "x-ratelimit-remaining"), "0");
    let (status, h, _) = call!(c, post());
    assert_eq!((status, hdr(&h, "retry-after")), (429, "3"));
    let (status, _, _) = call!(c, post());
    assert_eq!(status, 201);
    assert_eq!(gh.comments("acme", "infra", 7).len(), 1);

    let (status, h, _) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(
        (
            status,
            hdr(&h, "x-ratelimit-remaining"),
            hdr(&h, "x-ratelimit-reset")
        ),
        (403, "0", "1900000000")
    );
    let (status, _, _) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 200);
}

#[tokio::test]
async fn apply_then_status_is_an_ambiguous_failure() {
    let gh = setup(Flavor::Dotcom).await;
    gh.fail_next(
        Route::CreateComment,
        Failure::ApplyThenStatus { status: 502 },
    );
    gh.fail_next(Route::UpdateComment, Failure::bad_gateway());
    let c = crab(&gh.api_url(), Some(BOT));
    let (status, h, body) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": "once"}))
        )
    );
    assert_eq!(status, 502);
    assert!(hdr(&h, "content-type").starts_with("text/html") && body.contains("502"));
    let stored = gh.comments("acme", "infra", 7);
    assert_eq!(stored.len(), 1, "the write happened despite the 502");
    assert_eq!(
        (stored[0].user_login.as_str(), stored[0].user_id),
        ("github-actions[bot]", 41_898_282)
    );
    assert_eq!(gh.requests()[0].status, Some(502));
    // A plain Status fault does not apply the write.
    let path = format!("/repos/acme/infra/issues/comments/{}", stored[0].id);
    let (status, _, _) = call!(c, c._patch(path.as_str(), Some(&json!({"body": "twice"}))));
    assert_eq!(status, 502);
    assert_eq!(gh.comments("acme", "infra", 7)[0].body, "once");
    gh.fail_next(Route::DeleteComment, Failure::server_error());
    let (status, _, body) = call!(c, c._delete(path.as_str(), None::<&()>));
    assert_eq!(
        (status, body.as_str()),
        (500, r#"{"message":"Server Error"}"#)
    );
}

#[tokio::test]
async fn commit_pulls_open_first() {
    let gh = setup(Flavor::Dotcom).await;
    gh.add_pull("acme", "infra", 3, "abc123", "old", "closed");
    let c = crab(&gh.api_url(), Some(BOT));
    let prs = c
        .commits("acme", "infra")
        .associated_pull_requests(octocrab::commits::PullRequestTarget::Sha("abc123".into()))
        .send()
        .await
        .expect("typed PullRequest list");
    let got: Vec<(u64, String)> = prs
        .items
        .iter()
        .map(|p| (p.number, p.head.ref_field.clone()))
        .collect();
    assert_eq!(got, [(7, "feature/x".to_owned()), (3, "old".to_owned())]);
    let (_, _, body) = call!(c, c._get("/repos/acme/infra/commits/ffff/pulls"));
    assert_eq!(body, "[]");
    let pr = c.pulls("acme", "infra").get(7).await.expect("typed PR");
    assert_eq!(pr.head.sha, "abc123");
}

#[tokio::test]
async fn request_log_records_everything() {
    let gh = setup(Flavor::Enterprise).await;
    gh.fail_next(Route::CreateComment, Failure::server_error());
    let c = crab(&gh.api_url(), Some(BOT));
    for _ in 0..2 {
        let _ = c
            ._post(
                "/repos/acme/infra/issues/7/comments",
                Some(&json!({"body": "b"})),
            )
            .await;
    }
    let _ = c
        ._get("/repos/acme/infra/issues/7/comments?per_page=100")
        .await;
    let _ = c._get("/nowhere").await;
    let log = gh.requests();
    assert_eq!(log.len(), 4);
    let posts = log
        .iter()
        .filter(|r| r.method == "POST" && r.route == Some(Route::CreateComment))
        .count();
    assert_eq!(posts, 2, "faulted requests are recorded too");
    assert_eq!(log[2].query, "per_page=100");
    assert_eq!(log[2].path, "/api/v3/repos/acme/infra/issues/7/comments");
    assert_eq!(log[3].route, None);
    let statuses: Vec<Option<u16>> = log.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(500), Some(201), Some(200), Some(404)]);
    assert_eq!(log[0].body, r#"{"body":"b"}"#);
    for r in &log {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {BOT}").as_str())
        );
        assert!(!r.body.contains(BOT) && !r.query.contains(BOT) && !r.path.contains(BOT));
    }
    let users: Vec<UserKind> = vec![User::actions_bot().kind, User::human("x", 1).kind];
    assert_eq!(users, [UserKind::Bot, UserKind::User]);
    gh.clear_requests();
    assert!(gh.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delayed_list_shows_the_comments_as_they_were_when_it_arrived() {
    let gh = setup(Flavor::Dotcom).await;
    gh.delay(Route::ListComments, std::time::Duration::from_millis(400));
    let c = crab(&gh.api_url(), Some(BOT));
    let path = "/repos/acme/infra/issues/7/comments?per_page=100";
    let started = std::time::Instant::now();
    let (list, created) = tokio::join!(c._get(path), async {
        // The create arrives while the list is held back, and is not held back itself.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let created = c
            ._post(
                "/repos/acme/infra/issues/7/comments",
                Some(&json!({"body": "b"})),
            )
            .await;
        (created, started.elapsed())
    });
    let (created, created_after) = created;
    assert_eq!(created.unwrap().status(), 201);
    assert!(created_after < std::time::Duration::from_millis(350));
    let list = c.body_to_string(list.unwrap()).await.unwrap();
    assert_eq!(list, "[]", "the list was made when it arrived");
    assert!(started.elapsed() >= std::time::Duration::from_millis(400));
    assert_eq!(gh.comments("acme", "infra", 7).len(), 1);
}
