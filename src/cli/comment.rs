//! Command line, `planmark comment`: renders the plans through the pipeline, publishes the
//! comment through the publish stage, and integrates with GitHub Actions (step summary,
//! step outputs).

use std::io::Write;
use std::time::Duration;

use super::error::{policy_result, Error, Result};
use super::{env, CommentArgs};
use crate::pipeline::{self, Loaded, Purpose, Rendered};
use crate::publish::client::GitHub;
use crate::publish::labels;
use crate::publish::target::{resolve, TargetHints};
use crate::publish::{unchecked, Done, Outcome, PublishError, Request, Session};
use crate::render::markdown::MIN_MAX_CHARS;

/// GitHub refuses step summaries over 1 MiB.
const STEP_SUMMARY_BYTES: usize = 1024 * 1024;

pub(super) fn comment(args: CommentArgs, out: &mut dyn Write) -> Result<()> {
    let plan_mode = args.plan_mode.plan_mode();
    let options = args.common.run_options(plan_mode, args.repo.clone())?;
    let runtime = runtime()?;
    let inputs = pipeline::read(&options, Purpose::Comment)?;
    let parsed = inputs.parse()?;
    let differs = parsed.differs(&options);
    let loaded = parsed.load(&options, &differs)?;
    let published = publish(&args, &runtime, &loaded, out);
    // The plans' annotations, whatever became of the comment; then the policies' verdict.
    let verdicts = loaded.verdicts();
    super::workflow::annotate(&verdicts.annotations, out).map_err(Error::Write)?;
    let judged =
        published.and_then(|()| policy_result(&verdicts, args.common.rego.policy_warn_only));
    loaded.finish(judged)
}

/// Renders the comment of `loaded`, compared with the previous plan's, publishes and
/// reports it (the policies are judged after).
fn publish(
    args: &CommentArgs,
    runtime: &tokio::runtime::Runtime,
    loaded: &Loaded<'_>,
    out: &mut dyn Write,
) -> Result<()> {
    // Our comments are listed once, once the plans name the key: the newest is the previous
    // plan's, which the comment is compared with; the same listing is published to.
    let mut session = runtime.block_on(open(args, &loaded.key()))?;
    let rendered = &loaded.comment(session.as_ref().and_then(|s| s.latest()?.body.as_deref()))?;
    let request = Request {
        mode: args.old_mode.unwrap_or(args.comment_mode),
        on_no_changes: args.on_no_changes,
        // A failed plan is news even with `--on-no-changes skip`.
        has_changes: rendered.is_news(),
        dry_run: args.dry_run,
        same_changes: rendered.same_changes(),
    };
    let mut outcome = runtime.block_on(async {
        match session.as_mut() {
            Some(session) => {
                publish_fitting(session, &request, rendered, args.common.max_chars).await
            }
            // A dry run without a token cannot look for an existing comment.
            None => Ok(unchecked(&request, rendered.comment.markdown.clone())),
        }
    })?;
    // The comment is posted: a label GitHub refuses is a warning, after which the outputs
    // and the step summary are written all the same.
    if args.labels.labels {
        match runtime.block_on(sync_labels(args, rendered, session.as_ref())) {
            Ok(actions) => outcome.actions.extend(actions),
            Err(err) => eprintln!(
                "planmark: warning: the labels were not set: {}",
                crate::input::text::one_line(&err.to_string())
            ),
        }
    }
    report(args, &outcome, session.is_some(), out)?;
    if !args.dry_run {
        actions_files(rendered, &outcome)?;
    }
    Ok(())
}

