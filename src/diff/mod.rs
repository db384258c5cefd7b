//! The diff tree: the contract between the differ and every renderer.
//!
//! A [`Diff`] says what happens to one value (its `Action`, whether it forces
//! replacement) and holds a `Node` describing how to show it. The differ decides every
//! fact (actions, unknowns, sensitivity, replacement, pairing of list elements); renderers
//! only lay it out. Sensitive values are never stored here: a sensitive node keeps its
//! action and flags, not its value, so no renderer or template can leak it.

pub(crate) mod address;
mod changes;
pub(crate) mod quote;
pub(crate) mod undescribed;

use serde::{Deserialize, Serialize};

use crate::input::plan::{ResourceAction, Tool};
pub use changes::{Changes, DiffedPlan, ResourceChanges};
pub(crate) use undescribed::Undescribed;

/// What happens to a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Action {
    /// Unchanged.
    NoOp,
    /// Added.
    Create,
    /// Removed.
    Delete,
    /// Changed in place.
    Update,
}

impl Action {
    /// Folds a child's action into its parent's, as Terraform does: no-op children change
    /// nothing, a differing child makes the parent an update.
    pub(crate) fn fold(self, child: Action) -> Action {
        if child == Action::NoOp || child == self {
            self
        } else {
            Action::Update
        }
    }
}

/// One computed change.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    /// What happens.
    pub(crate) action: Action,
    /// This value's change forces the resource to be replaced.
    pub(crate) replace: bool,
    /// How to show it.
    pub(crate) node: Node,
}

impl Diff {
    /// Does this value (or anything inside it, hidden or shown) force replacement?
    pub(crate) fn forces_replacement(&self) -> bool {
        if self.replace {
            return true;
        }
        match &self.node {
            Node::List { elements, .. } | Node::Set { elements, .. } => {
                elements.iter().any(Diff::forces_replacement)
            }
            Node::Map { entries: items, .. }
            | Node::Object {
                attributes: items, ..
            } => items.iter().any(|(_, d)| d.forces_replacement()),
            Node::Block(block) => {
                block.attributes.iter().any(|(_, d)| d.forces_replacement())
                    || block.blocks.iter().any(|g| {
                        g.replace || g.instances.iter().any(|(_, d)| d.forces_replacement())
                    })
            }
            Node::Json { inner, .. } => inner.forces_replacement(),
            Node::TypeChange { before, after } => {
                before.forces_replacement() || after.forces_replacement()
            }
            Node::Unknown { before } => before.as_deref().is_some_and(|d| d.forces_replacement()),
            Node::SensitiveBlock {
                hides_replacement, ..
            } => *hides_replacement,
            _ => false,
        }
    }
}

/// A scalar as Terraform prints it: numbers verbatim, `true`/`false`.
pub(crate) type Scalar = String;

