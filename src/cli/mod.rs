//! Command line: argument parsing (clap), and each command's run: the pipeline called
//! with options built from the flags and the Actions environment.
//!
//! This is the edge of the library: files are read and rendered by [`crate::pipeline`];
//! here errors become [`Error`]s whose [`Error::exit_code`] main() uses.

mod code;
mod comment;
pub mod error;
mod meta;
pub(crate) mod options;
mod output;
pub(crate) mod templates;
mod verify;
mod workflow;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::diff::PlanMode;
use crate::input::plan::Tool;
use crate::pipeline::{self, parse_size};
use crate::publish;
use crate::render::markdown::{MapMode, GITHUB_MAX_CHARS};
use error::{policy_result, Error, Result};

pub(crate) use meta::run_info;

/// Exit codes of the commands that post (and of the binary as a whole).
const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  runtime or API failure (output not written, GitHub unreachable or refusing)
  2  bad input or usage (unreadable file, not a plan, unsupported format_version, bad flags,
     a template that does not parse or render, a Rego policy that does not parse, fails or
     runs past --policy-timeout, no token, repository or pull request)
  3  the plan breaks a policy gate (--fail-on, --max-destroy, --protect) or a Rego rule
     (--policy, unless --policy-warn-only); the output or comment was still written, and
     each violation is one line on standard error
  4  planmark verify: the plan is not the one reviewed on the pull request (one line per
     change that differs), or no reviewed plan was found there";

/// `render` talks to nobody: its failures are local.
const RENDER_EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the output could not be written
  2  bad input or usage (unreadable file, not a plan, unsupported format_version, bad flags,
     a template that does not parse or render, a Rego policy that does not parse, fails or
     runs past --policy-timeout)
  3  the plan breaks a policy gate (--fail-on, --max-destroy, --protect) or a Rego rule
     (--policy, unless --policy-warn-only); the output was still written, and each
     violation is one line on standard error";

/// `verify` reads the pull request and writes nothing.
const VERIFY_EXIT_CODES: &str = "\
Exit codes:
  0  the plan is the one reviewed (one line saying so, with the comment's link)
  1  GitHub unreachable or refusing
  2  bad input or usage (unreadable file, not a plan, bad flags, no token, repository or
     pull request)
  4  the plan is not the one reviewed: one line per change that differs (new, gone or
     changed), then what to do; or the pull request has no reviewed plan for the key";

/// `templates export` writes files and nothing else.
const EXPORT_EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the directory or a file could not be written
  2  bad usage (a template file exists and --force is not given, bad flags)";

/// Turns a Terraform or OpenTofu plan into the text and pull-request comment reviewers
/// want to read.
#[derive(Debug, Parser)]
#[command(name = "planmark", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render plans (`terraform show -json tfplan` output) to standard output: GitHub
    /// Markdown for a pull request, an HTML preview of it, the template context (JSON), or
    /// Terraform's own text. Reads files only and writes only to standard output.
    #[command(
        after_help = RENDER_EXIT_CODES,
        // Only `comment` finds its comment by key; the marker's key is of no use here.
        mut_arg("key", |a| a.hide(true)),
    )]
    Render(RenderArgs),
    /// Render the plans and post or update the pull-request comment on GitHub (token from
    /// GITHUB_TOKEN; repository, pull request and API URL from the Actions environment or
    /// flags). In Actions it also appends the comment to the step summary and writes step
    /// outputs.
    #[command(
        after_help = EXIT_CODES,
        mut_arg("failed", |a| a.help(COMMENT_FAILED_HELP)),
        mut_arg("applied", |a| a.help(COMMENT_APPLIED_HELP)),
        mut_arg("max_chars", |a| a.help(COMMENT_MAX_CHARS_HELP)),
    )]
    Comment(CommentArgs),
    /// Check that the plan about to be applied is the one reviewed: compare its changes'
    /// canonical forms (address, actions, values; sensitive values masked) with the hashes
    /// in the pull request's planmark comment for the key (only our identity's, found as `comment` finds it). Exit 0 when they
    /// match, 4 when they do not (one line per change that differs) or when there is no
    /// reviewed plan. Reads the pull request; writes nothing.
    #[command(after_help = VERIFY_EXIT_CODES)]
    Verify(verify::VerifyArgs),
    /// Work with the comment templates.
    #[command(subcommand)]
    Templates(TemplatesCommand),
}