/// Makes the pull request carry the label of the rendered verdict; the writes made (or
/// that would be made).
async fn sync_labels(
    args: &CommentArgs,
    rendered: &Rendered<'_>,
    session: Option<&Session>,
) -> std::result::Result<Vec<String>, PublishError> {
    let names = args.labels.names();
    match (rendered.verdict(), session) {
        // A failed plan says nothing about what would change: labels stay.
        (None, _) => Ok(Vec::new()),
        (Some(verdict), Some(session)) => {
            labels::sync(
                session.github(),
                session.target(),
                &names,
                verdict,
                args.dry_run,
            )
            .await
        }
        (Some(verdict), None) => Ok(vec![format!(
            "keep only the label {} of ours (no token: current labels not checked)",
            names[verdict as usize]
        )]),
    }
}

/// The pull request's comments for `key`, listed; `None` in a dry run without a token,
/// which cannot look at them.
async fn open(args: &CommentArgs, key: &str) -> std::result::Result<Option<Session>, PublishError> {
    let github = match env(&args.token_env) {
        None if args.dry_run => None,
        _ => Some(client(&args.token_env, args.max_wait)?),
    };
    let target = match resolve(&hints(args.repo.clone(), args.pr), github.as_ref()).await {
        Ok(target) => target,
        // A dry run that names no pull request still shows the body it would post.
        Err(PublishError::Config(why)) if args.dry_run => {
            eprintln!("planmark: dry run: {why}; the body is not compared with a posted one");
            return Ok(None);
        }
        Err(err) => return Err(err),
    };
    match github {
        Some(github) => Ok(Some(Session::open(github, target, key.to_string()).await?)),
        None => Ok(None),
    }
}

/// Publishes the comment, rendered again within a smaller limit each time GitHub finds it
/// too long: the limit GitHub names when it is below ours, else the pipeline's next
/// ([`pipeline::smaller`]). Refused at the smallest, it is an error.
async fn publish_fitting(
    session: &mut Session,
    request: &Request,
    rendered: &Rendered<'_>,
    mut max_chars: usize,
) -> Result<Outcome> {
    let mut body = rendered.comment.markdown.clone();
    loop {
        match session.publish(request, body).await {
            Err(PublishError::TooLong { maximum }) => {
                let named = maximum.filter(|m| (MIN_MAX_CHARS..max_chars).contains(m));
                let Some(next) = named.or_else(|| pipeline::smaller(max_chars)) else {
                    return Err(Error::Publish(PublishError::TooLong { maximum }));
                };
                max_chars = next;
                body = rendered.render(max_chars)?.markdown;
            }
            published => return Ok(published?),
        }
    }
}

/// A tokio runtime for the publish stage's requests.
pub(super) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Publish(PublishError::Network(format!("cannot start: {e}"))))
}

/// The GitHub client, with the token in `token_env` and the API's URLs from the Actions
/// environment; a request waits at most `max_wait` seconds.
pub(super) fn client(token_env: &str, max_wait: u64) -> std::result::Result<GitHub, PublishError> {
    let token = env(token_env).ok_or_else(|| {
        PublishError::Config(format!(
            "no token: set {token_env} (in a workflow: `env: {token_env}: ${{{{ github.token }}}}`) or pass --token-env NAME"
        ))
    })?;
    let api = env("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".to_string());
    let api = api.trim_end_matches('/').to_string();
    let graphql = env("GITHUB_GRAPHQL_URL").unwrap_or_else(|| match api.strip_suffix("/api/v3") {
        // GitHub Enterprise Server serves GraphQL at /api/graphql, not under /api/v3.
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{api}/graphql"),
    });
    GitHub::new(&api, &graphql, &token, Duration::from_secs(max_wait))
}

