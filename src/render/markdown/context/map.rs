//! Markdown renderer, template context of one plan's change map: its resource changes
//! grouped by module (instance keys set aside) and resource type, counted by kind, and
//! the Mermaid flowchart of them ([`crate::render::markdown::mermaid`]); whether a plan
//! gets one (`--map`).

use std::cmp::Ordering;
use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::address::{module_names, natural_cmp};
use crate::input::plan::ChangeList;
use crate::render::markdown::mermaid::{flowchart, Group};
use crate::render::markdown::phrases::Kind;
use crate::render::markdown::source::Plans;

use super::count::{action_counts, ActionCount};

/// When a plan's comment draws its change map (`--map`; each variant's line is its
/// `--help` text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MapMode {
    /// When the plan changes resources in more than one module.
    #[default]
    Auto,
    /// Whenever the plan changes a resource.
    Always,
    /// Never.
    Never,
}

/// Where a plan changes things: a Mermaid flowchart of its modules and resource types.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangeMap {
    /// The flowchart in Mermaid's syntax, for a `mermaid` fence (`{{fence map.mermaid
    /// "mermaid"}}`): the root module and module calls as a tree, each resource type a
    /// leaf labelled with its counts (`aws_instance ×3 (+2 ~1)`) and coloured by its most
    /// dangerous kind. Node ids are planmark's and labels are encoded (Mermaid entity
    /// codes), so plan text cannot add nodes, links, callbacks, HTML or styles.
    pub mermaid: String,
    /// How many modules the plan changes resources in (module calls, instance keys set
    /// aside; the root module is one).
    pub modules: usize,
    /// The groups drawn with a node of their own: one per module and resource type, in
    /// natural order.
    pub groups: Vec<MapGroup>,
    /// Resource changes counted in the map's "more" nodes instead (past its node limit).
    pub folded: usize,
}

/// The changes of one resource type in one module.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MapGroup {
    /// The module path, instance keys set aside (`module.app.module.db`); empty for the
    /// root module.
    pub module: String,
    /// The resource type (`data.` before a data source's).
    #[serde(rename = "type")]
    pub type_: String,
    /// Number of changes.
    pub count: usize,
    /// Non-zero counts by kind, in risk order.
    pub actions: Vec<ActionCount>,
}

/// Plan `p`'s change map under `mode`, or `None` when it gets none.
pub(super) fn change_map(plans: &Plans<'_>, p: usize, mode: MapMode) -> Option<ChangeMap> {
    if mode == MapMode::Never {
        return None;
    }
    type Key<'k> = (Vec<&'k str>, &'k str, bool);
    let mut counted: HashMap<Key<'_>, [usize; 9]> = HashMap::new();
    // Plans list a module's changes together: a run of one key is counted apart and
    // added to the table when the key changes, so a huge plan hashes once per run.
    let mut run: Option<(Key<'_>, [usize; 9])> = None;
    for (i, summary) in plans.summaries(p).iter().enumerate() {
        if !summary.is_shown() {
            continue;
        }
        let module = module_names(plans.address(p, ChangeList::Changes, i));
        let key = (
            module,
            plans.type_name(p, ChangeList::Changes, i),
            summary.data_source,
        );
        let slot = Kind::of_summary(summary).risk();
        match &mut run {
            Some((current, counts)) if *current == key => counts[slot] += 1,
            _ => {
                let mut counts = [0; 9];
                counts[slot] = 1;
                if let Some((done, n)) = run.replace((key, counts)) {
                    add_counts(counted.entry(done).or_insert([0; 9]), &n);
                }
            }
        }
    }
    if let Some((done, n)) = run {
        add_counts(counted.entry(done).or_insert([0; 9]), &n);
    }
    let mut groups: Vec<Group<'_>> = counted
        .into_iter()
        .map(|((module, type_name, data), counts)| Group {
            module,
            type_label: if data {
                format!("data.{type_name}")
            } else {
                type_name.to_string()
            },
            counts,
        })
        .collect();
    groups.sort_by(|a, b| {
        path_cmp(&a.module, &b.module).then_with(|| natural_cmp(&a.type_label, &b.type_label))
    });
    let modules = groups.chunk_by(|a, b| a.module == b.module).count();
    let wanted = match mode {
        MapMode::Auto => modules > 1,
        _ => modules > 0,
    };
    if !wanted {
        return None;
    }
    let chart = flowchart(&groups);
    Some(ChangeMap {
        mermaid: chart.text,
        modules,
        groups: chart.drawn.iter().map(|i| map_group(&groups[*i])).collect(),
        folded: chart.folded,
    })
}

fn add_counts(total: &mut [usize; 9], more: &[usize; 9]) {
    for (t, m) in total.iter_mut().zip(more) {
        *t += m;
    }
}

/// Module paths in tree order: call by call, each in natural order.
fn path_cmp(a: &[&str], b: &[&str]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| natural_cmp(x, y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()))
}

fn map_group(group: &Group<'_>) -> MapGroup {
    MapGroup {
        module: group
            .module
            .iter()
            .map(|m| format!("module.{m}"))
            .collect::<Vec<_>>()
            .join("."),
        type_: group.type_label.clone(),
        count: group.total(),
        actions: action_counts(group.counts),
    }
}
