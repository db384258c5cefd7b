//! Publish stage: puts the rendered comment on the pull request — create, update in place,
//! recreate, or hide the old one and post anew — safely and idempotently. The only async
//! module: it knows nothing of plans, only bodies, keys and the GitHub API.
//!
//! Guarantees: only comments by our own identity whose last line is our marker with our
//! key are touched (a copy of a marker elsewhere in a body is plan text); an older run
//! never overwrites a newer one's comment; an unchanged body is not re-sent; a create that
//! failed ambiguously is looked for before it is sent again (no duplicates); two runs that
//! create at once converge on one comment (`Session::converge`); a body GitHub finds
//! too long is refused with [`PublishError::TooLong`] for the caller to render smaller and
//! publish again in the same [`Session`].

mod bodies;
pub(crate) mod client;
pub(crate) mod comments;
mod error;
pub(crate) mod labels;
pub(crate) mod target;

use std::collections::HashSet;

use http::Method;
use serde_json::{json, Value as Json};

use bodies::{is_newer, says_the_same};
use client::{GitHub, Repeat, Response};
use comments::Identity;
use target::Target;

pub(crate) use comments::Comment;
pub(crate) use error::PublishError;

/// How to publish (`--comment-mode`; each variant's line is its `--help` text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Mode {
    /// Edit our comment in place (create it the first time).
    #[default]
    Update,
    /// Always post a new comment.
    New,
    /// Delete ours and post.
    Recreate,
    /// Hide ours as outdated and post.
    HideAndNew,
}

/// What to do when the plan has no changes (`--on-no-changes`; each variant's line is its
/// `--help` text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum OnNoChanges {
    /// As with changes.
    #[default]
    Update,
    /// Post nothing new; an existing comment is still updated so it stops claiming changes.
    Skip,
    /// Delete our comment.
    Delete,
}

/// How to publish a body (where, and for which key, is the [`Session`]'s).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request {
    /// How.
    pub(crate) mode: Mode,
    /// With no changes.
    pub(crate) on_no_changes: OnNoChanges,
    /// The plan has changes.
    pub(crate) has_changes: bool,
    /// Write nothing; report what would be done.
    pub(crate) dry_run: bool,
    /// The changes are those of the comment the body replaces: what the body says moved
    /// since an earlier plan (its [`crate::marker::SINCE`] line and marks, see
    /// [`crate::marker::without_since`]) does not make it news, so a re-run leaves the comment,
    /// and what it said had moved, as it is.
    pub(crate) same_changes: bool,
}

/// What was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Done {
    /// A comment was posted.
    Created,
    /// Our comment was edited.
    Updated,
    /// Our comment already said this.
    Unchanged,
    /// Our comment belongs to a newer run: left alone.
    KeptNewer,
    /// Our comment was deleted (no changes).
    Deleted,
    /// Nothing to post (no changes, no comment).
    Skipped,
}

/// The result of publishing.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// What was done (or would be, in a dry run).
    pub(crate) done: Done,
    /// The comment, when one exists afterwards.
    pub(crate) comment_id: Option<u64>,
    /// Its link.
    pub(crate) comment_url: Option<String>,
    /// The body published (or that would be).
    pub(crate) body: String,
    /// One line per write made (or planned, in a dry run).
    pub(crate) actions: Vec<String>,
}

/// Our comments for one key on one pull request, listed once, and what publishing there has
/// done so far. The caller reads the previous comment ([`Session::previous`]) before it
/// renders, then publishes the body ([`Session::publish`]); when GitHub finds the body too
/// long ([`PublishError::TooLong`]) it renders a smaller one and publishes again in the same
/// session, which neither lists the comments again nor repeats a deletion or a hiding.
pub(crate) struct Session {
    github: GitHub,
    target: Target,
    key: String,
    me: Identity,
    ours: Vec<Comment>,
    /// Comments deleted or hidden by an earlier attempt of this run.
    removed: HashSet<u64>,
    actions: Vec<String>,
}

impl Session {
    /// Asks who the token belongs to and lists the pull request's comments: ours are those
    /// by that identity whose last line is our marker with `key`.
    pub(crate) async fn open(
        github: GitHub,
        target: Target,
        key: String,
    ) -> Result<Session, PublishError> {
        let me = comments::identity(&github).await?;
        let mut session = Session {
            github,
            target,
            key,
            me,
            ours: Vec::new(),
            removed: HashSet::new(),
            actions: Vec::new(),
        };
        session.ours = session.list_ours().await?;
        Ok(session)
    }