/// `comment --failed`: what it posts.
const COMMENT_FAILED_HELP: &str = "Terraform could not make the plan: post (or update, under \
the same key) a comment saying so, with the errors from LOG, what `terraform plan` printed (the \
`-json` stream or plain text). `NAME=LOG` names it like a plan (the default key is NAME, else \
the path). Takes no PLAN";

/// `comment --applied`: what it posts.
const COMMENT_APPLIED_HELP: &str = "Terraform applied the plan: update the plan's comment (same \
key; a new one with --comment-mode new) with the outcome from LOG, what `terraform apply` printed \
(the `-json` stream or plain text): applied or failed, when, by which run, each resource's result \
(applied, failed with its error, not reached), the errors and warnings, the outputs (sensitive ones \
hidden). PLAN, optional, is the reviewed plan: its changes stay below, collapsed. `NAME=LOG` names \
it like a plan (the key is NAME, else the PLAN paths, else LOG's path). The policy gates are not \
checked; a failed apply still exits 0 once the comment is out";

/// `comment --max-chars`: the comment's size.
const COMMENT_MAX_CHARS_HELP: &str = "Size limit of the comment in characters (UTF-16 code \
units, as GitHub counts), at least 2000; past it the comment is shortened by importance, with \
a notice";

/// `planmark templates ...`.
#[derive(Debug, Subcommand)]
pub enum TemplatesCommand {
    /// Write the built-in templates to DIR (as NAME.hbs) to edit and pass with `--templates`.
    #[command(after_help = EXPORT_EXIT_CODES)]
    Export {
        /// Directory to write to (created if missing).
        dir: PathBuf,
        /// Overwrite files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// Print the JSON Schema of the template context (what `render --format json` prints).
    Schema,
}

/// Options of `planmark render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Output format: `markdown` is GitHub Markdown for the pull request, `html` a
    /// standalone preview page of it, `json` the exact context the templates see, `text`
    /// exactly what `terraform show tfplan` prints.
    #[arg(long, value_enum, default_value_t = pipeline::Format::Markdown)]
    pub(crate) format: pipeline::Format,
    /// How the plan was made (it changes some wording and is not recorded in the JSON);
    /// by default a plan with drift and no resource changes is taken as refresh-only.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = ModeArg::Auto)]
    pub(crate) plan_mode: ModeArg,
    /// The old spelling of `--plan-mode` (hidden; it prints a hint).
    #[arg(
        long = "mode",
        value_enum,
        value_name = "MODE",
        hide = true,
        conflicts_with = "plan_mode"
    )]
    pub(crate) old_mode: Option<ModeArg>,
    /// Write the output to FILE instead of standard output: it appears whole once the
    /// render succeeds (never half-written), and in GitHub Actions it is not wrapped in
    /// `::stop-commands::`, which a pipe to `tee` would capture.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// A Markdown body planmark made earlier for these plans, as published (`gh api` gives
    /// it): the Markdown and JSON output open with what moved since that one ("Since the
    /// last plan"), for a local preview. Only the marker on its last line is read; `render`
    /// itself hashes no change, so its own output cannot serve here.
    #[arg(long, value_name = "FILE")]
    pub(crate) previous: Option<PathBuf>,
    /// What to render.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Options of `planmark comment`.
#[derive(Debug, clap::Args)]
pub struct CommentArgs {
    /// Repository to comment on (default: `GITHUB_REPOSITORY`).
    #[arg(long, value_name = "OWNER/NAME")]
    pub(crate) repo: Option<String>,
    /// Pull request number, 1 or more (default: from the Actions event; for `push`, the
    /// open pull request whose head is the commit, else the one merged as the commit).
    #[arg(long, value_name = "N")]
    pub(crate) pr: Option<u64>,
    /// `update` edits our comment in place, `new` always posts, `recreate` deletes ours and
    /// posts, `hide-and-new` hides ours as outdated and posts.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = publish::Mode::Update)]
    pub(crate) comment_mode: publish::Mode,
    /// The old spelling of `--comment-mode` (hidden; it prints a hint).
    #[arg(
        long = "mode",
        value_enum,
        value_name = "MODE",
        hide = true,
        conflicts_with = "comment_mode"
    )]
    pub(crate) old_mode: Option<publish::Mode>,
    /// How the plan was made (it changes some wording and is not recorded in the JSON);
    /// by default a plan with drift and no resource changes is taken as refresh-only.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = ModeArg::Auto)]
    pub(crate) plan_mode: ModeArg,
    /// With no changes: `update` as usual, `skip` posts nothing new (an existing comment is
    /// still updated), `delete` removes our comment.
    #[arg(long, value_enum, default_value_t = publish::OnNoChanges::Update)]
    pub(crate) on_no_changes: publish::OnNoChanges,
    /// Environment variable holding the token.
    #[arg(long, value_name = "NAME", default_value = "GITHUB_TOKEN")]
    pub(crate) token_env: String,
    /// Longest total wait for one request under rate limits and retries, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub(crate) max_wait: u64,
    /// Print what would be done and the body; change nothing. Without a token, says what
    /// would be done without looking at the existing comments.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Pull-request labels.
    #[command(flatten)]
    pub(crate) labels: options::LabelArgs,
    /// What to render.
    #[command(flatten)]
    pub(crate) common: CommonArgs,
}

