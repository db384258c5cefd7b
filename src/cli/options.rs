//! Command line, option groups: Terraform's log (`--failed`, `--applied`, `--log`), the policy gates
//! (`--fail-on`/`--max-destroy`/`--protect`) and Rego policies (`--policy` and its
//! settings), shared by `render` and `comment`, and `--labels` (`comment` only); and the
//! pipeline's options built from them.
//!
//! Contract: the flags only say what to do; reading the files they name and evaluating
//! the gates is the pipeline's, not ours.

use std::path::PathBuf;
use std::time::Duration;

use super::error::Result;
use super::{env, run_info, CommonArgs};
use crate::diff::PlanMode;
use crate::pipeline::{LogInput, LogKind, Options, PlanArg, RunInfo};
use crate::policy::rego::Settings;
use crate::policy::{Policy, Rule};
use crate::publish::labels::LabelNames;

/// Terraform's log: a plan that failed, or the warnings of one that did not.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct LogArgs {
    /// Terraform could not make the plan: render a report saying so, with the errors from
    /// LOG, what `terraform plan` printed (the `-json` stream or plain text). `NAME=LOG`
    /// names it like a plan. Takes no PLAN.
    #[arg(long, value_name = "[NAME=]LOG", conflicts_with_all = ["plans", "log", "applied"])]
    pub(crate) failed: Option<String>,
    /// Terraform applied the plan: render its outcome from LOG, what `terraform apply`
    /// printed (the `-json` stream or plain text): applied or failed, when, each
    /// resource's result (applied, failed with its error, not reached), the errors and
    /// warnings, the outputs (sensitive ones hidden). PLAN, optional, is the reviewed plan:
    /// its changes follow, collapsed. `NAME=LOG` names it like a plan. The policy gates
    /// are not checked.
    #[arg(long, value_name = "[NAME=]LOG", conflicts_with = "log")]
    pub(crate) applied: Option<String>,
    /// What `terraform plan -json` (or plain `terraform plan`) printed for this plan: its
    /// warnings (and any errors) are added to the output.
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<String>,
}

/// Policy gates: checked after the output (or comment) is written; a violation exits 3.
#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
    /// Fail (exit 3, once the output is written) when the plan does this.
    /// `destroy` counts replacements too (each destroys its old object); `delete-only`
    /// counts only resources destroyed and not replaced. Repeatable, or comma-separated.
    #[arg(long, value_enum, value_name = "RULE", value_delimiter = ',')]
    pub(crate) fail_on: Vec<Rule>,
    /// Fail when more than N objects are destroyed (replacements included, as in `--fail-on
    /// destroy`).
    #[arg(long, value_name = "N")]
    pub(crate) max_destroy: Option<usize>,
    /// Fail when a resource whose address or type matches GLOB (`*`, `?`; e.g.
    /// `aws_db_*`, `module.prod.*`) is destroyed or replaced (either order). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub(crate) protect: Vec<String>,
}

/// The team's Rego policies, evaluated as conftest does over each plan's JSON.
#[derive(Debug, Clone, clap::Args)]
pub struct RegoArgs {
    /// Rego policies to evaluate over each plan's JSON as conftest does: a `.rego` file, or
    /// a directory of them (walked; `.json`/`.yaml` files in it are `data`; hidden entries
    /// and `*_test.rego` skipped). A `deny`/`violation` result fails (exit 3, once the
    /// output is written), a `warn` result is reported. Repeatable.
    #[arg(long = "policy", value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Package whose `deny`, `violation` and `warn` rules are evaluated (default: `main`).
    /// Repeatable.
    #[arg(long, value_name = "NAME", requires = "paths")]
    pub(crate) policy_namespace: Vec<String>,
    /// Report the Rego policies' failures as warnings, without failing.
    #[arg(long, requires = "paths")]
    pub(crate) policy_warn_only: bool,
    /// Fail (exit 2) when a builtin errs in a Rego rule (`to_number("m5")`). By default,
    /// as in conftest, the expression is undefined, the rule goes on, and the failure is
    /// reported as a warning naming the rule and the builtin.
    #[arg(long, requires = "paths")]
    pub(crate) policy_strict: bool,
    /// Longest one Rego rule may run over one plan: `10`, `10s`, `500ms`.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
    pub(crate) policy_timeout: Duration,
}

impl RegoArgs {
    /// The rules to evaluate and their time limit.
    pub(crate) fn settings(&self) -> Settings {
        let mut settings = Settings {
            timeout: self.policy_timeout,
            warn_only: self.policy_warn_only,
            strict: self.policy_strict,
            ..Settings::default()
        };
        if !self.policy_namespace.is_empty() {
            settings.namespaces = self.policy_namespace.clone();
        }
        settings
    }
}

