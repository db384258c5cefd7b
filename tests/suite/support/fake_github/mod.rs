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
//! - `GET /repos/{o}/{r}/commits/{sha}/pulls` (pull requests whose head or merge commit
//!   is `sha`) and `GET /repos/{o}/{r}/pulls/{n}`.
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

mod payloads;
mod routes;
mod state;

use payloads::*;

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
            merged: None,
        });
    }

    /// Marks pull request `number` merged as commit `merge_sha` (closed, `merged_at` and
    /// `merge_commit_sha` set): `GET …/commits/{merge_sha}/pulls` then lists it, as GitHub
    /// lists the pull request that brought a commit to the default branch.
    pub fn merge_pull(&self, owner: &str, repo: &str, number: u64, merge_sha: &str) {
        let mut st = self.st();
        let repo_id = st.repo_or_create(owner, repo);
        let merged_at = st.tick();
        let pull = st
            .pulls
            .iter_mut()
            .find(|p| p.repo_id == repo_id && p.number == number)
            .unwrap_or_else(|| panic!("merge_pull: add_pull {owner}/{repo}#{number} first"));
        pull.state = "closed".into();
        pull.merged = Some((merge_sha.into(), merged_at));
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
    /// The merge commit and when, once merged.
    merged: Option<(String, String)>,
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
