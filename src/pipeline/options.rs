//! Pipeline stage, options: what the caller asks of the pipeline — the plans and the
//! other inputs, the gates, the comment's key, title and size, and the run it is for.
//!
//! Contract: plain data, built by the command line from its flags and the environment; the
//! pipeline reads no flag and no environment variable.

use std::path::PathBuf;

use crate::diff::PlanMode;
use crate::input::plan::Tool;
use crate::policy::rego::Settings;
use crate::policy::Policy;
use crate::render::markdown::MapMode;

/// What to load and how to render it.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The plans (`terraform show -json` files, `-` for standard input), in order.
    pub plans: Vec<PlanArg>,
    /// Provider schemas (`terraform providers schema -json`).
    pub schemas: Option<PathBuf>,
    /// Largest plan or schemas input read, in bytes.
    pub max_input_size: u64,
    /// The tool whose wording and list pairing to follow; `None` tells by the providers.
    pub tool: Option<Tool>,
    /// How the plans were made; `None` infers it from each plan.
    pub plan_mode: Option<PlanMode>,
    /// Terraform's log: the errors of a plan it could not make, or a plan's warnings.
    pub log: Option<LogInput>,
    /// The policy gates to check.
    pub policy: Policy,
    /// The team's Rego policies (`--policy`): `.rego` files and directories of them.
    pub policy_paths: Vec<PathBuf>,
    /// Which Rego rules are evaluated and how long each may run.
    pub rego: Settings,
    /// The comment's key (default: the plan names, or their paths when not named).
    pub key: Option<String>,
    /// Title shown instead of the plans' names.
    pub title: Option<String>,
    /// Size limit of the comment, in UTF-16 code units.
    pub max_chars: usize,
    /// When the comment draws a plan's change map.
    pub map: MapMode,
    /// `--no-group`: look-alike changes are shown one by one, not grouped.
    pub no_group: bool,
    /// A template file replacing the main template.
    pub template: Option<PathBuf>,
    /// A directory of `NAME.hbs` files overriding the built-in templates.
    pub template_dir: Option<PathBuf>,
    /// Where and when this runs, for the comment's footer and marker.
    pub run: RunInfo,
    /// Record the hashes of the changes' canonical forms in the comment's marker, for
    /// `planmark verify`: every change read again (on other cores, beside the render),
    /// which a comment that is posted needs and a comment only written out does not.
    pub hash_changes: bool,
    /// A comment planmark posted (`render --previous FILE`), which this one replaces: the
    /// comment opens with what moved since (when the changes are hashed).
    pub previous: Option<PathBuf>,
    /// Where the pull request's files are, for links from each change to its block;
    /// `None` makes no links.
    pub code: Option<CodeSite>,
    /// Make the annotations of the plans (the verdicts' `annotations`), for a job's log.
    pub annotate: bool,
}

/// The pull request's files on disk and in the repository, for links to the blocks that
/// declare the changes (docs/cli.md, "Links to the code").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSite {
    /// The configuration's directory (`--config-dir`): one for every plan, or one per
    /// plan in the plans' order.
    pub config_dirs: Vec<PathBuf>,
    /// `config_dirs` were given (`--config-dir`), not the current directory: one that
    /// holds no configuration is then worth a warning.
    pub dirs_given: bool,
    /// The repository's root on disk; a file outside it gets no link.
    pub root: PathBuf,
    /// The GitHub server's URL (`GITHUB_SERVER_URL`).
    pub server: String,
    /// The repository, `owner/name`.
    pub repository: String,
    /// The commit the files are linked at (the pull request's head).
    pub commit: String,
}

/// Terraform's log, what `terraform plan` (or `terraform apply`) printed (the `-json`
/// stream or plain text).
#[derive(Debug, Clone)]
pub struct LogInput {
    /// The file; a name given (`NAME=LOG`) names the failed plan (or the apply) and keys
    /// its comment.
    pub(crate) arg: PlanArg,
    /// What the log is of.
    pub(crate) kind: LogKind,
}

/// What a log given is of, and so what the output says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogKind {
    /// A plan's warnings (`--log`), added to the plan's output.
    Warnings,
    /// Terraform could not make the plan (`--failed`): the output is the report of that,
    /// with no plan.
    Failed,
    /// `terraform apply`'s output (`--applied`): the output is the apply's outcome, the
    /// plans (if any) the reviewed ones below it.
    Applied,
}

/// Facts about the run, each optional, for the comment's footer and marker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunInfo {
    /// The commit planned.
    pub commit: Option<String>,
    /// The workflow run's page.
    pub run_url: Option<String>,
    /// The workflow run's id (orders runs of one repository).
    pub run_id: Option<u64>,
    /// The workflow run's attempt.
    pub run_attempt: Option<u64>,
    /// The time of the run, RFC 3339.
    pub time: String,
}

/// A plan argument: `NAME=PATH` or just `PATH` (named after the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanArg {
    /// Display name.
    pub(crate) name: String,
    /// File path, or `-` for standard input.
    pub(crate) path: String,
    /// The name was given (`NAME=PATH`).
    pub(crate) named: bool,
}

impl PlanArg {
    /// Parses `NAME=PATH`; a bare path is named after its file stem.
    pub fn parse(arg: &str) -> PlanArg {
        if let Some((name, path)) = arg.split_once('=') {
            if !name.is_empty() && !name.contains(['/', '\\']) && !path.is_empty() {
                return PlanArg {
                    name: name.to_string(),
                    path: path.to_string(),
                    named: true,
                };
            }
        }
        let name = if arg == "-" {
            "stdin".to_string()
        } else {
            std::path::Path::new(arg)
                .file_stem()
                .map_or_else(|| arg.to_string(), |s| s.to_string_lossy().into_owned())
        };
        PlanArg {
            name,
            path: arg.to_string(),
            named: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_args_may_be_named() {
        assert_eq!(
            PlanArg::parse("prod=plans/prod.json"),
            PlanArg {
                name: "prod".into(),
                path: "plans/prod.json".into(),
                named: true,
            }
        );
        assert_eq!(PlanArg::parse("plans/dev.json").name, "dev");
        assert_eq!(PlanArg::parse("-").name, "stdin");
        // A path with '=' in a directory name is still a path.
        assert_eq!(PlanArg::parse("a/b=c/plan.json").path, "a/b=c/plan.json");
    }
}