/// The shape of a change.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Node {
    /// A number, bool or null. `None` means null.
    Primitive {
        /// Before, as printed.
        before: Option<Scalar>,
        /// After, as printed.
        after: Option<Scalar>,
    },
    /// A string on one line: `"a"`, `null`, `"a" -> "b"`. `None` means null.
    Text {
        /// Before (unquoted).
        before: Option<String>,
        /// After (unquoted).
        after: Option<String>,
    },
    /// A multi-line string shown as a heredoc, one entry per line.
    Heredoc {
        /// Lines with their own actions (all no-op for create, delete and no-op).
        lines: Vec<HeredocLine>,
    },
    /// A string holding JSON, shown as `jsonencode(...)` of the structural diff.
    Json {
        /// The diff of the decoded JSON.
        inner: Box<Diff>,
        /// The decoded values are equal: only whitespace changed.
        whitespace_only: bool,
    },
    /// A value whose type changed (dynamic values, outputs, JSON).
    TypeChange {
        /// The old value, rendered as deleted.
        before: Box<Diff>,
        /// The new value, rendered as created.
        after: Box<Diff>,
    },
    /// A value Terraform will only know after apply.
    Unknown {
        /// The old value, if there was one (rendered as deleted).
        before: Option<Box<Diff>>,
    },
    /// A sensitive value: never carries the value itself.
    Sensitive {
        /// Was sensitive before.
        before_sensitive: bool,
        /// Is sensitive after.
        after_sensitive: bool,
        /// The action of the hidden value (for the sensitivity warnings).
        inner_action: Action,
    },
    /// A nested block that is (or was) sensitive: contents not shown.
    SensitiveBlock {
        /// Was sensitive before.
        before_sensitive: bool,
        /// Is sensitive after.
        after_sensitive: bool,
        /// The action of the hidden block.
        inner_action: Action,
        /// A change inside the hidden contents forces replacement: the comment's reason
        /// names the block, though the text (as Terraform's) shows no marker.
        hides_replacement: bool,
    },
    /// A write-only attribute (value never in the plan).
    WriteOnly {
        /// The attribute is also sensitive.
        sensitive: bool,
    },
    /// A list, tuple or JSON array. `context`: show one unchanged neighbour around changes.
    List {
        /// Elements in display order.
        elements: Vec<Diff>,
        /// Show unchanged neighbours (plain lists) or count them all at the end (nested).
        context: bool,
    },
    /// A set. `nested`: replacement marks go on the elements, not the set.
    Set {
        /// Elements in display order.
        elements: Vec<Diff>,
        /// A nested-attribute set.
        nested: bool,
    },
    /// A map, sorted by key. `nested`: a nested-attribute map (no padding, no `-> null`).
    Map {
        /// Entries sorted by key.
        entries: Vec<(String, Diff)>,
        /// A nested-attribute map.
        nested: bool,
    },
    /// An object, sorted by key. `nested`: a nested-attribute object (shows `-> null`).
    Object {
        /// Attributes sorted by name.
        attributes: Vec<(String, Diff)>,
        /// A nested-attribute object.
        nested: bool,
    },
    /// A resource body or nested block.
    Block(Block),
}

/// One line of a heredoc.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HeredocLine {
    /// `Create`, `Delete` or `NoOp`.
    pub(crate) action: Action,
    /// The raw line.
    pub(crate) text: String,
}

/// A block body: attributes, then nested blocks grouped by type.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Block {
    /// Attributes sorted by name (null-on-both-sides ones are left out).
    pub(crate) attributes: Vec<(String, Diff)>,
    /// Nested block groups sorted by type name.
    pub(crate) blocks: Vec<BlockGroup>,
}

/// All instances of one nested block type.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlockGroup {
    /// Block type name.
    pub(crate) name: String,
    /// Instances: single/list/set blocks have no key, map blocks have one.
    pub(crate) instances: Vec<(Option<String>, Diff)>,
    /// The path to the whole group forces replacement.
    pub(crate) replace: bool,
    /// The whole group is unknown: shown as `name (known after apply)` first.
    pub(crate) unknown: bool,
}

/// How the plan was made: it changes some wording and is not recorded in the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PlanMode {
    /// `terraform plan`.
    #[default]
    Normal,
    /// `terraform plan -destroy`.
    Destroy,
    /// `terraform plan -refresh-only`.
    RefreshOnly,
}

/// Why Terraform chose an action (`action_reason`); unknown values read as `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ActionReason {
    /// The provider cannot update the changed attributes in place.
    ReplaceBecauseCannotUpdate,
    /// The object is tainted.
    ReplaceBecauseTainted,
    /// `-replace` asked for it.
    ReplaceByRequest,
    /// `replace_triggered_by` fired.
    ReplaceByTriggers,
    /// The resource is no longer in the configuration.
    DeleteBecauseNoResourceConfig,
    /// `count`/`for_each` was added or removed.
    DeleteBecauseWrongRepetition,
    /// The count index is out of range.
    DeleteBecauseCountIndex,
    /// The for_each key is gone.
    DeleteBecauseEachKey,
    /// The containing module is gone.
    DeleteBecauseNoModule,
    /// A `moved` target is not in the configuration.
    DeleteBecauseNoMoveTarget,
    /// OpenTofu: the resource's `enabled` meta-argument is false.
    DeleteBecauseEnabledFalse,
    /// The configuration refers to unknown values.
    ReadBecauseConfigUnknown,
    /// A dependency has changes pending.
    ReadBecauseDependencyPending,
    /// A check block needs the data refreshed.
    ReadBecauseCheckNested,
}

impl ActionReason {
    /// Parses a reason; anything unrecognised means "no special reason".
    pub(crate) fn parse(reason: &str) -> Option<Self> {
        use serde::de::{value::Error, IntoDeserializer};
        Self::deserialize(IntoDeserializer::<Error>::into_deserializer(reason)).ok()
    }
}