    /// The client, for the caller's other requests (labels).
    pub(crate) fn github(&self) -> &GitHub {
        &self.github
    }

    /// The pull request.
    pub(crate) fn target(&self) -> &Target {
        &self.target
    }

    /// Our newest comment for the key (the one `update` edits): the previous plan's
    /// comment, `None` before the first (for the caller to compare with; `planmark verify`
    /// reads the reviewed plan's hashes from it).
    pub(crate) fn latest(&self) -> Option<&Comment> {
        self.ours.last()
    }

    /// Publishes `body` as `request` says. [`PublishError::TooLong`] when GitHub finds it
    /// too long: publish a smaller body again.
    pub(crate) async fn publish(
        &mut self,
        request: &Request,
        body: String,
    ) -> Result<Outcome, PublishError> {
        let before: HashSet<u64> = self.ours.iter().map(|c| c.id).collect();
        let outcome = self.publish_body(request, body).await?;
        // `new` wants a comment per run; every other mode wants one per key.
        if outcome.done == Done::Created && request.mode != Mode::New {
            return self.converge(request, &before, outcome).await;
        }
        Ok(outcome)
    }
}

/// What [`Session::publish`] would do when the existing comments cannot be looked at (a dry run
/// without a token): the same choices, by mode and `--on-no-changes`, said conditionally.
pub(crate) fn unchecked(request: &Request, body: String) -> Outcome {
    const UNCHECKED: &str = "no token: existing comments not checked";
    let (done, action) = match (request.has_changes, request.on_no_changes) {
        (false, OnNoChanges::Delete) => (
            Done::Deleted,
            format!("delete our comment if there is one, as the plan has no changes (--on-no-changes delete; {UNCHECKED})"),
        ),
        (false, OnNoChanges::Skip) => (
            Done::Skipped,
            format!("post nothing new, as the plan has no changes (--on-no-changes skip); a comment of ours would still be updated ({UNCHECKED})"),
        ),
        _ => {
            let what = match request.mode {
                Mode::Update => "create or update the comment",
                Mode::New => "create a comment",
                Mode::Recreate => "delete our comments and create a comment",
                Mode::HideAndNew => "hide our comments as outdated and create a comment",
            };
            (Done::Created, format!("{what} ({UNCHECKED})"))
        }
    };
    Outcome {
        done,
        comment_id: None,
        comment_url: None,
        body,
        actions: vec![action],
    }
}

impl Session {
    fn outcome(&mut self, done: Done, comment: Option<&Comment>, body: String) -> Outcome {
        Outcome {
            done,
            comment_id: comment.map(|c| c.id),
            comment_url: comment.map(|c| c.html_url.clone()),
            body,
            actions: std::mem::take(&mut self.actions),
        }
    }

    async fn list_ours(&self) -> Result<Vec<Comment>, PublishError> {
        let all = comments::list(&self.github, &self.target).await?;
        Ok(all
            .into_iter()
            .filter(|c| c.by(&self.me) && c.has_key(&self.key))
            .collect())
    }

    async fn publish_body(
        &mut self,
        request: &Request,
        body: String,
    ) -> Result<Outcome, PublishError> {
        let ours = self.ours.clone();
        if !request.has_changes {
            match request.on_no_changes {
                OnNoChanges::Delete => {
                    for comment in &ours {
                        self.delete(request, comment.id, &comment.html_url).await?;
                    }
                    let done = if ours.is_empty() {
                        Done::Skipped
                    } else {
                        Done::Deleted
                    };
                    return Ok(self.outcome(done, None, body));
                }
                OnNoChanges::Skip if ours.is_empty() => {
                    return Ok(self.outcome(Done::Skipped, None, body));
                }
                // An existing comment is updated even with `skip`: it must not keep
                // claiming changes that are gone.
                OnNoChanges::Skip if request.mode != Mode::Update => {
                    return self.update_latest(request, &ours, body).await;
                }
                _ => {}
            }
        }
        match request.mode {
            Mode::Update => self.update_latest(request, &ours, body).await,
            Mode::New => self.create(request, body).await,
            Mode::Recreate => {
                for comment in &ours {
                    self.delete(request, comment.id, &comment.html_url).await?;
                }
                self.create(request, body).await
            }
            Mode::HideAndNew => {
                let hidden = self.already_hidden(&ours).await;
                for comment in ours.iter().filter(|c| !hidden.contains(&c.node_id)) {
                    self.minimize(request, comment).await?;
                }
                self.create(request, body).await
            }
        }
    }

