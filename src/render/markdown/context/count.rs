//! Markdown renderer, template context: a count of one kind of change, as the summary
//! table, the omitted entries and the change map's groups show it.

use schemars::JsonSchema;
use serde::Serialize;

use crate::render::markdown::phrases::Kind;

/// A count of one kind of change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ActionCount {
    /// `delete`, `replace`, `update`, `create`, `read`, `forget`, `import`, `move`, `unknown`.
    pub(crate) kind: Kind,
    /// The word shown (`destroy`, `replace`, …).
    pub label: String,
    /// Icon.
    pub(crate) icon: String,
    /// How many.
    pub(crate) count: usize,
}

pub(super) fn action_count(kind: Kind, count: usize) -> ActionCount {
    ActionCount {
        kind,
        label: kind.label().to_string(),
        icon: kind.icon().to_string(),
        count,
    }
}

/// The non-zero counts of `by_risk` (indexed by [`Kind::risk`]), in risk order.
pub(super) fn action_counts(by_risk: [usize; 9]) -> Vec<ActionCount> {
    let kinds = Kind::ALL.iter().zip(by_risk);
    kinds
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| action_count(*k, n))
        .collect()
}