/// Options shared by `render` and `comment`.
#[derive(Debug, clap::Args)]
pub struct CommonArgs {
    /// Provider schemas (`terraform providers schema -json` output); without them the
    /// structure of each resource is inferred from its values.
    #[arg(long, value_name = "FILE", env = "PLANMARK_SCHEMAS")]
    pub(crate) schemas: Option<PathBuf>,
    /// The tool that made the plans, whose wording and list pairing the output follows;
    /// `auto` tells OpenTofu by its providers (`registry.opentofu.org`).
    #[arg(long, value_enum, default_value_t = ToolArg::Auto, env = "PLANMARK_TOOL")]
    pub(crate) tool: ToolArg,
    /// Title shown instead of the plan's name (e.g. the environment).
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// Key identifying this comment among others on the pull request (default: the plan
    /// names, or their paths when not named).
    #[arg(long)]
    pub(crate) key: Option<String>,
    /// Size limit of the Markdown in characters (UTF-16 code units, as GitHub counts), at
    /// least 2000; past it the content is shortened by importance, with a notice. Not used
    /// by `--format text`.
    #[arg(long, value_name = "N", default_value_t = GITHUB_MAX_CHARS, value_parser = parse_max_chars)]
    pub(crate) max_chars: usize,
    /// Draw a map of where each plan changes things (a Mermaid flowchart of modules and
    /// resource types, by action) in the Markdown: `auto` when a plan changes more than
    /// one module, `always` whenever it changes a resource, or `never`. It is left out
    /// before any diff is shortened; past `--max-chars` it is kept when it fits beside
    /// the rest, else the size notice says so.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = MapMode::Auto)]
    pub(crate) map: MapMode,
    /// Show every resource change on its own: do not group look-alike changes (the same
    /// diff but for the instance key, or for a few values in a table) under one diff.
    #[arg(long)]
    pub(crate) no_group: bool,
    /// A template file replacing the main template (`NAME.hbs` of `planmark templates
    /// export`: the one that includes the others).
    #[arg(long, value_name = "FILE")]
    pub(crate) template: Option<PathBuf>,
    /// A directory of `NAME.hbs` files overriding the built-in templates of the same name
    /// (see `planmark templates export`).
    #[arg(long, value_name = "DIR")]
    pub(crate) templates: Option<PathBuf>,
    /// Largest plan or schemas input read, e.g. `1G`, `500M` (K, M, G are powers of 1024;
    /// a bare number is bytes). Parsing holds the whole text and a tree of its values in
    /// memory, so a larger input is refused before it is read.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub(crate) max_input_size: u64,
    /// Terraform's log (`--failed`, `--applied`, `--log`).
    #[command(flatten)]
    pub(crate) log: options::LogArgs,
    /// Policy gates.
    #[command(flatten)]
    pub policy: options::PolicyArgs,
    /// Rego policies.
    #[command(flatten)]
    pub rego: options::RegoArgs,
    /// Links to the code and annotations.
    #[command(flatten)]
    pub(crate) code: code::CodeArgs,
    /// One or more plans: `terraform show -json` output files, or `-` for standard input
    /// (read only when given); `NAME=PATH` names one. Required, except with `--failed`
    /// (which takes none) and `--applied` (the reviewed plan, optional).
    #[arg(value_name = "PLAN", required_unless_present_any = ["failed", "applied"])]
    pub(crate) plans: Vec<String>,
}

