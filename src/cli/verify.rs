//! Command line, `planmark verify`: hashes the plans about to be applied through the
//! pipeline, reads the reviewed plan's hashes from the pull request's comment for the key
//! through the publish stage (reading only), and says whether they match: exit 0, or 4
//! with one line per change that differs.

use std::io::Write;
use std::path::PathBuf;

use super::comment::{client, hints, runtime};
use super::error::{Error, Result};
use super::ToolArg;
use crate::differ::CANONICAL_VERSION;
use crate::input::text::one_line;
use crate::pipeline::{self, compare, Comparison, Options, PlanArg};
use crate::publish::target::resolve;
use crate::publish::Session;

/// Options of `planmark verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Repository of the pull request (default: `GITHUB_REPOSITORY`).
    #[arg(long, value_name = "OWNER/NAME")]
    pub(crate) repo: Option<String>,
    /// Pull request number, 1 or more (default: from the Actions event; for `push`, the
    /// open pull request whose head is the commit, else the one merged as the commit).
    #[arg(long, value_name = "N")]
    pub(crate) pr: Option<u64>,
    /// Environment variable holding the token.
    #[arg(long, value_name = "NAME", default_value = "GITHUB_TOKEN")]
    pub(crate) token_env: String,
    /// Longest total wait for one request under rate limits and retries, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub(crate) max_wait: u64,
    /// The key of the plan job's comment (default: the plan names, or their paths when
    /// not named, as `planmark comment` makes it).
    #[arg(long)]
    pub(crate) key: Option<String>,
    /// Provider schemas, as given to `planmark comment` in the plan job.
    #[arg(long, value_name = "FILE", env = "PLANMARK_SCHEMAS")]
    pub(crate) schemas: Option<PathBuf>,
    /// The tool that made the plans, as given to `planmark comment`.
    #[arg(long, value_enum, default_value_t = ToolArg::Auto, env = "PLANMARK_TOOL")]
    pub(crate) tool: ToolArg,
    /// Largest plan or schemas input read, e.g. `1G`, `500M`.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = pipeline::parse_size)]
    pub(crate) max_input_size: u64,
    /// The plans about to be applied (`terraform show -json` of the saved plan file),
    /// named as in the plan job (`NAME=PATH`); `-` for standard input.
    #[arg(value_name = "PLAN", required = true)]
    pub(crate) plans: Vec<String>,
}

impl VerifyArgs {
    /// The plans to hash: nothing is rendered, so no rendering option is set.
    fn options(&self) -> Options {
        Options {
            plans: self.plans.iter().map(|p| PlanArg::parse(p)).collect(),
            schemas: self.schemas.clone(),
            max_input_size: self.max_input_size,
            tool: self.tool.tool(),
            key: self.key.clone(),
            hash_changes: true,
            ..Options::default()
        }
    }
}

/// What to do when the plan is not the reviewed one.
const RERUN: &str = "do not apply it: run the plan job again, have the new plan reviewed, \
then apply that plan";

pub(super) fn verify(args: VerifyArgs, out: &mut dyn Write) -> Result<()> {
    let fresh = pipeline::fresh(&args.options())?;
    let session = runtime()?.block_on(async {
        let github = client(&args.token_env, args.max_wait)?;
        let target = resolve(&hints(args.repo.clone(), args.pr), Some(&github)).await?;
        Session::open(github, target, fresh.key.clone()).await
    })?;
    let target = session.target();
    let pr = format!(
        "pull request #{} of {}/{}",
        target.number, target.owner, target.repo
    );
    let comment = session.latest();
    let (Some(comment), Some(marker)) = (comment, comment.and_then(|c| c.marker())) else {
        return Err(Error::Unreviewed(format!(
            "no reviewed plan for key `{}` on {pr}: run planmark comment in the plan job, or \
             pass --key (the plan job's key)",
            fresh.key
        )));
    };
    let url = &comment.html_url;
    let body = comment.body.as_deref().unwrap_or_default();
    let lines = match compare(&fresh, &marker, body) {
        Comparison::Matches => {
            let changes =
                crate::render::markdown::phrases::count_noun(fresh.count(), "change", "changes");
            let text = format!("planmark: the plan matches the one reviewed ({changes}): {url}\n");
            return out.write_all(text.as_bytes()).map_err(Error::Write);
        }
        Comparison::NoHash => {
            return Err(Error::Unreviewed(format!(
                "the comment for key `{}` ({url}) records no hash of the changes reviewers \
                 saw (a failed plan's comment, or one made by an older planmark): run the plan \
                 job again with this planmark",
                fresh.key
            )))
        }
        Comparison::OtherForm(version) => {
            let made_by = match version {
                None => {
                    "an earlier planmark (0.1, which hashed the changes as rendered)".to_string()
                }
                Some(v) if v > CANONICAL_VERSION => format!("a newer planmark (form {v})"),
                Some(v) => format!("another planmark (form {v})"),
            };
            return Err(Error::CannotCompare(format!(
                "the comment for key `{}` ({url}) records the reviewed changes in the form of \
                 {made_by}; this planmark reads form {CANONICAL_VERSION} only, so it cannot \
                 tell whether the plan is the reviewed one: run the plan job again with this \
                 planmark and have the plan reviewed, or verify with the planmark release the \
                 plan job used",
                fresh.key
            )));
        }
        Comparison::NeedsSchemas => {
            return Err(Error::CannotCompare(format!(
                "the comment for key `{}` ({url}) hashed the reviewed changes with provider \
                 schemas (the plan was made by Terraform before 0.15.2, whose plans leave \
                 provider-declared secrets unmarked): pass --schemas FILE, the `terraform \
                 providers schema -json` output the plan job used",
                fresh.key
            )));
        }
        Comparison::Differs(lines) => lines,
    };
    let mut text = String::new();
    for line in &lines {
        // Addresses are plan text: one line each, after our prefix.
        text.push_str(&format!("planmark: {}\n", one_line(&line.to_string())));
    }
    out.write_all(text.as_bytes()).map_err(Error::Write)?;
    Err(Error::Unreviewed(format!(
        "the plan is not the one reviewed in {url}; {RERUN}"
    )))
}
