//! The test stage's **fake GitHub**: a stateful stand-in for the GitHub REST and
//! GraphQL APIs on loopback, built on one `wiremock::MockServer` whose single
//! catch-all [`Respond`] implementation shares an `Arc<Mutex<State>>`.
//!
//! Contract (what a publisher test may rely on):
//! - [`Flavor::Dotcom`] serves REST at `/` and GraphQL at `POST /graphql`;
//!   [`Flavor::Enterprise`] (GHES) serves REST under `/api/v3` and GraphQL at
//!   `POST /api/graphql`. `/api/v3/graphql` is a 404 there, as on a real GHES.
//! - Tokens (`Authorization: Bearer T` or `token T`) map to identities
//!   ([`FakeGitHub::add_token`]); missing → 401 "Requires authentication",
//!   unknown → 401 "Bad credentials". Bots (`GITHUB_TOKEN`) get 403 on `GET /user`.
//! - Issue comments on pull requests: list (`per_page` default 30, max 100; `Link`
//!   header with `prev`/`next`/`last`/`first` pointing at this server's
//!   `/repositories/{id}/…`, like GitHub's), create (201 + `Location`), get, update
//!   (`PATCH`, and `POST` as octocrab sends it), delete (204). Payloads carry every
//!   field octocrab's `models::issues::Comment` requires. Errors use GitHub's bodies:
//!   404, 403 on other users' comments, 400 for bad JSON, 422 for a missing body and
//!   for bodies over 65,536 characters. Length is counted in Unicode scalar values
//!   (`str::chars`), as GitHub words its limit; a byte budget is the publisher's job.
//! - `GET /repos/{o}/{r}/commits/{sha}/pulls` and `GET /repos/{o}/{r}/pulls/{n}`.
//! - Issue labels: list (`GET …/issues/{n}/labels`, one page), add (`POST …/labels` with
//!   `{"labels": [names]}`, answering every label of the issue; a label the repository
//!   lacks is created with GitHub's default colour), remove (`DELETE …/labels/{name}`, the
//!   name percent-decoded, matched case-insensitively; 404 "Label does not exist" when the
//!   issue does not carry it). Label writes need write access like comment writes.
//! - GraphQL by string matching: `viewer { login databaseId }` and
//!   `minimizeComment(input: {subjectId, classifier})`, with GitHub's HTTP-200 error
//!   envelopes for unknown node ids and bad arguments.
//! - Every response carries `x-github-request-id` and `x-ratelimit-*` headers.
//! - Every request is recorded (before faults) in [`FakeGitHub::requests`], and
//!   [`FakeGitHub::fail_next`] scripts faults per [`Route`], consumed FIFO.
//! - Requests are handled one at a time, in arrival order (creates get increasing ids),
//!   and [`FakeGitHub::delay`] holds a route's answers back after handling them: a list
//!   then shows the comments as they were when it arrived, as a slow GitHub's would, which
//!   widens the window in which two clients can both see no comment.
//! - Timestamps come from a fake clock (2024-05-01T12:00:00Z + 1 s per write), so
//!   `created_at`/`updated_at` strictly increase. Comment ids start above `i32::MAX`.
//! - Permissions: a comment may be edited/deleted by its author or by a human whose
//!   login is the repository owner (the admin); tokens from
//!   [`FakeGitHub::add_read_only_token`] (fork PRs) may only read.
//!
//! Not modelled: plain issues, `since`/sorting, reactions, locking, ETags/304, commit
//! existence (an unknown sha lists `[]` where GitHub may answer 422), real quotas
//! (headers only count down), other GraphQL queries (answered with an `errors` entry).

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// GitHub's documented comment limit, in characters (Unicode scalar values).
pub const MAX_BODY_CHARS: usize = 65_536;
const JSON_MIME: &str = "application/json; charset=utf-8";
const CLOCK_START: u64 = 1_714_564_800; // 2024-05-01T12:00:00Z
const FIRST_COMMENT_ID: u64 = 2_147_483_700; // above i32::MAX, as real ids are now
const ACTIONS_BOT_ID: u64 = 41_898_282;
const ACTIONS_APP_ID: u64 = 15_368;
const INTEGRATION: &str = "Resource not accessible by integration";
const DOC_REST: &str = "https://docs.github.com/rest";
/// GraphQL `ReportedContentClassifiers`.
const CLASSIFIERS: &str = "SPAM ABUSE OFF_TOPIC OUTDATED DUPLICATE RESOLVED LOW_QUALITY";

/// Which GitHub product the fake imitates (only the URL layout differs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavor {
    /// github.com: REST at `/`, GraphQL at `POST /graphql`.
    #[default]
    Dotcom,
    /// GitHub Enterprise Server: REST under `/api/v3`, GraphQL at `POST /api/graphql`.
    Enterprise,
}

/// Account type, as in the REST `user.type` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserKind {
    User,
    Bot,
}

