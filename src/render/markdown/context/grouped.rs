//! Markdown renderer, template context of a group of look-alike changes
//! ([`crate::render::markdown::group`]): its addresses and, for near-identical ones, the
//! table of the values that differ, taken from each member's diff as the comment shows it.

use std::collections::HashMap;

use crate::render::error::Result;
use crate::render::markdown::catalog::{entry_label, entry_text, Catalog, Detail};
use crate::render::markdown::group::{column_name, joined_columns, normalized, value_at, value_on};
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

/// The group led by catalog entry `leader` with `members`, and the leader's `diff` (its
/// symbols at column 0) with the values that differ replaced by a pointer to the table.
pub(super) fn group(
    plans: &Plans<'_>,
    catalog: &Catalog,
    leader: usize,
    members: &[usize],
    diff: Option<String>,
) -> Result<(Group, Option<String>)> {
    let text = |i: usize| -> Result<String> {
        let entry = &catalog.entries[i];
        let shown = entry_text(plans, entry, true)?.text;
        let address = entry_label(plans, entry);
        Ok(normalized(&shown, address).unwrap_or(shown))
    };
    let lead = text(leader)?;
    let mut texts = Vec::with_capacity(members.len());
    let mut columns = Vec::new();
    for member in members {
        let other = text(*member)?;
        // Each joined its group by this test (see `group::Grouping::add`).
        if let Some(joined) = joined_columns(&lead, &other, &columns, true) {
            columns = joined;
        }
        texts.push(other);
    }
    let addresses: Vec<String> = std::iter::once(leader)
        .chain(members.iter().copied())
        .map(|i| entry_label(plans, &catalog.entries[i]).to_string())
        .collect();
    let rows = if columns.is_empty() {
        Vec::new()
    } else {
        std::iter::once(&lead)
            .chain(&texts)
            .zip(&addresses)
            .map(|(text, address)| GroupRow {
                address: address.clone(),
                values: columns
                    .iter()
                    .map(|n| value_on(text, *n).to_string())
                    .collect(),
            })
            .collect()
    };
    let diff = diff.map(|diff| placeholders(&diff, &columns));
    let group = Group {
        count: addresses.len(),
        addresses,
        columns: columns.iter().map(|n| column_name(&lead, *n)).collect(),
        rows,
    };
    Ok((group, diff))
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