/// One resource instance's change with everything a renderer needs.
#[derive(Debug, Clone, Serialize)]
pub struct ResourceDiff {
    /// Full address.
    pub address: String,
    /// Address before a `moved` block, when different.
    pub(crate) previous_address: Option<String>,
    /// Module address, when not the root module.
    pub(crate) module_address: Option<String>,
    /// A data source (`data`) rather than a managed resource.
    pub(crate) data_source: bool,
    /// Resource type.
    #[serde(rename = "type")]
    pub(crate) type_: String,
    /// Resource name.
    pub(crate) name: String,
    /// `count`/`for_each` key as JSON text (`1`, `"a"`), if any.
    pub(crate) index: Option<String>,
    /// Deposed object key.
    pub(crate) deposed: Option<String>,
    /// Provider source address.
    pub(crate) provider: String,
    /// Planned actions.
    pub(crate) action: ResourceAction,
    /// Why.
    pub(crate) reason: Option<ActionReason>,
    /// Import ID when importing (`Some("")` when imported by identity or unknown ID).
    pub(crate) importing: Option<String>,
    /// Configuration will be generated for this import.
    pub(crate) generated_config: bool,
    /// The body's diff tree.
    pub body: Diff,
}

impl ResourceDiff {
    /// Is the resource moving from another address?
    pub(crate) fn moved_from(&self) -> Option<&str> {
        self.previous_address
            .as_deref()
            .filter(|previous| *previous != self.address)
    }
}

/// What a plan's summary needs of one resource change: known from the change's header,
/// without diffing its values (so a renderer can count and filter a huge plan before the
/// bodies are computed, and compute only the bodies it shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceSummary {
    /// Planned actions.
    pub(crate) action: ResourceAction,
    /// A data source.
    pub(crate) data_source: bool,
    /// Moving from another address.
    pub(crate) moved: bool,
    /// Being imported.
    pub(crate) importing: bool,
}

impl ResourceSummary {
    /// The summary of a diffed resource.
    pub fn of(r: &ResourceDiff) -> Self {
        ResourceSummary {
            action: r.action,
            data_source: r.data_source,
            moved: r.moved_from().is_some(),
            importing: r.importing.is_some(),
        }
    }

    /// Is this change listed (and counted in the summary line)? No-op changes only when
    /// moved or imported; deleting a data source is internal bookkeeping, and so is opening
    /// an ephemeral resource (OpenTofu lists those in its JSON, never in its text).
    pub fn is_shown(&self) -> bool {
        let shown = self.action != ResourceAction::NoOp || self.moved || self.importing;
        shown
            && !(self.action == ResourceAction::Delete && self.data_source)
            && self.action != ResourceAction::Open
    }
}

/// An output change.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutputDiff {
    /// Output name.
    pub(crate) name: String,
    /// Its diff.
    pub(crate) diff: Diff,
}

/// A deferred change and why.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DeferredDiff {
    /// Reason code from the plan.
    pub(crate) reason: String,
    /// The change as far as known.
    pub(crate) resource: ResourceDiff,
}

/// A plan's diff but its resource changes and drift: what every renderer reads whole
/// (mode, outputs, checks, deferred changes, invocations). The resource changes and drift
/// come beside it, as [`ResourceChanges`] ([`Changes`]), each diffed when asked.
#[derive(Debug, Clone, Serialize)]
pub struct PlanHead {
    /// Plan format version.
    pub(crate) format_version: String,
    /// The tool that made the plan (given or detected): its wording is used.
    pub(crate) tool: Tool,
    /// Terraform version, if recorded.
    pub(crate) terraform_version: Option<String>,
    /// What providers declare sensitive cannot be recognised: the plan's masks may leave
    /// it out (Terraform before 0.15.2), no provider schemas were given, and the plan has
    /// resources. Attributes named like secrets are hidden instead.
    pub(crate) provider_sensitivity_unknown: bool,
    /// What the provider schemas given (`--schemas`) do not describe: resource types they
    /// lack, and attributes they do not declare (a schema older than the provider that
    /// made the plan). Those are shown as without schemas, never left out. Sorted by
    /// provider, then data sources after managed resources, then type; empty without
    /// schemas or when they describe everything.
    pub(crate) undescribed: Vec<Undescribed>,
    /// Plan mode (given or inferred).
    pub mode: PlanMode,
    /// Planning failed.
    pub(crate) errored: bool,
    /// Applying would change something (absent before format 1.2).
    pub(crate) applyable: Option<bool>,
    /// Deferred changes.
    pub(crate) deferred: Vec<DeferredDiff>,
    /// Output changes sorted by name.
    pub(crate) outputs: Vec<OutputDiff>,
    /// Check results (conditions, check blocks), in the plan's order.
    pub(crate) checks: Vec<CheckSummary>,
    /// Actions the apply will invoke (Terraform 1.14+), in the plan's order.
    pub(crate) invocations: Vec<InvocationDiff>,
    /// When the plan was made (RFC 3339), if recorded.
    pub(crate) timestamp: Option<String>,
    /// Resource changes whose action list planmark does not know (a newer Terraform's, or
    /// `["invalid"]`): (address, the list as JSON text). Shown with `?`, never counted as
    /// nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) unknown_actions: Vec<(String, String)>,
}

