//! Markdown renderer, template context of a group of look-alike changes
//! ([`crate::render::markdown::group`]): its addresses, what was set aside in comparing
//! their diffs, and a table of the values that differ, taken from each member's diff as
//! the comment shows it.

use std::collections::HashMap;

use crate::diff::address::instance_keys;
use crate::render::error::Result;
use crate::render::markdown::catalog::{entry_label, entry_text, Catalog, Detail};
use crate::render::markdown::group::{
    self, column_name, near, normalized, value_at, value_on, Aside,
};
use crate::render::markdown::length::measure;
use crate::render::markdown::source::Plans;

use super::entry::{Group, GroupRow};

/// What a group's diff shows instead of a value that differs between its addresses.
const PER_ADDRESS: &str = "(differs per address: see the table)";

/// The entries named in each leader's group, by leader, in catalog order.
pub(super) fn members(details: &[Detail]) -> HashMap<usize, Vec<usize>> {
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, detail) in details.iter().enumerate() {
        if let Detail::Grouped(leader) = detail {
            members.entry(*leader).or_default().push(i);
        }
    }
    members
}

/// The most columns a group's table has: the values that differ freely (at most
/// [`crate::render::markdown::group::MAX_COLUMNS`]) and, while the table stays this
/// narrow, those that differ only by each address's own key.
const MAX_TABLE: usize = 4;

/// The group led by catalog entry `leader` with `members`, and the leader's `diff` (its
/// symbols at column 0) with the values that differ freely replaced by a pointer to the
/// table.
pub(super) fn group(
    plans: &Plans<'_>,
    catalog: &Catalog,
    leader: usize,
    members: &[usize],
    diff: Option<String>,
) -> Result<(Group, Option<String>)> {
    let text = |i: usize| -> Result<(String, usize)> {
        let entry = &catalog.entries[i];
        let shown = entry_text(plans, entry, true)?.text;
        let length = measure(&shown);
        let address = entry_label(plans, entry);
        Ok((normalized(&shown, address).unwrap_or(shown), length))
    };
    let near = near(catalog.entries[leader].kind);
    let addresses: Vec<String> = std::iter::once(leader)
        .chain(members.iter().copied())
        .map(|i| entry_label(plans, &catalog.entries[i]).to_string())
        .collect();
    let (lead, _) = text(leader)?;
    let lead_keys = instance_keys(&addresses[0]);
    let mut texts = Vec::with_capacity(members.len());
    let mut differences = Vec::new();
    // What the members' diffs would cost shown each on its own.
    let mut diffs = 0;
    for (member, address) in members.iter().zip(&addresses[1..]) {
        let (other, length) = text(*member)?;
        diffs += length;
        let keys = instance_keys(address);
        // Each joined its group by this test (see `group::Grouping::add`).
        if let Some(joined) = group::differences(
            (lead.as_str(), lead_keys.as_slice()),
            (other.as_str(), keys.as_slice()),
            &differences,
            near,
        ) {
            differences = joined;
        }
        texts.push(other);
    }
    let paths = |aside: Aside| -> Vec<String> {
        let lines = differences.iter().filter(|(_, a)| *a == aside);
        lines.map(|(n, _)| column_name(&lead, *n)).collect()
    };
    let (unknown, own_key) = (paths(Aside::Unknown), paths(Aside::OwnKey));
    let free: Vec<usize> = lines_of(&differences, |a| a == Aside::Value);
    // Values known only after apply are named, not tabled: their old values (ids, mostly)
    // are what the apply replaces, and a column of them would crowd out other changes.
    let mut columns = lines_of(&differences, |a| a != Aside::Unknown);
    if columns.len() > MAX_TABLE {
        columns.clone_from(&free);
    }
    let mut rows: Vec<GroupRow> = std::iter::once(&lead)
        .chain(&texts)
        .zip(&addresses)
        .map(|(text, address)| GroupRow {
            address: address.clone(),
            values: columns
                .iter()
                .map(|n| value_on(text, *n).to_string())
                .collect(),
        })
        .collect();
    // A table of values set aside only when it is shorter than the diffs it stands for.
    let table: usize = rows
        .iter()
        .map(|r| measure(&r.address) + r.values.iter().map(|v| measure(v) + 4).sum::<usize>())
        .sum();
    if free.is_empty() && table >= diffs {
        columns.clear();
    }
    if columns.is_empty() {
        rows.clear();
    }
    let diff = diff.map(|diff| placeholders(&diff, &free));
    let group = Group {
        count: addresses.len(),
        addresses,
        columns: columns.iter().map(|n| column_name(&lead, *n)).collect(),
        rows,
        unknown,
        own_key,
        per_address: paths(Aside::Value),
    };
    Ok((group, diff))
}

/// The lines of `differences` whose reason passes `keep`.
fn lines_of(differences: &[(usize, Aside)], keep: impl Fn(Aside) -> bool) -> Vec<usize> {
    let kept = differences.iter().filter(|(_, a)| keep(*a));
    kept.map(|(n, _)| *n).collect()
}

/// `diff` with the value on each of lines `columns` replaced by [`PER_ADDRESS`].
fn placeholders(diff: &str, columns: &[usize]) -> String {
    if columns.is_empty() {
        return diff.to_string();
    }
    let lines: Vec<String> = diff
        .split('\n')
        .enumerate()
        .map(|(n, line)| match value_at(line) {
            Some(at) if columns.contains(&n) => format!("{}{PER_ADDRESS}", &line[..at]),
            _ => line.to_string(),
        })
        .collect();
    lines.join("\n")
}