    /// GitHub has no create-if-absent: two runs that listed before either created each
    /// post a comment. So after creating, list again: of the comments of ours with the key
    /// that were not there at our first listing (made by runs at the same time as this
    /// one, and not hidden, with `hide-and-new`), the oldest (lowest id) is kept, a rule
    /// every run applies alike. If it is not the one we created, ours is the duplicate:
    /// we delete it (we made it, so we may) and give the survivor our body unless it
    /// comes from a newer run. Only the run that created a younger duplicate deletes
    /// anything, and only its own comment; the oldest one's run keeps it. If the survivor
    /// is gone before we could update it (another run's `recreate`), ours is posted again.
    async fn converge(
        &mut self,
        request: &Request,
        before: &HashSet<u64>,
        mut created: Outcome,
    ) -> Result<Outcome, PublishError> {
        for _ in 0..3 {
            let (Some(mine), Some(url)) = (created.comment_id, created.comment_url.clone()) else {
                return Ok(created);
            };
            let mut concurrent: Vec<Comment> = self.list_ours().await?;
            concurrent.retain(|c| !before.contains(&c.id));
            if request.mode == Mode::HideAndNew {
                let hidden = self.already_hidden(&concurrent).await;
                concurrent.retain(|c| !hidden.contains(&c.node_id));
            }
            let Some(oldest) = concurrent.into_iter().min_by_key(|c| c.id) else {
                return Ok(created);
            };
            if oldest.id >= mine {
                return Ok(created);
            }
            self.actions = std::mem::take(&mut created.actions);
            self.actions
                .push(format!("another run posted comment {} first", oldest.id));
            self.delete(request, mine, &url).await?;
            match self.update(request, &oldest, created.body.clone()).await {
                Err(PublishError::Denied { status: 404, .. }) => {
                    created = self.create(request, created.body).await?;
                }
                other => return other,
            }
        }
        Ok(created)
    }

    async fn update_latest(
        &mut self,
        request: &Request,
        ours: &[Comment],
        body: String,
    ) -> Result<Outcome, PublishError> {
        let Some(latest) = ours.last() else {
            return self.create(request, body).await;
        };
        self.update(request, latest, body).await
    }

    /// Edits `latest` to say `body`, unless it comes from a newer run or says it already.
    async fn update(
        &mut self,
        request: &Request,
        latest: &Comment,
        body: String,
    ) -> Result<Outcome, PublishError> {
        let old = latest.body.as_deref().unwrap_or("");
        if is_newer(old, &body) {
            return Ok(self.outcome(Done::KeptNewer, Some(latest), body));
        }
        if says_the_same(old, &body, request.same_changes) {
            return Ok(self.outcome(Done::Unchanged, Some(latest), body));
        }
        let path = self.target.comment(latest.id);
        // Said once the write is made: a body refused as too long is sent again smaller.
        let action = format!("update comment {} ({})", latest.id, latest.html_url);
        if request.dry_run {
            self.actions.push(action);
            return Ok(self.outcome(Done::Updated, Some(latest), body));
        }
        let response = self
            .send_body(Method::PATCH, &path, &body, Repeat::Safe)
            .await?;
        self.actions.push(action);
        let comment = parse_comment(&response)?;
        Ok(self.outcome(Done::Updated, Some(&comment), body))
    }

    async fn create(&mut self, request: &Request, body: String) -> Result<Outcome, PublishError> {
        let target = &self.target;
        let path = target.issue("/comments");
        let action = format!(
            "create a comment on {}/{}#{}",
            target.owner, target.repo, target.number
        );
        if request.dry_run {
            self.actions.push(action);
            return Ok(self.outcome(Done::Created, None, body));
        }
        for _ in 0..3 {
            let sent = (self.send_body(Method::POST, &path, &body, Repeat::OnlyIfRefused)).await;
            let comment = match sent {
                Ok(response) => parse_comment(&response)?,
                // The comment may exist now: look before posting again.
                Err(PublishError::Ambiguous(_)) => match self.find_posted(&body).await? {
                    Some(found) => found,
                    None => continue,
                },
                Err(e) => return Err(e),
            };
            self.actions.push(action);
            return Ok(self.outcome(Done::Created, Some(&comment), body));
        }
        Err(PublishError::Ambiguous(
            "creating the comment kept failing; no comment was found afterwards".into(),
        ))
    }