/// An identity a token authenticates as, or the author of a seeded comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub login: String,
    pub id: u64,
    pub kind: UserKind,
}

impl User {
    /// What an Actions `GITHUB_TOKEN` authenticates as: `github-actions[bot]`, 41898282.
    pub fn actions_bot() -> User {
        let (login, id, kind) = ("github-actions[bot]".into(), ACTIONS_BOT_ID, UserKind::Bot);
        User { login, id, kind }
    }
    /// A person (PAT). A human whose login equals the repository owner is its admin.
    pub fn human(login: &str, id: u64) -> User {
        let (login, kind) = (login.into(), UserKind::User);
        User { login, id, kind }
    }
}

/// A comment as the fake currently stores it (see [`FakeGitHub::comments`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub id: u64,
    /// GraphQL global id (`IC_kwDO…`), what `minimizeComment` takes.
    pub node_id: String,
    pub body: String,
    pub user_login: String,
    pub user_id: u64,
    pub minimized: bool,
    /// Lower-case classifier (`"outdated"`), as GraphQL's `minimizedReason`.
    pub minimized_reason: Option<String>,
    /// RFC 3339, `Z` suffix, from the fake clock.
    pub created_at: String,
    pub updated_at: String,
    author: User,
    repo_id: u64,
    number: u64,
}

/// One request as received (recorded before any scripted fault applies).
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    /// Full path, `/api/v3` prefix included on Enterprise.
    pub path: String,
    /// Raw query string without `?` (empty when none).
    pub query: String,
    /// Header names are lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The route it matched, `None` for unknown routes (answered 404).
    pub route: Option<Route>,
    /// The status the fake answered (a scripted fault's, if one applied).
    pub status: Option<u16>,
}

impl Recorded {
    /// First value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut values = self.headers.iter().filter(|(k, _)| k == name);
        values.next().map(|(_, v)| v.as_str())
    }
}

/// The endpoints the fake serves; faults are scripted per route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Route {
    ListComments,
    CreateComment,
    GetComment,
    UpdateComment,
    DeleteComment,
    GraphQl,
    CommitPulls,
    GetPull,
    GetUser,
    ListLabels,
    AddLabels,
    RemoveLabel,
}

impl Route {
    /// `documentation_url` GitHub puts in this endpoint's errors.
    fn doc(self) -> String {
        let anchor = match self {
            Route::ListComments => "list-issue-comments",
            Route::CreateComment => "create-an-issue-comment",
            Route::GetComment => "get-an-issue-comment",
            Route::UpdateComment => "update-an-issue-comment",
            Route::DeleteComment => "delete-an-issue-comment",
            Route::GetPull => return format!("{DOC_REST}/pulls/pulls#get-a-pull-request"),
            Route::CommitPulls => {
                return format!(
                    "{DOC_REST}/commits/commits#list-pull-requests-associated-with-a-commit"
                )
            }
            Route::GetUser => return format!("{DOC_REST}/users/users#get-the-authenticated-user"),
            Route::GraphQl => return "https://docs.github.com/graphql".into(),
            Route::ListLabels => {
                return format!("{DOC_REST}/issues/labels#list-labels-for-an-issue")
            }
            Route::AddLabels => return format!("{DOC_REST}/issues/labels#add-labels-to-an-issue"),
            Route::RemoveLabel => {
                return format!("{DOC_REST}/issues/labels#remove-a-label-from-an-issue")
            }
        };
        format!("{DOC_REST}/issues/comments#{anchor}")
    }
}

/// A scripted fault for the next request on a [`Route`].
#[derive(Clone, Debug)]
pub enum Failure {
    /// Answer this instead of handling the request. `content-type` defaults to JSON.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Perform the request (e.g. create the comment) but answer `status`, like a
    /// proxy failing after the write: an ambiguous failure.
    ApplyThenStatus { status: u16 },
}

impl Failure {
    fn status(status: u16, headers: &[(&str, String)], body: String) -> Failure {
        let headers = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        Failure::Status {
            status,
            headers,
            body,
        }
    }
    fn secondary(status: u16, retry_after: u64) -> Failure {
        let body = json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID DEAD:BEEF:1A2B3C:4D5E6F:66320000.",
            "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"});
        Failure::status(
            status,
            &[("retry-after", retry_after.to_string())],
            body.to_string(),
        )
    }
    /// 403 secondary rate limit with `retry-after` (quota headers stay non-zero).
    pub fn secondary_rate_limit(retry_after_secs: u64) -> Failure {
        Failure::secondary(403, retry_after_secs)
    }
    /// 429 with `retry-after` and the secondary-rate-limit message.
    pub fn rate_limited_429(retry_after_secs: u64) -> Failure {
        Failure::secondary(429, retry_after_secs)
    }
    /// 403 primary rate limit: `x-ratelimit-remaining: 0`, `x-ratelimit-reset: reset_epoch`.
    pub fn primary_rate_limit(reset_epoch: u64) -> Failure {
        let body = json!({"message": "API rate limit exceeded for installation ID 12345678. If you reach out to GitHub Support for help, please include the request ID DEAD:BEEF:1A2B3C:4D5E6F:66320000.",
            "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
            "status": "403"});
        let headers = [
            ("x-ratelimit-remaining", "0".into()),
            ("x-ratelimit-reset", reset_epoch.to_string()),
        ];
        Failure::status(403, &headers, body.to_string())
    }
    /// 502 with an HTML body, as a load balancer sends it.
    pub fn bad_gateway() -> Failure {
        let (headers, body) = failure_body(502);
        Failure::status(502, &headers, body)
    }
    /// 500 `{"message":"Server Error"}`.
    pub fn server_error() -> Failure {
        let (headers, body) = failure_body(500);
        Failure::status(500, &headers, body)
    }
}

