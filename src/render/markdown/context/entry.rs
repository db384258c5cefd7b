//! Markdown renderer, template context of one entry (a resource change, drift or deferred
//! change): its kind, its reason in words and its diff, and the sections entries go in.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::{Diff, Node, ResourceDiff};
use crate::input::plan::ChangeList;
use crate::render::error::Result;
use crate::render::links::SourceLink;
use crate::render::markdown::catalog::Detail;
use crate::render::markdown::phrases::{self, Kind, Segment};
use crate::render::markdown::source::{Body, Plans};

/// One entry: a resource change, drift or deferred change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntryContext {
    /// Resource instance address.
    pub address: String,
    /// Kind of change.
    pub(crate) kind: Kind,
    /// The word shown for the kind.
    pub(crate) label: String,
    /// Icon.
    pub(crate) icon: String,
    /// Why, as segments (`code` ones name plan objects); empty when there is no reason.
    pub(crate) reason: Vec<Segment>,
    /// The reason as plain text.
    pub(crate) reason_text: String,
    /// A destroy or replacement.
    pub dangerous: bool,
    /// Suggest showing it expanded (`<details open>`).
    pub(crate) open: bool,
    /// Terraform's diff with symbols at column 0 for a `diff` fence; `null` when listed only.
    pub diff: Option<String>,
    /// The diff hides unchanged context (the size limit).
    pub(crate) compact: bool,
    /// The name of an anchor before the entry, which a policy finding naming this
    /// resource links to (`#name`); `null` when no finding names it.
    pub anchor: Option<String>,
    /// The look-alike changes this entry's diff stands for, itself included (resource
    /// changes shown with a diff only; absent when it stands for itself alone, and always
    /// with `--no-group`). Its diff then hides unchanged context, and on the lines whose
    /// values differ per address it shows a placeholder instead of a value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Group>,
    /// What the change is since the last plan (see the comment's `since`): `new`,
    /// `changed`, or for a group how many of its changes are each (`2 new, 1 changed`);
    /// absent when it did not move or nothing was compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) since: Option<String>,
    /// The block that declares it in the pull request's files (`url`, `file`, `line`);
    /// absent without links (no repository or commit known) or when its block is not in
    /// the files read (a destroyed resource whose block was deleted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<SourceLink>,
}

/// Look-alike resource changes shown as one diff (the entry's own): of one kind, in one
/// module and resource (instance keys set aside), whose diffs are the same but for the
/// address, values known only after apply (`unknown`), values that differ only by each
/// address's own key (`own_key`) and, for updates and destroys, a few other values (shown
/// in the table, not in the diff).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Group {
    /// How many changes the diff stands for (at least 2).
    pub count: usize,
    /// Every address, the entry's own first, then in natural order.
    pub addresses: Vec<String>,
    /// The table's columns: the attribute paths whose values differ between addresses
    /// (as the diff names them, e.g. `tags."Env"`), at most 4. Those the diff shows as
    /// `(differs per address: see the table)` always; those of `own_key` while the table
    /// is shorter than the diffs it stands for (never those of `unknown`). Empty when there
    /// is no table.
    pub columns: Vec<String>,
    /// Per address, in the order of `addresses`, the values on the `columns` lines as the
    /// diff shows them (`"dev" -> "prod"`); empty when `columns` is.
    pub rows: Vec<GroupRow>,
    /// The attribute paths whose values become known only after apply and were another
    /// value before for each address (`id`): the diff shows the entry's own.
    pub unknown: Vec<String>,
    /// The attribute paths whose values differ only by each address's own instance key
    /// (`triggers."name"`: `"web-0"`, `"web-1"`): the diff shows the entry's own.
    pub own_key: Vec<String>,
    /// The attribute paths whose values differ otherwise (updates and destroys, at most
    /// 3): the diff shows `(differs per address: see the table)`, the table each one's.
    pub per_address: Vec<String>,
}

/// One address's values in a group's table.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GroupRow {
    /// The address.
    pub address: String,
    /// Its values, one per column.
    pub values: Vec<String>,
}

/// A collapsible section of entries (drift, deferred changes).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct Section {
    /// Number of entries.
    pub(crate) count: usize,
    /// Entries shown with their diff.
    pub(crate) entries: Vec<EntryContext>,
    /// Entries shown by address only.
    pub(crate) listed: Vec<EntryContext>,
    /// Entries left out.
    pub(crate) omitted: usize,
}

/// Entry `i` of plan `p`'s `list`, of kind `kind`, for a line without its diff: its
/// header, not diffed, but for a replacement, whose reason names the attributes forcing
/// it (found in its diff).
pub(super) fn listed<'a>(
    plans: &Plans<'a>,
    p: usize,
    list: ChangeList,
    i: usize,
    kind: Kind,
) -> Result<Body<'a>> {
    match kind {
        Kind::Replace => plans.resource(p, list, i),
        _ => plans.header(p, list, i),
    }
}

pub(super) fn place(section: &mut Section, entry: EntryContext, detail: Detail) {
    match detail {
        Detail::Full | Detail::Compact => section.entries.push(entry),
        Detail::Listed | Detail::Grouped(_) => section.listed.push(EntryContext {
            diff: None,
            ..entry
        }),
        Detail::Omitted => section.omitted += 1,
    }
}

pub(super) fn deferred_reason(reason: &str) -> &'static str {
    match reason {
        "instance_count_unknown" => "the number of instances is not known yet",
        "resource_config_unknown" => "the resource configuration is not known yet",
        "provider_config_unknown" => "the provider configuration is not known yet",
        "deferred_prereq" => "a prerequisite is deferred",
        "absent_prereq" => "a prerequisite has not been created yet",
        "excluded" => "the resource was excluded",
        "not_included" => "the resource was not included",
        _ => "deferred for an unknown reason",
    }
}

/// Top-level attributes (and block types) whose change forces replacement.
fn forced_by(body: &Diff) -> Vec<String> {
    let Node::Block(block) = &body.node else {
        return Vec::new();
    };
    let mut names: Vec<String> = block
        .attributes
        .iter()
        .filter(|(_, d)| d.forces_replacement())
        .map(|(name, _)| name.clone())
        .collect();
    names.extend(
        block
            .blocks
            .iter()
            .filter(|g| g.replace || g.instances.iter().any(|(_, d)| d.forces_replacement()))
            .map(|g| g.name.clone()),
    );
    names
}

/// Resource `r` of plan `p` as an entry, with `diff` (`None` when listed only).
pub(super) fn entry_context(
    plans: &Plans<'_>,
    p: usize,
    r: &ResourceDiff,
    diff: Option<String>,
    compact: bool,
) -> EntryContext {
    let kind = Kind::of(r);
    let forced = if kind == Kind::Replace {
        forced_by(&r.body)
    } else {
        Vec::new()
    };
    let reason = phrases::reason(r, &forced);
    EntryContext {
        address: r.address.clone(),
        kind,
        label: kind.label().to_string(),
        icon: kind.icon().to_string(),
        reason_text: phrases::plain(&reason),
        reason,
        dangerous: kind.is_dangerous(),
        open: false,
        diff,
        compact,
        anchor: None,
        group: None,
        since: None,
        source: plans.source(p, r),
    }
}