/// `--policy-timeout`: seconds (`10`, `10s`, `1.5s`) or milliseconds (`500ms`), over zero.
fn parse_timeout(text: &str) -> std::result::Result<Duration, String> {
    let text = text.trim();
    let parsed = match text.strip_suffix("ms") {
        Some(ms) => ms.trim().parse::<u64>().ok().map(Duration::from_millis),
        None => text
            .strip_suffix('s')
            .unwrap_or(text)
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s <= 86_400.0)
            .and_then(|s| Duration::try_from_secs_f64(s).ok()),
    };
    match parsed {
        Some(d) if !d.is_zero() => Ok(d),
        _ => Err("expected a duration such as 10, 10s or 500ms".to_string()),
    }
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
pub(crate) struct LabelArgs {
    /// Keep one label on the pull request saying what the plan does (no changes, changes,
    /// destroys), or what its apply did (applied, apply failed), and remove our other
    /// four; other labels are left alone. A failed plan changes no label.
    #[arg(long)]
    pub(crate) labels: bool,
    /// Label for a plan without changes.
    #[arg(long, value_name = "NAME", default_value = "planmark:no-changes")]
    pub(crate) label_no_changes: String,
    /// Label for a plan with changes but no destroys.
    #[arg(long, value_name = "NAME", default_value = "planmark:changes")]
    pub(crate) label_changes: String,
    /// Label for a plan that destroys or replaces something.
    #[arg(long, value_name = "NAME", default_value = "planmark:destroy")]
    pub(crate) label_destroy: String,
    /// Label for a plan applied without error (`--applied`).
    #[arg(long, value_name = "NAME", default_value = "planmark:applied")]
    pub(crate) label_applied: String,
    /// Label for an apply that failed (`--applied`).
    #[arg(long, value_name = "NAME", default_value = "planmark:apply-failed")]
    pub(crate) label_apply_failed: String,
}

impl LabelArgs {
    /// The five names.
    pub(crate) fn names(&self) -> LabelNames {
        [
            &self.label_no_changes,
            &self.label_changes,
            &self.label_destroy,
            &self.label_applied,
            &self.label_apply_failed,
        ]
        .map(String::clone)
    }
}

impl LogArgs {
    /// The log given, `--failed` or `--applied` (which `NAME=` may name) or `--log`.
    pub(crate) fn input(&self) -> Option<LogInput> {
        let (arg, kind) = match (&self.failed, &self.applied, &self.log) {
            (Some(failed), _, _) => (PlanArg::parse(failed), LogKind::Failed),
            (None, Some(applied), _) => (PlanArg::parse(applied), LogKind::Applied),
            (None, None, Some(log)) => {
                let path = log.clone();
                let arg = PlanArg {
                    name: String::new(),
                    path,
                    named: false,
                };
                (arg, LogKind::Warnings)
            }
            (None, None, None) => return None,
        };
        Some(LogInput { arg, kind })
    }
}

impl CommonArgs {
    /// The pipeline's options: these flags, the plan mode and the `run` they are for.
    pub fn options(&self, plan_mode: Option<PlanMode>, run: RunInfo) -> Options {
        Options {
            plans: self.plans.iter().map(|p| PlanArg::parse(p)).collect(),
            schemas: self.schemas.clone(),
            max_input_size: self.max_input_size,
            tool: self.tool.tool(),
            plan_mode,
            log: self.log.input(),
            policy: self.policy.policy(),
            policy_paths: self.rego.paths.clone(),
            rego: self.rego.settings(),
            key: self.key.clone(),
            title: self.title.clone(),
            max_chars: self.max_chars,
            map: self.map,
            no_group: self.no_group,
            template: self.template.clone(),
            template_dir: self.templates.clone(),
            run,
            hash_changes: true,
            ..Options::default()
        }
    }

    /// [`CommonArgs::options`] for a run here: the run read from the environment, the
    /// links to the code (`repository`: `--repo`) and the annotations.
    pub(super) fn run_options(
        &self,
        plan_mode: Option<PlanMode>,
        repository: Option<String>,
    ) -> Result<Options> {
        let mut run = run_info(&env);
        let code = (self.code).site(self.plans.len(), repository, &mut run, &env)?;
        Ok(Options {
            code,
            annotate: self.code.annotates(&env),
            ..self.options(plan_mode, run)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_take_seconds_or_milliseconds() {
        assert_eq!(parse_timeout("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_timeout("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_timeout("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_timeout("500ms"), Ok(Duration::from_millis(500)));
        for bad in ["", "0", "0ms", "-1", "ten", "1m", "inf", "1e9"] {
            assert!(parse_timeout(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
