//! The fake's state: repositories, pulls, comments and tokens, and how a request is
//! authenticated, routed and answered (headers, faults, delays).

use super::*;

impl State {
    pub(super) fn api(&self) -> String {
        match self.flavor {
            Flavor::Dotcom => self.origin.clone(),
            Flavor::Enterprise => format!("{}/api/v3", self.origin),
        }
    }
    pub(super) fn html(&self) -> String {
        match self.flavor {
            Flavor::Dotcom => "https://github.com".into(),
            Flavor::Enterprise => self.origin.clone(),
        }
    }
    /// Advances the fake clock by one second.
    pub(super) fn tick(&mut self) -> String {
        self.clock += 1;
        rfc3339(self.clock)
    }
    pub(super) fn find_repo(&self, key: &RepoKey) -> Option<&Repo> {
        self.repos.iter().find(|r| match key {
            RepoKey::Id(id) => r.id == *id,
            RepoKey::Name(o, n) => {
                r.owner.eq_ignore_ascii_case(o) && r.name.eq_ignore_ascii_case(n)
            }
        })
    }
    pub(super) fn repo_id(&self, owner: &str, name: &str) -> Option<u64> {
        self.find_repo(&RepoKey::Name(owner.into(), name.into()))
            .map(|r| r.id)
    }
    pub(super) fn repo_or_create(&mut self, owner: &str, name: &str) -> u64 {
        if let Some(id) = self.repo_id(owner, name) {
            return id;
        }
        let id = 700_000_001 + self.repos.len() as u64 * 1_013;
        let (owner, name) = (owner.into(), name.into());
        self.repos.push(Repo { id, owner, name });
        id
    }
    pub(super) fn has_pull(&self, repo_id: u64, number: u64) -> bool {
        self.pulls
            .iter()
            .any(|p| p.repo_id == repo_id && p.number == number)
    }
    /// Adds label `name` to an issue, creating the repository label when missing; returns
    /// false when the issue already carried it (names compare case-insensitively).
    pub(super) fn label_issue(&mut self, repo_id: u64, number: u64, name: &str) -> bool {
        let known = self
            .repo_labels
            .iter()
            .find(|(r, n, _)| *r == repo_id && n.eq_ignore_ascii_case(name))
            .map(|(_, n, _)| n.clone());
        let name = match known {
            Some(n) => n,
            None => {
                let id = 5_000_000_000 + self.repo_labels.len() as u64 * 17;
                self.repo_labels.push((repo_id, name.to_string(), id));
                name.to_string()
            }
        };
        let on = self.issue_labels.entry((repo_id, number)).or_default();
        if on.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            return false;
        }
        on.push(name);
        true
    }

    /// An issue's labels as GitHub lists them.
    pub(super) fn labels_json(&self, repo: &Repo, number: u64) -> Value {
        let names = self.issue_labels.get(&(repo.id, number));
        let labels = names.into_iter().flatten().map(|name| {
            let (_, name, id) = self
                .repo_labels
                .iter()
                .find(|(r, n, _)| *r == repo.id && n == name)
                .expect("issue labels exist in the repository");
            let url = format!(
                "{}/repos/{}/{}/labels/{}",
                self.api(),
                repo.owner,
                repo.name,
                name.replace('%', "%25")
                    .replace(' ', "%20")
                    .replace(':', "%3A")
            );
            json!({"id": id, "node_id": global_id("LA", &[0, *id]), "url": url, "name": name,
                "color": "ededed", "default": false, "description": null})
        });
        Value::Array(labels.collect())
    }

    pub(super) fn insert_comment(
        &mut self,
        repo_id: u64,
        number: u64,
        user: User,
        body: String,
    ) -> u64 {
        let id = self.next_comment_id;
        self.next_comment_id += 7; // increasing, not contiguous
        let (created_at, node_id) = (self.tick(), global_id("IC", &[0, repo_id, id]));
        let updated_at = created_at.clone();
        self.comments.push(Comment {
            id,
            node_id,
            body,
            user_login: user.login.clone(),
            user_id: user.id,
            author: user,
            minimized: false,
            minimized_reason: None,
            created_at,
            updated_at,
            repo_id,
            number,
        });
        id
    }

    pub(super) fn handle(&mut self, req: &Request) -> ResponseTemplate {
        let (method, path) = (req.method.as_str().to_owned(), req.url.path().to_owned());
        let query = req.url.query().unwrap_or("").to_owned();
        let call = self.parse(&method, &path);
        let route = call.as_ref().map(|c| c.route);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let headers = req
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), text(v.as_bytes())))
            .collect();
        let body = text(&req.body);
        self.log.push(Recorded {
            method,
            path,
            query: query.clone(),
            headers,
            body,
            route,
            status: None,
        });
        let token = bearer(req);
        self.begin(token.as_deref(), route == Some(Route::GraphQl));
        let response = match route.and_then(|r| self.faults.get_mut(&r)?.pop_front()) {
            Some(Failure::Status {
                status,
                headers,
                body,
            }) => self.raw(status, body, &headers),
            Some(Failure::ApplyThenStatus { status }) => {
                let _ = self.dispatch(call, token, req, &query);
                let (headers, body) = failure_body(status);
                let headers: Vec<_> = headers
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect();
                self.raw(status, body, &headers)
            }
            None => self.dispatch(call, token, req, &query),
        };
        let status = self.last_status.get();
        self.log.last_mut().expect("just recorded").status = Some(status);
        match route.and_then(|r| self.delays.get(&r)) {
            Some(by) => response.set_delay(*by),
            None => response,
        }
    }

    /// Maps method + path to an endpoint; `None` is a 404.
    pub(super) fn parse(&self, method: &str, path: &str) -> Option<Call> {
        let (graphql, prefix) = match self.flavor {
            Flavor::Dotcom => ("/graphql", ""),
            Flavor::Enterprise => ("/api/graphql", "/api/v3"),
        };
        let bare = |route| {
            Some(Call {
                route,
                repo: None,
                num: 0,
                sha: String::new(),
            })
        };
        if path == graphql {
            return if method == "POST" {
                bare(Route::GraphQl)
            } else {
                None
            };
        }
        let rest = path.strip_prefix(prefix).filter(|r| r.starts_with('/'))?;
        let seg: Vec<&str> = rest[1..].split('/').collect();
        let (key, tail) = match seg.as_slice() {
            ["user"] if method == "GET" => return bare(Route::GetUser),
            ["repos", o, r, tail @ ..] => (RepoKey::Name(o.to_string(), r.to_string()), tail),
            // GitHub's own `Link` headers use this form.
            ["repositories", id, tail @ ..] => (RepoKey::Id(id.parse().ok()?), tail),
            _ => return None,
        };
        if let ("DELETE", ["issues", n, "labels", name]) = (method, tail) {
            return Some(Call {
                route: Route::RemoveLabel,
                repo: Some(key),
                num: n.parse().ok()?,
                sha: percent_decode(name)?,
            });
        }
        let (route, arg) = match (method, tail) {
            ("GET", ["issues", "comments", id]) => (Route::GetComment, *id),
            ("PATCH" | "POST", ["issues", "comments", id]) => (Route::UpdateComment, *id),
            ("DELETE", ["issues", "comments", id]) => (Route::DeleteComment, *id),
            ("GET", ["issues", n, "comments"]) => (Route::ListComments, *n),
            ("POST", ["issues", n, "comments"]) => (Route::CreateComment, *n),
            ("GET", ["pulls", n]) => (Route::GetPull, *n),
            ("GET", ["issues", n, "labels"]) => (Route::ListLabels, *n),
            ("POST", ["issues", n, "labels"]) => (Route::AddLabels, *n),
            ("GET", ["commits", sha, "pulls"]) => (Route::CommitPulls, *sha),
            _ => return None,
        };
        let num = if route == Route::CommitPulls {
            0
        } else {
            arg.parse().ok()?
        };
        Some(Call {
            route,
            repo: Some(key),
            num,
            sha: arg.to_owned(),
        })
    }

    /// Sets the headers every response carries and counts the request against its quota.
    pub(super) fn begin(&mut self, token: Option<&str>, graphql: bool) {
        self.served += 1;
        let (limit, key) = match token.and_then(|t| self.tokens.get(t).map(|k| (t, k))) {
            Some((t, k)) if k.0.kind == UserKind::Bot => (1000u64, t.to_owned()),
            Some((t, _)) => (5000, t.to_owned()),
            None => (60, String::new()),
        };
        let resource = if graphql { "graphql" } else { "core" };
        let used = self.used.entry((key, resource)).or_default();
        *used += 1;
        let (used, n) = (*used, self.served);
        let id = format!(
            "C0DE:{:06X}:{n:06X}:{:07X}:66320000",
            n * 7919 % 0xFF_FFFF,
            n * 31
        );
        let (extra, value) = match self.flavor {
            Flavor::Dotcom => ("server", "GitHub.com"),
            Flavor::Enterprise => ("x-github-enterprise-version", "3.14.0"),
        };
        let h = [
            ("x-github-request-id", id),
            ("x-github-media-type", "github.v3; format=json".into()),
            ("x-github-api-version-selected", "2022-11-28".into()),
            ("x-ratelimit-limit", limit.to_string()),
            (
                "x-ratelimit-remaining",
                limit.saturating_sub(used).to_string(),
            ),
            ("x-ratelimit-reset", self.reset.to_string()),
            ("x-ratelimit-used", used.to_string()),
            ("x-ratelimit-resource", resource.into()),
            ("x-content-type-options", "nosniff".into()),
            (extra, value.into()),
        ];
        self.hdrs = h.map(|(k, v)| (k.to_owned(), v)).to_vec();
    }

    /// A response with the common headers, then `extra` (which may override them).
    pub(super) fn raw(
        &self,
        status: u16,
        body: String,
        extra: &[(String, String)],
    ) -> ResponseTemplate {
        self.last_status.set(status);
        let mut t = ResponseTemplate::new(status);
        let mut mime = JSON_MIME.to_owned();
        for (k, v) in self.hdrs.iter().chain(extra) {
            if k.eq_ignore_ascii_case("content-type") {
                mime = v.clone();
            } else {
                t = t.insert_header(k.as_str(), v.as_str());
            }
        }
        if body.is_empty() {
            t
        } else {
            t.set_body_raw(body.into_bytes(), &mime)
        }
    }
    pub(super) fn json(
        &self,
        status: u16,
        v: Value,
        extra: &[(String, String)],
    ) -> ResponseTemplate {
        self.raw(status, v.to_string(), extra)
    }
    /// GitHub's REST error body.
    pub(super) fn err(&self, status: u16, message: &str, doc: &str) -> ResponseTemplate {
        let v = json!({"message": message, "documentation_url": doc, "status": status.to_string()});
        self.json(status, v, &[])
    }
}