    /// Our comment with exactly `body`, if a failed create did in fact go through.
    async fn find_posted(&self, body: &str) -> Result<Option<Comment>, PublishError> {
        let all = comments::list(&self.github, &self.target).await?;
        Ok(all.into_iter().rev().find(|c| {
            c.by(&self.me) && c.body.as_deref().map(str::trim_end) == Some(body.trim_end())
        }))
    }

    /// Sends a body; [`PublishError::TooLong`] when GitHub finds it too long.
    async fn send_body(
        &self,
        method: Method,
        path: &str,
        body: &str,
        repeat: Repeat,
    ) -> Result<Response, PublishError> {
        let payload = json!({ "body": body });
        let response = self
            .github
            .rest(method, path, Some(&payload), repeat)
            .await?;
        if response.ok() {
            return Ok(response);
        }
        if too_long(&response) {
            return Err(PublishError::TooLong {
                maximum: maximum_chars(&response),
            });
        }
        Err(response.refusal("writing the comment"))
    }

    /// Says `action` on comment `id` unless an earlier attempt of this run removed it
    /// already; whether to send it (not in a dry run).
    fn removing(&mut self, request: &Request, id: u64, action: String) -> bool {
        if !self.removed.insert(id) {
            return false;
        }
        self.actions.push(action);
        !request.dry_run
    }

    async fn delete(&mut self, request: &Request, id: u64, url: &str) -> Result<(), PublishError> {
        if !self.removing(request, id, format!("delete comment {id} ({url})")) {
            return Ok(());
        }
        let path = self.target.comment(id);
        let response = self
            .github
            .rest(Method::DELETE, &path, None, Repeat::Safe)
            .await?;
        // Gone already is as good as deleted.
        if response.ok() || response.status == 404 {
            return Ok(());
        }
        Err(response.refusal("deleting the old comment"))
    }

    /// The node ids of those of `comments` that are hidden already, so that each run of
    /// `hide-and-new` hides only the previous comment instead of every earlier one again
    /// (REST does not say; one GraphQL `nodes` query per 100 comments does). Any failure
    /// counts none as hidden: hiding a comment twice is harmless.
    async fn already_hidden(&self, comments: &[Comment]) -> HashSet<String> {
        let query =
            "query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { id isMinimized } } }";
        let mut hidden = HashSet::new();
        for batch in comments.chunks(100) {
            let ids: Vec<&str> = batch.iter().map(|c| c.node_id.as_str()).collect();
            let Ok(data) = self.github.graphql(query, json!({ "ids": ids })).await else {
                return HashSet::new();
            };
            let nodes = data.get("nodes").and_then(Json::as_array);
            hidden.extend(nodes.into_iter().flatten().filter_map(|node| {
                let minimized = node.get("isMinimized").and_then(Json::as_bool)?;
                let id = node.get("id").and_then(Json::as_str)?;
                minimized.then(|| id.to_string())
            }));
        }
        hidden
    }

    async fn minimize(&mut self, request: &Request, comment: &Comment) -> Result<(), PublishError> {
        let action = format!(
            "hide comment {} as outdated ({})",
            comment.id, comment.html_url
        );
        if !self.removing(request, comment.id, action) {
            return Ok(());
        }
        let query = "mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) { minimizedComment { isMinimized } } }";
        self.github
            .graphql(query, json!({ "id": comment.node_id }))
            .await
            .map(|_| ())
    }
}

fn parse_comment(response: &Response) -> Result<Comment, PublishError> {
    serde_json::from_str(&response.body)
        .map_err(|_| response.failure("writing the comment", "the answer is not a comment"))
}

/// GitHub's "Body is too long" validation failure (its case varies by endpoint).
fn too_long(response: &Response) -> bool {
    response.status == 422 && response.body.to_ascii_lowercase().contains("is too long")
}

/// The limit a too-long refusal names ("… is too long (maximum is 65536 characters)"),
/// when it names one.
fn maximum_chars(response: &Response) -> Option<usize> {
    let body = response.body.to_ascii_lowercase();
    let rest = &body[body.find("maximum is ")? + "maximum is ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
