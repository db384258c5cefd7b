//! The fake's payloads, shaped as GitHub's (users, owners, comments, pulls), and the small
//! codecs they need (percent-decoding, node ids, base64, RFC 3339 times).

use super::*;

impl State {
    /// A REST `simple-user`, with every field octocrab's `Author` requires.
    pub(super) fn user_json(&self, u: &User) -> Value {
        let api = format!(
            "{}/users/{}",
            self.api(),
            u.login.replace('[', "%5B").replace(']', "%5D")
        );
        let bot = u.kind == UserKind::Bot;
        let (node, avatar, html) = if bot {
            let app = if u.id == ACTIONS_BOT_ID {
                ACTIONS_APP_ID
            } else {
                u.id
            };
            let slug = u.login.trim_end_matches("[bot]");
            let avatar = format!("https://avatars.githubusercontent.com/in/{app}?v=4");
            (
                format!("03:Bot{}", u.id),
                avatar,
                format!("{}/apps/{slug}", self.html()),
            )
        } else {
            let avatar = format!("https://avatars.githubusercontent.com/u/{}?v=4", u.id);
            (
                format!("04:User{}", u.id),
                avatar,
                format!("{}/{}", self.html(), u.login),
            )
        };
        json!({"login": u.login, "id": u.id, "node_id": b64(node.as_bytes(), false), "avatar_url": avatar,
            "gravatar_id": "", "url": api, "html_url": html, "followers_url": format!("{api}/followers"),
            "following_url": format!("{api}/following{{/other_user}}"), "gists_url": format!("{api}/gists{{/gist_id}}"),
            "starred_url": format!("{api}/starred{{/owner}}{{/repo}}"), "subscriptions_url": format!("{api}/subscriptions"),
            "organizations_url": format!("{api}/orgs"), "repos_url": format!("{api}/repos"),
            "events_url": format!("{api}/events{{/privacy}}"), "received_events_url": format!("{api}/received_events"),
            "type": if bot { "Bot" } else { "User" }, "user_view_type": "public", "site_admin": false})
    }

    /// The owner account: a registered human with that login, else a stable made-up id.
    pub(super) fn owner_json(&self, owner: &str) -> Value {
        let mut users = self.tokens.values().map(|t| &t.0);
        let known = users.find(|u| u.kind == UserKind::User && u.login.eq_ignore_ascii_case(owner));
        let id = owner
            .bytes()
            .fold(17u64, |h, b| (h * 31 + u64::from(b)) % 90_000_000)
            + 1_000;
        self.user_json(known.unwrap_or(&User::human(owner, id)))
    }