/// A whole plan diffed: its head and every resource change and shown drifted resource as
/// a tree, for a caller that holds them all (tests, benchmarks, small plans); renderers
/// read it through [`DiffedPlan`].
#[derive(Debug, Clone, Serialize)]
pub struct PlanDiff {
    /// Everything but the resource changes and drift.
    pub head: PlanHead,
    /// Planned changes in the plan's order.
    pub resources: Vec<ResourceDiff>,
    /// Drift to show (already filtered by mode and relevance), in the plan's order.
    pub drift: Vec<ResourceDiff>,
}

/// The status of a checkable object or instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckStatus {
    /// Every condition held.
    Pass,
    /// A condition failed.
    Fail,
    /// A condition could not be evaluated.
    Error,
    /// Not known until apply (or not evaluated).
    Unknown,
}

impl CheckStatus {
    /// Reads a status; anything unrecognised is `Unknown`.
    pub(crate) fn parse(status: &str) -> Self {
        match status {
            "pass" => Self::Pass,
            "fail" => Self::Fail,
            "error" => Self::Error,
            _ => Self::Unknown,
        }
    }
}

/// One checkable object (a resource, output, variable or check block) and its instances.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckSummary {
    /// Address of the object, e.g. `aws_instance.web` or `check.health`.
    pub(crate) address: String,
    /// `resource`, `output_value`, `check` or `var`.
    pub(crate) kind: String,
    /// The object's aggregate status.
    pub(crate) status: CheckStatus,
    /// Per-instance results; empty when the object has no instances.
    pub(crate) instances: Vec<CheckInstanceResult>,
}

/// One instance's check result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckInstanceResult {
    /// Instance address.
    pub(crate) address: String,
    /// Its status.
    pub(crate) status: CheckStatus,
    /// Failure messages (already redacted by Terraform when they involve sensitive values).
    pub(crate) problems: Vec<String>,
}

/// One action the apply will invoke, its `config` block diffed as a new value.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct InvocationDiff {
    /// Action address, e.g. `action.aws_lambda_invoke.notify`.
    pub(crate) address: String,
    /// Action type.
    #[serde(rename = "type")]
    pub(crate) type_: String,
    /// Action name.
    pub(crate) name: String,
    /// Provider source address.
    pub(crate) provider: String,
    /// What invokes it.
    pub(crate) trigger: InvocationTrigger,
    /// The `config` block as created; `None` when the plan records no config values.
    pub(crate) config: Option<Diff>,
}

/// What invokes an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum InvocationTrigger {
    /// The command line (`terraform plan -invoke=ADDRESS`).
    Cli {
        /// The resource instance it is called for (its `caller`), if any.
        calling_resource: Option<String>,
    },
    /// A resource's lifecycle event (an `action_trigger` block).
    Lifecycle {
        /// The triggering resource instance.
        resource: String,
        /// `before_create`, `after_update`, …
        event: String,
        /// Which `action_trigger` block of the resource.
        block_index: u64,
        /// Which entry of that block's `actions` list.
        list_index: u64,
    },
    /// The plan records neither trigger.
    Unknown,
}

impl InvocationTrigger {
    /// For a lifecycle trigger, whether it runs before the resource's change (`before_*`
    /// events) rather than after it.
    pub(crate) fn runs_before(&self) -> bool {
        matches!(self, InvocationTrigger::Lifecycle { event, .. } if event.starts_with("before_"))
    }
}