/// Where the pull request is: `--repo` and `--pr` when given, else the Actions
/// environment.
pub(super) fn hints(repo: Option<String>, pr: Option<u64>) -> TargetHints {
    let event = env("GITHUB_EVENT_PATH")
        .and_then(|path| std::fs::read(path).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    TargetHints {
        repository: repo.or_else(|| env("GITHUB_REPOSITORY")),
        number: pr,
        event_name: env("GITHUB_EVENT_NAME"),
        event,
        sha: env("GITHUB_SHA"),
        ref_name: env("GITHUB_REF_NAME"),
    }
}

/// What was done, on standard output (a dry run adds the body).
fn report(args: &CommentArgs, outcome: &Outcome, checked: bool, out: &mut dyn Write) -> Result<()> {
    let prefix = if args.dry_run { "would " } else { "" };
    let mut text = String::new();
    for action in &outcome.actions {
        // One line each whatever a name in it holds (see `one_line`).
        let action = crate::input::text::one_line(action);
        text.push_str(&format!("planmark: {prefix}{action}\n"));
    }
    let summary = match outcome.done {
        Done::Unchanged => "the comment is already up to date",
        Done::KeptNewer => "the comment belongs to a newer run; left as it is",
        Done::Skipped => "no changes and no comment: nothing posted",
        _ => "",
    };
    // Without a token nothing was looked at: the actions say what would happen.
    if !summary.is_empty() && checked {
        text.push_str(&format!("planmark: {summary}\n"));
    }
    if let (Some(url), false) = (&outcome.comment_url, args.dry_run) {
        text.push_str(&format!("planmark: {url}\n"));
    }
    if args.dry_run {
        text.push('\n');
        text.push_str(&outcome.body);
        // The body holds plan strings: in Actions they must not issue workflow commands.
        if super::workflow::stdout_reaches_runner() {
            let token = super::workflow::token().map_err(Error::Write)?;
            let mut paused = super::workflow::StopCommands::new(out, token);
            let written = paused.write_all(text.as_bytes());
            return written.and_then(|()| paused.finish()).map_err(Error::Write);
        }
    }
    out.write_all(text.as_bytes()).map_err(Error::Write)
}

/// Appends the comment to `GITHUB_STEP_SUMMARY` and writes step outputs to `GITHUB_OUTPUT`.
fn actions_files(rendered: &Rendered<'_>, outcome: &Outcome) -> Result<()> {
    if let Some(path) = env("GITHUB_STEP_SUMMARY") {
        // The full comment within the step summary's bytes, degraded the same way past them.
        // UTF-16 units never exceed UTF-8 bytes, so start at the byte limit and shrink.
        let fits =
            |c: &crate::render::markdown::Comment| c.markdown.len() <= STEP_SUMMARY_BYTES * 49 / 50;
        let mut summary = rendered.fit(STEP_SUMMARY_BYTES, fits)?.markdown;
        summary.push('\n');
        append(&path, &summary)?;
    }
    if let Some(path) = env("GITHUB_OUTPUT") {
        let first = &rendered.comment;
        let totals = &first.context.totals;
        let outputs = [
            ("has_changes", rendered.has_changes().to_string()),
            ("add", totals.add.to_string()),
            ("change", totals.change.to_string()),
            ("destroy", totals.destroy.to_string()),
            ("replace", totals.replace.to_string()),
            ("import", totals.import.to_string()),
            ("move", totals.moved.to_string()),
            ("invoke", totals.invoke.to_string()),
            ("truncated", first.context.truncated.to_string()),
            (
                "comment_id",
                outcome
                    .comment_id
                    .map(|id| id.to_string())
                    .unwrap_or_default(),
            ),
            (
                "comment_url",
                outcome.comment_url.clone().unwrap_or_default(),
            ),
        ];
        // An apply's outcome (`--applied`): applied, or failed.
        let applied = rendered.apply_failed().map(|failed| {
            [
                ("applied", (!failed).to_string()),
                ("failed", failed.to_string()),
            ]
        });
        let mut text = String::new();
        for (name, value) in outputs.into_iter().chain(applied.into_iter().flatten()) {
            // Values are numbers, booleans and a URL: one line each, newlines impossible.
            let value: String = value.chars().filter(|c| !c.is_control()).collect();
            text.push_str(&format!("{name}={value}\n"));
        }
        append(&path, &text)?;
    }
    Ok(())
}

fn append(path: &str, text: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(Error::Write)?;
    file.write_all(text.as_bytes()).map_err(Error::Write)
}