    /// A REST issue comment, as GitHub sends it (`performed_via_github_app` for bots).
    pub(super) fn comment_json(&self, c: &Comment) -> Value {
        let repo = self
            .repos
            .iter()
            .find(|r| r.id == c.repo_id)
            .expect("comment of a known repo");
        let base = format!("{}/repos/{}/{}/issues", self.api(), repo.owner, repo.name);
        let url = format!("{base}/comments/{}", c.id);
        let human = c.author.kind == UserKind::User;
        let owner = human && c.author.login.eq_ignore_ascii_case(&repo.owner);
        let app = if human {
            Value::Null
        } else {
            let slug = c.author.login.trim_end_matches("[bot]");
            let id = if c.author.id == ACTIONS_BOT_ID {
                ACTIONS_APP_ID
            } else {
                c.author.id
            };
            json!({"id": id, "slug": slug, "node_id": b64(format!("03:App{id}").as_bytes(), false),
                "owner": self.owner_json("github"), "name": if slug == "github-actions" { "GitHub Actions" } else { slug },
                "description": "", "external_url": "https://help.github.com/en/actions", "html_url": format!("{}/apps/{slug}", self.html()),
                "created_at": "2018-07-30T09:30:17Z", "updated_at": "2024-04-10T20:33:16Z",
                "permissions": {"issues": "write", "pull_requests": "write", "metadata": "read"}, "events": []})
        };
        json!({"url": url, "html_url": format!("{}/{}/{}/pull/{}#issuecomment-{}", self.html(), repo.owner, repo.name, c.number, c.id),
            "issue_url": format!("{base}/{}", c.number), "id": c.id, "node_id": c.node_id, "user": self.user_json(&c.author),
            "created_at": c.created_at, "updated_at": c.updated_at, "author_association": if owner { "OWNER" } else { "NONE" },
            "body": c.body, "reactions": {"url": format!("{url}/reactions"), "total_count": 0, "+1": 0, "-1": 0, "laugh": 0,
                "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
            "performed_via_github_app": app})
    }

    /// A REST pull request (the fields a publisher plausibly reads, all octocrab needs).
    pub(super) fn pull_json(&self, repo: &Repo, p: &Pull) -> Value {
        let api = format!("{}/repos/{}/{}", self.api(), repo.owner, repo.name);
        let html = format!("{}/{}/{}", self.html(), repo.owner, repo.name);
        let owner = self.owner_json(&repo.owner);
        let repo_v = json!({"id": repo.id, "node_id": global_id("R", &[0, repo.id]), "name": repo.name,
            "full_name": format!("{}/{}", repo.owner, repo.name), "private": true, "owner": owner,
            "html_url": html, "description": null, "fork": false, "url": api});
        let base_sha = format!("{:040x}", u128::from(repo.id) * 0x9E37_79B9_7F4A_7C15);
        let closed = (p.state == "closed").then(|| p.created_at.clone());
        let (merge_sha, merged_at) = match &p.merged {
            Some((sha, at)) => (Some(sha.clone()), Some(at.clone())),
            None => (None, None),
        };
        let (n, db_id) = (p.number, repo.id * 100 + p.number);
        json!({"url": format!("{api}/pulls/{n}"), "id": db_id, "node_id": global_id("PR", &[0, repo.id, db_id]),
            "html_url": format!("{html}/pull/{n}"), "diff_url": format!("{html}/pull/{n}.diff"),
            "patch_url": format!("{html}/pull/{n}.patch"), "issue_url": format!("{api}/issues/{n}"),
            "comments_url": format!("{api}/issues/{n}/comments"), "number": n, "state": p.state, "locked": false,
            "title": format!("Update {}", p.head_ref), "user": owner, "body": null, "created_at": p.created_at,
            "updated_at": p.created_at, "closed_at": closed, "merged_at": merged_at, "merge_commit_sha": merge_sha, "draft": false,
            "author_association": "OWNER",
            "head": {"label": format!("{}:{}", repo.owner, p.head_ref), "ref": p.head_ref, "sha": p.head_sha, "user": owner, "repo": repo_v},
            "base": {"label": format!("{}:main", repo.owner), "ref": "main", "sha": base_sha, "user": owner, "repo": repo_v}})
    }
}

/// A percent-encoded path segment as text (`None` for bad escapes or non-UTF-8).
pub(super) fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The token of `Authorization: Bearer T` / `token T` (scheme case-insensitive).
pub(super) fn bearer(req: &Request) -> Option<String> {
    let value = req.headers.get("authorization")?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let ok = scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("token");
    ok.then(|| token.trim().to_owned())
}

/// The value of GraphQL argument `name` in `query`: a `$variable` (looked up in
/// `vars`), a `"string"` literal or a bare enum literal. Not a GraphQL parser.
pub(super) fn gql_arg(query: &str, vars: &Value, name: &str) -> Option<Value> {
    let ident = |s: &str| {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    let mut from = 0;
    while let Some(off) = query[from..].find(name) {
        let at = from + off;
        from = at + name.len();
        let before = query[..at].chars().next_back();
        if before.is_some_and(|c| c == '$' || c == '_' || c.is_alphanumeric()) {
            continue; // a variable declaration or a longer word
        }
        let Some(rest) = query[from..].trim_start().strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        return if let Some(var) = rest.strip_prefix('$') {
            vars.get(ident(var)).cloned()
        } else if let Some(lit) = rest.strip_prefix('"') {
            lit.split('"').next().map(|s| json!(s))
        } else {
            Some(json!(ident(rest))).filter(|v| v.as_str() != Some(""))
        };
    }
    None
}

/// A new-style GraphQL global id: `PREFIX_` + base64url(msgpack array of `parts`),
/// e.g. `IC_kwDO…` for `[0, repo id, comment id]`.
pub(super) fn global_id(prefix: &str, parts: &[u64]) -> String {
    let mut b = vec![0x90 | parts.len() as u8];
    for &p in parts {
        match p {
            0..=0x7f => b.push(p as u8),
            0x80..=0xff => b.extend([0xcc, p as u8]),
            0x100..=0xffff => b.extend([&[0xcd][..], &(p as u16).to_be_bytes()].concat()),
            0x1_0000..=0xffff_ffff => b.extend([&[0xce][..], &(p as u32).to_be_bytes()].concat()),
            _ => b.extend([&[0xcf][..], &p.to_be_bytes()].concat()),
        }
    }
    format!("{prefix}_{}", b64(&b, true))
}

/// Base64: standard with padding (legacy node ids), or URL-safe without.
pub(super) fn b64(bytes: &[u8], url_safe: bool) -> String {
    let mut table = *b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if url_safe {
        (table[62], table[63]) = (b'-', b'_');
    }
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(table[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else if !url_safe {
                out.push('=');
            }
        }
    }
    out
}

/// `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds (civil-from-days, proleptic Gregorian).
pub(super) fn rfc3339(secs: u64) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let (hh, mm, ss) = (rem / 3600, rem / 60 % 60, rem % 60);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}