fn parse_max_chars(text: &str) -> std::result::Result<usize, String> {
    let min = crate::render::markdown::MIN_MAX_CHARS;
    match text.parse::<usize>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!(
            "expected a number of characters, at least {min} (room for the counts-only comment)"
        )),
    }
}

/// `--plan-mode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// Infer from the plan.
    Auto,
    /// `terraform plan`.
    Normal,
    /// `terraform plan -destroy`.
    Destroy,
    /// `terraform plan -refresh-only`.
    RefreshOnly,
}

impl ModeArg {
    pub(crate) fn plan_mode(self) -> Option<PlanMode> {
        match self {
            ModeArg::Auto => None,
            ModeArg::Normal => Some(PlanMode::Normal),
            ModeArg::Destroy => Some(PlanMode::Destroy),
            ModeArg::RefreshOnly => Some(PlanMode::RefreshOnly),
        }
    }
}

/// `--tool` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ToolArg {
    /// Detect from the plan's provider addresses.
    Auto,
    /// Terraform.
    Terraform,
    /// OpenTofu.
    #[value(alias = "opentofu")]
    Tofu,
}

impl ToolArg {
    pub(crate) fn tool(self) -> Option<Tool> {
        match self {
            ToolArg::Auto => None,
            ToolArg::Terraform => Some(Tool::Terraform),
            ToolArg::Tofu => Some(Tool::OpenTofu),
        }
    }
}

/// Runs a parsed command line, writing to `out`.
pub fn run(cli: Cli, out: &mut dyn std::io::Write) -> Result<()> {
    match cli.command {
        Command::Render(args) => {
            if args.old_mode.is_some() {
                old_spelling("render --mode", "--plan-mode");
            }
            let verdicts = if let Some(path) = &args.output {
                let mut file = output::Output::create(path)?;
                let verdicts = render(&args, file.writer())?;
                file.commit()?;
                verdicts
            } else if workflow::stdout_reaches_runner() {
                // In Actions, plan strings in the output must not issue workflow commands.
                let token = workflow::token().map_err(Error::Write)?;
                let mut paused = workflow::StopCommands::new(out, token);
                let result = render(&args, &mut paused);
                let finished = paused.finish().map_err(Error::Write);
                let verdicts = result?;
                finished?;
                verdicts
            } else {
                render(&args, out)?
            };
            // The gates' verdict comes after the output, which is kept either way; the
            // annotations are commands, printed once nothing is paused.
            workflow::annotate(&verdicts.annotations, out).map_err(Error::Write)?;
            policy_result(&verdicts, args.common.rego.policy_warn_only)
        }
        Command::Comment(args) => {
            if args.old_mode.is_some() {
                old_spelling("comment --mode", "--comment-mode");
            }
            no_pr_zero(args.pr, ", or leave --pr out in a pull_request workflow")?;
            comment::comment(args, out)
        }
        Command::Verify(args) => {
            no_pr_zero(args.pr, "")?;
            verify::verify(args, out)
        }
        Command::Templates(TemplatesCommand::Export { dir, force }) => {
            templates::export(&dir, force, out)
        }
        Command::Templates(TemplatesCommand::Schema) => templates::schema(out),
    }
}

/// `--pr 0` refused: `then` says what to do besides passing the number.
fn no_pr_zero(pr: Option<u64>, then: &str) -> Result<()> {
    match pr {
        Some(0) => Err(Error::Publish(publish::PublishError::Config(format!(
            "--pr 0: pull request numbers start at 1; pass the number in the pull request's \
             URL (.../pull/N){then}"
        )))),
        _ => Ok(()),
    }
}

/// An environment variable, unless it is unset or empty.
pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `planmark render`: the pipeline's output in the chosen format; the verdicts to judge.
fn render(args: &RenderArgs, out: &mut dyn std::io::Write) -> Result<pipeline::Verdicts> {
    let plan_mode = args.old_mode.unwrap_or(args.plan_mode).plan_mode();
    let mut options = args.common.run_options(plan_mode, None)?;
    // Only a posted comment's marker is read back (by `verify`, or here with `--previous`):
    // hashing every change would otherwise cost `render` a diff of each.
    options.hash_changes = args.previous.is_some();
    options.previous.clone_from(&args.previous);
    Ok(pipeline::render(&options, args.format, out)?)
}

/// One line on standard error for a flag given by its old name, which still works.
fn old_spelling(old: &str, new: &str) {
    eprintln!("planmark: note: `{old}` is now `{new}`; the old spelling still works");
}