/// Headers and body of a 5xx (used by [`Failure::ApplyThenStatus`] too).
fn failure_body(status: u16) -> (Vec<(&'static str, String)>, String) {
    let code = http::StatusCode::from_u16(status).ok();
    let reason = code.and_then(|s| s.canonical_reason()).unwrap_or("Error");
    if matches!(status, 502..=504) {
        let html = format!("<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n<center><h1>{status} {reason}</h1></center>\r\n</body>\r\n</html>\r\n");
        (vec![("content-type", "text/html".into())], html)
    } else {
        let message = if status == 500 {
            "Server Error"
        } else {
            reason
        };
        (vec![], json!({ "message": message }).to_string())
    }
}

/// A running fake GitHub. The server stops when this is dropped.
pub struct FakeGitHub {
    server: MockServer,
    state: Arc<Mutex<State>>,
}

impl FakeGitHub {
    /// Starts a server on 127.0.0.1 with a random port and no data.
    pub async fn start(flavor: Flavor) -> FakeGitHub {
        let server = MockServer::start().await;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let state = State {
            flavor,
            origin: server.uri(),
            clock: CLOCK_START,
            next_comment_id: FIRST_COMMENT_ID,
            reset: now + 3600, // quota window, real time (clients may compare it to now)
            ..State::default()
        };
        let state = Arc::new(Mutex::new(state));
        let handler = Handler(state.clone());
        Mock::given(any())
            .respond_with(handler)
            .mount(&server)
            .await;
        FakeGitHub { server, state }
    }

    fn st(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What `GITHUB_API_URL` would be: `http://127.0.0.1:PORT` or `…/api/v3`.
    pub fn api_url(&self) -> String {
        self.st().api()
    }

    /// What `GITHUB_GRAPHQL_URL` would be: `…/graphql` or `…/api/graphql`.
    pub fn graphql_url(&self) -> String {
        match self.st().flavor {
            Flavor::Dotcom => format!("{}/graphql", self.server.uri()),
            Flavor::Enterprise => format!("{}/api/graphql", self.server.uri()),
        }
    }

    /// Registers `owner/repo` (idempotent). Names match case-insensitively.
    pub fn add_repo(&self, owner: &str, repo: &str) {
        self.st().repo_or_create(owner, repo);
    }

    /// Registers (or replaces) pull request `number`, creating the repo if needed.
    /// `state` is `open` or `closed`. The PR author is the repository owner.
    pub fn add_pull(
        &self,
        owner: &str,
        repo: &str,
        number: u64,
        head_sha: &str,
        head_ref: &str,
        state: &str,
    ) {
        let mut st = self.st();
        let repo_id = st.repo_or_create(owner, repo);
        let created_at = st.tick();
        st.pulls
            .retain(|p| !(p.repo_id == repo_id && p.number == number));
        st.pulls.push(Pull {
            repo_id,
            number,
            head_sha: head_sha.into(),
            head_ref: head_ref.into(),
            state: state.into(),
            created_at,
        });
    }

    /// Makes `token` authenticate as `user` with write access.
    pub fn add_token(&self, token: &str, user: User) {
        self.st().tokens.insert(token.into(), Token(user, false));
    }

    /// Makes `token` authenticate as `user` with read access only (a fork PR's
    /// `GITHUB_TOKEN`): writes get 403 "Resource not accessible by integration".
    pub fn add_read_only_token(&self, token: &str, user: User) {
        self.st().tokens.insert(token.into(), Token(user, true));
    }

    /// Adds a comment by `user` on an existing PR (panics otherwise); returns its id.
    pub fn seed_comment(
        &self,
        owner: &str,
        repo: &str,
        number: u64,
        user: &User,
        body: &str,
    ) -> u64 {
        let mut st = self.st();
        let repo_id = st
            .repo_id(owner, repo)
            .filter(|id| st.has_pull(*id, number));
        let repo_id = repo_id
            .unwrap_or_else(|| panic!("seed_comment: add_pull {owner}/{repo}#{number} first"));
        st.insert_comment(repo_id, number, user.clone(), body.into())
    }

    /// Puts labels on an existing PR (creating them in the repository), as a person would.
    pub fn seed_labels(&self, owner: &str, repo: &str, number: u64, names: &[&str]) {
        let mut st = self.st();
        let repo_id = st
            .repo_id(owner, repo)
            .expect("seed_labels: add_repo first");
        for name in names {
            st.label_issue(repo_id, number, name);
        }
    }

    /// The labels of a PR, in the order they were added.
    pub fn labels(&self, owner: &str, repo: &str, number: u64) -> Vec<String> {
        let st = self.st();
        let Some(repo_id) = st.repo_id(owner, repo) else {
            return Vec::new();
        };
        let on = st.issue_labels.get(&(repo_id, number));
        on.cloned().unwrap_or_default()
    }

    /// Current comments of a PR, in creation order (deleted ones are gone).
    pub fn comments(&self, owner: &str, repo: &str, number: u64) -> Vec<Comment> {
        let st = self.st();
        let repo_id = st.repo_id(owner, repo);
        let on_pull = |c: &&Comment| Some(c.repo_id) == repo_id && c.number == number;
        st.comments.iter().filter(on_pull).cloned().collect()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.st().log.clone()
    }

    /// Forgets the recorded requests (e.g. after setup calls).
    pub fn clear_requests(&self) {
        self.st().log.clear();
    }

    /// Delays every answer on `route` by `by` (the request is handled on arrival).
    pub fn delay(&self, route: Route, by: std::time::Duration) {
        self.st().delays.insert(route, by);
    }

    /// Scripts `failure` for the next request on `route`; several queue up FIFO.
    pub fn fail_next(&self, route: Route, failure: Failure) {
        self.st()
            .faults
            .entry(route)
            .or_default()
            .push_back(failure);
    }
}

struct Handler(Arc<Mutex<State>>);

impl Respond for Handler {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.handle(request)
    }
}

#[derive(Clone, Debug)]
struct Repo {
    id: u64,
    owner: String,
    name: String,
}

struct Pull {
    repo_id: u64,
    number: u64,
    head_sha: String,
    head_ref: String,
    state: String,
    created_at: String,
}

/// An identity and whether it may only read.
#[derive(Clone)]
struct Token(User, bool);

enum RepoKey {
    Name(String, String),
    Id(u64),
}

/// A routed request: endpoint, repository, and PR number / comment id / commit sha.
struct Call {
    route: Route,
    repo: Option<RepoKey>,
    num: u64,
    sha: String,
}

#[derive(Default)]
struct State {
    flavor: Flavor,
    /// `http://127.0.0.1:PORT`
    origin: String,
    repos: Vec<Repo>,
    pulls: Vec<Pull>,
    comments: Vec<Comment>,
    tokens: HashMap<String, Token>,
    faults: HashMap<Route, VecDeque<Failure>>,
    delays: HashMap<Route, std::time::Duration>,
    /// Repository labels: (repository id, name, id).
    repo_labels: Vec<(u64, String, u64)>,
    /// Label names on each (repository id, issue number).
    issue_labels: HashMap<(u64, u64), Vec<String>>,
    log: Vec<Recorded>,
    clock: u64,
    next_comment_id: u64,
    served: u64,
    /// Requests per (token, rate-limit resource).
    used: HashMap<(String, &'static str), u64>,
    reset: u64,
    /// Common headers and status of the response being built.
    hdrs: Vec<(String, String)>,
    last_status: Cell<u16>,
}

impl State {
    fn api(&self) -> String {
        match self.flavor {
            Flavor::Dotcom => self.origin.clone(),
            Flavor::Enterprise => format!("{}/api/v3", self.origin),
        }
    }
    fn html(&self) -> String {
        match self.flavor {
            Flavor::Dotcom => "https://github.com".into(),
            Flavor::Enterprise => self.origin.clone(),
        }
    }
    /// Advances the fake clock by one second.
    fn tick(&mut self) -> String {
        self.clock += 1;
        rfc3339(self.clock)
    }
    fn find_repo(&self, key: &RepoKey) -> Option<&Repo> {
        self.repos.iter().find(|r| match key {
            RepoKey::Id(id) => r.id == *id,
            RepoKey::Name(o, n) => {
                r.owner.eq_ignore_ascii_case(o) && r.name.eq_ignore_ascii_case(n)
            }
        })
    }
    fn repo_id(&self, owner: &str, name: &str) -> Option<u64> {
        self.find_repo(&RepoKey::Name(owner.into(), name.into()))
            .map(|r| r.id)
    }
    fn repo_or_create(&mut self, owner: &str, name: &str) -> u64 {
        if let Some(id) = self.repo_id(owner, name) {
            return id;
        }
        let id = 700_000_001 + self.repos.len() as u64 * 1_013;
        let (owner, name) = (owner.into(), name.into());
        self.repos.push(Repo { id, owner, name });
        id
    }
    fn has_pull(&self, repo_id: u64, number: u64) -> bool {
        self.pulls
            .iter()
            .any(|p| p.repo_id == repo_id && p.number == number)
    }
    /// Adds label `name` to an issue, creating the repository label when missing; returns
    /// false when the issue already carried it (names compare case-insensitively).
    fn label_issue(&mut self, repo_id: u64, number: u64, name: &str) -> bool {
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
    fn labels_json(&self, repo: &Repo, number: u64) -> Value {
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

    fn insert_comment(&mut self, repo_id: u64, number: u64, user: User, body: String) -> u64 {
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

    fn handle(&mut self, req: &Request) -> ResponseTemplate {
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
    fn parse(&self, method: &str, path: &str) -> Option<Call> {
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
    fn begin(&mut self, token: Option<&str>, graphql: bool) {
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
    fn raw(&self, status: u16, body: String, extra: &[(String, String)]) -> ResponseTemplate {
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
    fn json(&self, status: u16, v: Value, extra: &[(String, String)]) -> ResponseTemplate {
        self.raw(status, v.to_string(), extra)
    }
    /// GitHub's REST error body.
    fn err(&self, status: u16, message: &str, doc: &str) -> ResponseTemplate {
        let v = json!({"message": message, "documentation_url": doc, "status": status.to_string()});
        self.json(status, v, &[])
    }

    fn dispatch(
        &mut self,
        call: Option<Call>,
        token: Option<String>,
        req: &Request,
        query: &str,
    ) -> ResponseTemplate {
        let Some(Call {
            route,
            repo: key,
            num,
            sha,
        }) = call
        else {
            return self.err(404, "Not Found", DOC_REST);
        };
        let doc = route.doc();
        let who = match token.as_ref().map(|t| self.tokens.get(t)) {
            None if route == Route::GraphQl => {
                let v = json!({"message": "This endpoint requires you to be authenticated.",
                    "documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"});
                return self.json(401, v, &[]);
            }
            None => return self.err(401, "Requires authentication", &doc),
            Some(None) => return self.err(401, "Bad credentials", DOC_REST),
            Some(Some(t)) => t.clone(),
        };
        let (user, read_only) = (&who.0, who.1);
        match route {
            Route::GraphQl => return self.graphql(&who, &req.body),
            Route::GetUser if user.kind == UserKind::Bot => {
                return self.err(403, INTEGRATION, &doc)
            }
            Route::GetUser => {
                let mut u = self.user_json(user);
                let more = json!({"name": user.login, "company": null, "blog": "", "location": null, "email": null,
                    "hireable": null, "bio": null, "twitter_username": null, "public_repos": 3, "public_gists": 0,
                    "followers": 1, "following": 0, "created_at": "2015-03-04T05:06:07Z", "updated_at": rfc3339(self.clock)});
                u.as_object_mut()
                    .unwrap()
                    .extend(more.as_object().unwrap().clone());
                return self.json(200, u, &[]);
            }
            _ => {}
        }
        let Some(repo) = key.and_then(|k| self.find_repo(&k).cloned()) else {
            return self.err(404, "Not Found", &doc);
        };
        let writes = matches!(
            route,
            Route::CreateComment
                | Route::UpdateComment
                | Route::DeleteComment
                | Route::AddLabels
                | Route::RemoveLabel
        );
        let on_issue = matches!(
            route,
            Route::ListComments
                | Route::CreateComment
                | Route::ListLabels
                | Route::AddLabels
                | Route::RemoveLabel
        );
        match route {
            _ if on_issue && !self.has_pull(repo.id, num) => self.err(404, "Not Found", &doc),
            _ if writes && read_only => self.err(403, INTEGRATION, &doc),
            Route::ListLabels => self.json(200, self.labels_json(&repo, num), &[]),
            Route::AddLabels => {
                let v: Option<Value> = serde_json::from_slice(&req.body).ok();
                let Some(v) = v else {
                    return self.err(400, "Problems parsing JSON", &doc);
                };
                let names: Option<Vec<String>> = v
                    .get("labels")
                    .and_then(Value::as_array)
                    .and_then(|a| a.iter().map(|n| n.as_str().map(str::to_owned)).collect());
                let Some(names) = names.filter(|n| !n.is_empty()) else {
                    let msg = "Invalid request.\n\nNo subschema in \"anyOf\" matched.";
                    return self.err(422, msg, &doc);
                };
                for name in names {
                    self.label_issue(repo.id, num, &name);
                }
                self.json(200, self.labels_json(&repo, num), &[])
            }
            Route::RemoveLabel => {
                let on = self.issue_labels.entry((repo.id, num)).or_default();
                let Some(i) = on.iter().position(|n| n.eq_ignore_ascii_case(&sha)) else {
                    return self.err(404, "Label does not exist", &doc);
                };
                on.remove(i);
                self.json(200, self.labels_json(&repo, num), &[])
            }
            Route::ListComments => self.list(&repo, num, query),
            Route::CreateComment => match self.body_of(&req.body, &doc, true) {
                Err(r) => *r,
                Ok(body) => {
                    let id = self.insert_comment(repo.id, num, user.clone(), body);
                    let v = self.comment_json(self.comments.last().unwrap());
                    let loc = format!(
                        "{}/repos/{}/{}/issues/comments/{id}",
                        self.api(),
                        repo.owner,
                        repo.name
                    );
                    self.json(201, v, &[("location".into(), loc)])
                }
            },
            Route::GetComment | Route::UpdateComment | Route::DeleteComment => {
                let found = self
                    .comments
                    .iter()
                    .position(|c| c.id == num && c.repo_id == repo.id);
                let Some(i) = found else {
                    return self.err(404, "Not Found", &doc);
                };
                // The author and a human repository admin (the owner) may change it.
                let admin =
                    user.kind == UserKind::User && user.login.eq_ignore_ascii_case(&repo.owner);
                if writes && self.comments[i].user_id != user.id && !admin {
                    let bot = user.kind == UserKind::Bot;
                    let msg = if bot {
                        INTEGRATION
                    } else {
                        "Must have admin rights to Repository."
                    };
                    return self.err(403, msg, &doc);
                }
                if route == Route::DeleteComment {
                    self.comments.remove(i);
                    return self.raw(204, String::new(), &[]);
                }
                if route == Route::UpdateComment {
                    let body = match self.body_of(&req.body, &doc, false) {
                        Ok(body) => body,
                        Err(r) => return *r,
                    };
                    let t = self.tick();
                    let c = &mut self.comments[i];
                    (c.body, c.updated_at) = (body, t);
                }
                self.json(200, self.comment_json(&self.comments[i]), &[])
            }
            Route::GetPull => match self
                .pulls
                .iter()
                .find(|p| p.repo_id == repo.id && p.number == num)
            {
                Some(p) => self.json(200, self.pull_json(&repo, p), &[]),
                None => self.err(404, "Not Found", &doc),
            },
            Route::CommitPulls => {
                let mut prs: Vec<&Pull> = self
                    .pulls
                    .iter()
                    .filter(|p| p.repo_id == repo.id && p.head_sha == sha)
                    .collect();
                prs.sort_by_key(|p| (p.state != "open", p.number));
                let v: Vec<Value> = prs.iter().map(|p| self.pull_json(&repo, p)).collect();
                self.json(200, Value::Array(v), &[])
            }
            Route::GetUser | Route::GraphQl => unreachable!("handled above"),
        }
    }

    /// `GET …/issues/{n}/comments?per_page=&page=` with GitHub's `Link` header.
    fn list(&self, repo: &Repo, n: u64, query: &str) -> ResponseTemplate {
        let pairs = || query.split('&').filter_map(|p| p.split_once('='));
        let param = |name: &str| {
            pairs()
                .find(|(k, _)| *k == name)
                .and_then(|(_, v)| v.parse::<usize>().ok())
        };
        let per_page = param("per_page")
            .filter(|p| *p > 0)
            .map_or(30, |p| p.min(100));
        let page = param("page").filter(|p| *p > 0).unwrap_or(1);
        let all: Vec<&Comment> = self
            .comments
            .iter()
            .filter(|c| c.repo_id == repo.id && c.number == n)
            .collect();
        let last = all.len().div_ceil(per_page).max(1);
        let shown = all.iter().skip((page - 1) * per_page).take(per_page);
        let items: Vec<Value> = shown.map(|c| self.comment_json(c)).collect();
        // Links keep the caller's other parameters and put `page` last, like GitHub.
        let mut kept: String = pairs()
            .filter(|(k, _)| *k != "page")
            .map(|(k, v)| format!("{k}={v}&"))
            .collect();
        kept.insert_str(
            0,
            &format!(
                "{}/repositories/{}/issues/{n}/comments?",
                self.api(),
                repo.id
            ),
        );
        let link = |p: usize, rel: &str| format!("<{kept}page={p}>; rel=\"{rel}\"");
        let mut links = Vec::new();
        if page > 1 {
            links.push(link(page - 1, "prev"));
        }
        if page < last {
            links.push(link(page + 1, "next"));
        }
        if page != last {
            links.push(link(last, "last"));
        }
        if page > 1 {
            links.push(link(1, "first"));
        }
        let extra: Vec<(String, String)> = Some(links.join(", "))
            .filter(|l| !l.is_empty())
            .map(|l| ("link".into(), l))
            .into_iter()
            .collect();
        self.json(200, Value::Array(items), &extra)
    }

    /// The `body` of a create/update request, or GitHub's error for it.
    fn body_of(
        &self,
        raw: &[u8],
        doc: &str,
        create: bool,
    ) -> Result<String, Box<ResponseTemplate>> {
        let err = |status, message: &str| Box::new(self.err(status, message, doc));
        let v: Value =
            serde_json::from_slice(raw).map_err(|_| err(400, "Problems parsing JSON"))?;
        let failed = |code: &str, field: &str, message: &str| {
            let e = json!({"resource": "IssueComment", "code": code, "field": field, "message": message});
            let v = json!({"message": "Validation Failed", "errors": [e], "documentation_url": doc, "status": "422"});
            Box::new(self.json(422, v, &[]))
        };
        // GitHub's two wordings: create says "Body …" on field `data`, update "body …".
        let too_long =
            |s: &str| format!("{s} is too long (maximum is {MAX_BODY_CHARS} characters)");
        match v.get("body") {
            None => Err(err(422, "Invalid request.\n\n\"body\" wasn't supplied.")),
            Some(Value::String(s)) if s.chars().count() > MAX_BODY_CHARS => Err(if create {
                failed("unprocessable", "data", &too_long("Body"))
            } else {
                failed("custom", "body", &too_long("body"))
            }),
            Some(Value::String(s)) if s.trim().is_empty() => {
                Err(failed("missing_field", "body", "Body cannot be blank"))
            }
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => {
                let shown = if other.is_null() {
                    "nil".to_owned()
                } else {
                    other.to_string()
                };
                let msg =
                    format!("Invalid request.\n\nFor 'properties/body', {shown} is not a string.");
                Err(err(422, &msg))
            }
        }
    }

    fn graphql(&mut self, who: &Token, raw: &[u8]) -> ResponseTemplate {
        let Ok(v) = serde_json::from_slice::<Value>(raw) else {
            return self.err(400, "Problems parsing JSON", &Route::GraphQl.doc());
        };
        let errors = |msg: String| json!({"errors": [{"message": msg, "locations": [{"line": 1, "column": 1}]}]});
        let Some(q) = v.get("query").and_then(Value::as_str) else {
            let e = errors("A query attribute must be specified and must be a string.".into());
            return self.json(200, e, &[]);
        };
        let vars = v.get("variables").cloned().unwrap_or(Value::Null);
        if q.contains("viewer") && !q.contains("minimizeComment") {
            let v = json!({"data": {"viewer": {"login": who.0.login, "databaseId": who.0.id}}});
            return self.json(200, v, &[]);
        }
        if q.contains("nodes(") && !q.contains("minimizeComment") {
            return self.graphql_nodes(q, &vars);
        }
        if !q.contains("minimizeComment") {
            let e = errors(
                "The fake GitHub only answers `viewer`, `nodes` and `minimizeComment`.".into(),
            );
            return self.json(200, e, &[]);
        }
        // Arguments inline, or in an `input: $var` object.
        let arg = |name: &str| {
            gql_arg(q, &vars, name).or_else(|| gql_arg(q, &vars, "input")?.get(name).cloned())
        };
        let text = |name: &str| arg(name).and_then(|s| s.as_str().map(str::to_owned));
        let required = |a: &str, ty: &str| {
            errors(format!("Argument '{a}' on InputObject 'MinimizeCommentInput' is required. Expected type {ty}!"))
        };
        let (Some(subject), Some(classifier)) = (text("subjectId"), text("classifier")) else {
            let e = match text("subjectId") {
                None => required("subjectId", "ID"),
                Some(_) => required("classifier", "ReportedContentClassifiers"),
            };
            return self.json(200, e, &[]);
        };
        if !CLASSIFIERS.split(' ').any(|c| c == classifier) {
            let msg = format!("Argument 'classifier' on InputObject 'MinimizeCommentInput' has an invalid value ({classifier}). Expected type 'ReportedContentClassifiers!'.");
            return self.json(200, errors(msg), &[]);
        }
        let failed = |ty: &str, msg: String| {
            json!({"data": {"minimizeComment": null}, "errors": [{"type": ty,
            "path": ["minimizeComment"], "locations": [{"line": 1, "column": 1}], "message": msg}]})
        };
        let Some(i) = self.comments.iter().position(|c| c.node_id == subject) else {
            let msg = format!("Could not resolve to a node with the global id of '{subject}'.");
            return self.json(200, failed("NOT_FOUND", msg), &[]);
        };
        if who.1 {
            return self.json(200, failed("FORBIDDEN", INTEGRATION.into()), &[]);
        }
        // Anyone with write access may hide any comment (no ownership check).
        let reason = classifier.to_lowercase();
        let c = &mut self.comments[i];
        (c.minimized, c.minimized_reason) = (true, Some(reason.clone()));
        let mut hidden = json!({"isMinimized": true});
        if q.contains("minimizedReason") {
            hidden["minimizedReason"] = json!(reason);
        }
        self.json(
            200,
            json!({"data": {"minimizeComment": {"minimizedComment": hidden}}}),
            &[],
        )
    }

    /// `nodes(ids: [...]) { ... on IssueComment { id isMinimized } }`: as GitHub, a `null`
    /// node plus a `NOT_FOUND` error for each id that resolves to nothing.
    fn graphql_nodes(&mut self, q: &str, vars: &Value) -> ResponseTemplate {
        let Some(ids) = gql_arg(q, vars, "ids").and_then(|v| v.as_array().cloned()) else {
            let e = json!({"errors": [{"message": "Field 'nodes' is missing required arguments: ids",
                "locations": [{"line": 1, "column": 1}]}]});
            return self.json(200, e, &[]);
        };
        let mut nodes = Vec::new();
        let mut missing = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let id = id.as_str().unwrap_or_default();
            match self.comments.iter().find(|c| c.node_id == id) {
                Some(c) => nodes.push(json!({"id": c.node_id, "isMinimized": c.minimized})),
                None => {
                    nodes.push(Value::Null);
                    missing.push(json!({"type": "NOT_FOUND", "path": ["nodes", i],
                        "locations": [{"line": 1, "column": 1}],
                        "message": format!("Could not resolve to a node with the global id of '{id}'")}));
                }
            }
        }
        let mut body = json!({"data": {"nodes": nodes}});
        if !missing.is_empty() {
            body["errors"] = json!(missing);
        }
        self.json(200, body, &[])
    }

    /// A REST `simple-user`, with every field octocrab's `Author` requires.
    fn user_json(&self, u: &User) -> Value {
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
    fn owner_json(&self, owner: &str) -> Value {
        let mut users = self.tokens.values().map(|t| &t.0);
        let known = users.find(|u| u.kind == UserKind::User && u.login.eq_ignore_ascii_case(owner));
        let id = owner
            .bytes()
            .fold(17u64, |h, b| (h * 31 + u64::from(b)) % 90_000_000)
            + 1_000;
        self.user_json(known.unwrap_or(&User::human(owner, id)))
    }

    /// A REST issue comment, as GitHub sends it (`performed_via_github_app` for bots).
    fn comment_json(&self, c: &Comment) -> Value {
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
    fn pull_json(&self, repo: &Repo, p: &Pull) -> Value {
        let api = format!("{}/repos/{}/{}", self.api(), repo.owner, repo.name);
        let html = format!("{}/{}/{}", self.html(), repo.owner, repo.name);
        let owner = self.owner_json(&repo.owner);
        let repo_v = json!({"id": repo.id, "node_id": global_id("R", &[0, repo.id]), "name": repo.name,
            "full_name": format!("{}/{}", repo.owner, repo.name), "private": true, "owner": owner,
            "html_url": html, "description": null, "fork": false, "url": api});
        let base_sha = format!("{:040x}", u128::from(repo.id) * 0x9E37_79B9_7F4A_7C15);
        let closed = (p.state == "closed").then(|| p.created_at.clone());
        let (n, db_id) = (p.number, repo.id * 100 + p.number);
        json!({"url": format!("{api}/pulls/{n}"), "id": db_id, "node_id": global_id("PR", &[0, repo.id, db_id]),
            "html_url": format!("{html}/pull/{n}"), "diff_url": format!("{html}/pull/{n}.diff"),
            "patch_url": format!("{html}/pull/{n}.patch"), "issue_url": format!("{api}/issues/{n}"),
            "comments_url": format!("{api}/issues/{n}/comments"), "number": n, "state": p.state, "locked": false,
            "title": format!("Update {}", p.head_ref), "user": owner, "body": null, "created_at": p.created_at,
            "updated_at": p.created_at, "closed_at": closed, "merged_at": null, "merge_commit_sha": null, "draft": false,
            "author_association": "OWNER",
            "head": {"label": format!("{}:{}", repo.owner, p.head_ref), "ref": p.head_ref, "sha": p.head_sha, "user": owner, "repo": repo_v},
            "base": {"label": format!("{}:main", repo.owner), "ref": "main", "sha": base_sha, "user": owner, "repo": repo_v}})
    }
}

/// A percent-encoded path segment as text (`None` for bad escapes or non-UTF-8).
fn percent_decode(segment: &str) -> Option<String> {
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
fn bearer(req: &Request) -> Option<String> {
    let value = req.headers.get("authorization")?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let ok = scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("token");
    ok.then(|| token.trim().to_owned())
}

/// The value of GraphQL argument `name` in `query`: a `$variable` (looked up in
/// `vars`), a `"string"` literal or a bare enum literal. Not a GraphQL parser.
fn gql_arg(query: &str, vars: &Value, name: &str) -> Option<Value> {
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
fn global_id(prefix: &str, parts: &[u64]) -> String {
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
fn b64(bytes: &[u8], url_safe: bool) -> String {
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
fn rfc3339(secs: u64) -> String {
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
