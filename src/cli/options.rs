//! Command line, option groups: Terraform's log (`--failed`, `--log`), the policy gates
//! (`--fail-on`/`--max-destroy`/`--protect`), shared by `render` and `comment`, and
//! `--labels` (`comment` only); and reading the log file they name.
//!
//! Contract: a log that cannot be read is bad input (exit 2, one line naming the file);
//! evaluation of the gates is the policy stage's, not ours.

use super::error::{Error, Result};
use crate::input::hash::plan_sha256;
use crate::log::{parse_log, PlanLog};
use crate::policy::{Policy, Rule};
use crate::publish::labels::LabelNames;

use super::{read_input, PlanArg};

/// Terraform's log: a plan that failed, or the warnings of one that did not.
#[derive(Debug, Clone, clap::Args)]
pub struct LogArgs {
    /// Terraform could not make the plan: render a report saying so, with the errors from
    /// LOG, what `terraform plan` printed (the `-json` stream or plain text). `NAME=LOG`
    /// names it like a plan. Takes no PLAN.
    #[arg(long, value_name = "[NAME=]LOG", conflicts_with_all = ["plans", "log"])]
    pub failed: Option<String>,
    /// What `terraform plan -json` (or plain `terraform plan`) printed for this plan: its
    /// warnings (and any errors) are added to the output.
    #[arg(long, value_name = "FILE")]
    pub log: Option<String>,
}

/// Policy gates: checked after the output (or comment) is written; a violation exits 3.
#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
    /// Fail (exit 3, once the output is written) when the plan does this.
    /// `destroy` counts replacements too (each destroys its old object); `delete-only`
    /// counts only resources destroyed and not replaced. Repeatable, or comma-separated.
    #[arg(long, value_enum, value_name = "RULE", value_delimiter = ',')]
    pub fail_on: Vec<Rule>,
    /// Fail when more than N objects are destroyed (replacements included, as in `--fail-on
    /// destroy`).
    #[arg(long, value_name = "N")]
    pub max_destroy: Option<usize>,
    /// Fail when a resource whose address or type matches GLOB (`*`, `?`; e.g.
    /// `aws_db_*`, `module.prod.*`) is destroyed or replaced (either order). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub protect: Vec<String>,
}

impl PolicyArgs {
    /// The gates asked for.
    pub fn policy(&self) -> Policy {
        Policy {
            fail_on: self.fail_on.clone(),
            max_destroy: self.max_destroy,
            protect: self.protect.clone(),
        }
    }
}

/// Pull-request labels naming the verdict.
#[derive(Debug, Clone, clap::Args)]
pub struct LabelArgs {
    /// Keep one label on the pull request saying what the plan does (no changes, changes,
    /// destroys) and remove the other two; other labels are left alone. A failed plan
    /// changes no label.
    #[arg(long)]
    pub labels: bool,
    /// Label for a plan without changes.
    #[arg(long, value_name = "NAME", default_value = "planmark:no-changes")]
    pub label_no_changes: String,
    /// Label for a plan with changes but no destroys.
    #[arg(long, value_name = "NAME", default_value = "planmark:changes")]
    pub label_changes: String,
    /// Label for a plan that destroys or replaces something.
    #[arg(long, value_name = "NAME", default_value = "planmark:destroy")]
    pub label_destroy: String,
}

impl LabelArgs {
    /// The three names.
    pub fn names(&self) -> LabelNames {
        LabelNames {
            no_changes: self.label_no_changes.clone(),
            changes: self.label_changes.clone(),
            destroy: self.label_destroy.clone(),
        }
    }
}

/// A log read from `--failed` or `--log`.
pub struct LoadedLog {
    /// The argument (`--failed` may name it).
    pub arg: PlanArg,
    /// What it says.
    pub log: PlanLog,
    /// Its identity in the marker.
    pub sha256: String,
}

/// Reads `--failed` or `--log`, whichever is given.
pub fn load_log(args: &LogArgs) -> Result<Option<LoadedLog>> {
    let arg = match (&args.failed, &args.log) {
        (Some(failed), _) => PlanArg::parse(failed),
        (None, Some(log)) => PlanArg {
            name: String::new(),
            path: log.clone(),
            named: false,
        },
        (None, None) => return Ok(None),
    };
    let bytes = read_input(&arg.path)?;
    let log = parse_log(&bytes).map_err(|e| Error::input(&arg.path, e.to_string()))?;
    let sha256 = plan_sha256(&bytes);
    Ok(Some(LoadedLog { arg, log, sha256 }))
}
