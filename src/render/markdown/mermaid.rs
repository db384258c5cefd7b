//! Markdown renderer, the change map's layout: groups of resource changes (a module path,
//! a resource type, counts by kind) → a Mermaid flowchart, modules as a tree from the
//! root module with their resource types as leaves, coloured by the most dangerous kind.
//!
//! Contract: the text is a fixed subset of Mermaid's flowchart syntax, one statement a
//! line: `flowchart LR`, planmark's own `classDef` lines, node statements
//! `ID["LABEL"]:::CLASS` and links `ID --> ID`. Node ids are planmark's (`m0` modules,
//! `t0` resource types, `r0` the rest), never plan text; every label is quoted and
//! encoded by `escape::mermaid_label`, so no plan value can add a node, a link, a
//! `click` callback, HTML or a style. At most [`MAX_NODES`] nodes: what does not fit is
//! counted in "more" nodes.

use std::fmt::Write;

use super::escape;
use super::phrases::Kind;

/// The most nodes drawn (modules, types and "more" nodes): past a few dozen a flowchart
/// stops being a picture anyone reads.
pub const MAX_NODES: usize = 60;
/// The most resource-type nodes drawn for one module; its other types share one node.
pub(crate) const MAX_TYPES_PER_MODULE: usize = 10;
/// The longest plan text (a module name, a resource type) in a label, in characters.
const MAX_LABEL: usize = 48;

/// The fixed styles, one per class: modules, then each action's colour.
const CLASSES: &[(&str, &str)] = &[
    ("module", "fill:#f6f8fa,stroke:#57606a,color:#24292f"),
    ("destroy", "fill:#ffebe9,stroke:#cf222e,color:#82071e"),
    ("replace", "fill:#fff1e5,stroke:#bc4c00,color:#762c00"),
    ("update", "fill:#fff8c5,stroke:#9a6700,color:#4d2d00"),
    ("create", "fill:#dafbe1,stroke:#1a7f37,color:#044f1e"),
    ("other", "fill:#ddf4ff,stroke:#0969da,color:#0a3069"),
];

/// Changes of one resource type in one module.
#[derive(Debug, Clone)]
pub(crate) struct Group<'a> {
    /// The module calls it is in, from the root (instance keys set aside).
    pub(crate) module: Vec<&'a str>,
    /// The resource type as shown (`data.` before a data source's).
    pub(crate) type_label: String,
    /// Changes by kind, indexed as [`Kind::ALL`].
    pub(crate) counts: [usize; 9],
}

impl Group<'_> {
    /// Number of changes.
    pub(crate) fn total(&self) -> usize {
        self.counts.iter().sum()
    }
}

/// A laid-out flowchart.
#[derive(Debug, Clone)]
pub(crate) struct Flowchart {
    /// The Mermaid text (lines end with `\n`).
    pub(crate) text: String,
    /// The groups with a node of their own (indexes, ascending).
    pub(crate) drawn: Vec<usize>,
    /// Changes counted in "more" nodes rather than their type's own.
    pub(crate) folded: usize,
}

/// Lays out `groups`, which must be sorted by module path then type (modules in tree
/// order: a module's groups right after its parent's or a sibling's).
pub(crate) fn flowchart(groups: &[Group<'_>]) -> Flowchart {
    let mut chart = Chart::default();
    chart.text.push_str("flowchart LR\n");
    for (name, style) in CLASSES {
        let _ = writeln!(chart.text, "  classDef {name} {style}");
    }
    chart.node("m", "root module", "module");
    let mut modules: Vec<(&[&str], String)> = vec![(&[], "m0".to_string())];
    let (mut drawn, mut folded) = (Vec::new(), 0);
    let mut start = 0;
    while start < groups.len() {
        let path = groups[start].module.as_slice();
        let end = start
            + groups[start..]
                .iter()
                .take_while(|g| g.module == path)
                .count();
        let types = &groups[start..end];
        let missing = (1..=path.len())
            .filter(|depth| !modules.iter().any(|(m, _)| *m == &path[..*depth]))
            .count();
        let shown = types.len().min(MAX_TYPES_PER_MODULE);
        // One node is kept for the rest of the plan, should anything come after.
        let rest = usize::from(end < groups.len());
        if chart.nodes + missing + shown + rest > MAX_NODES {
            break;
        }
        for depth in 1..=path.len() {
            if modules.iter().any(|(m, _)| *m == &path[..depth]) {
                continue;
            }
            let parent = parent_id(&modules, &path[..depth - 1]);
            let label = format!("module.{}", cap(path[depth - 1]));
            let id = chart.node("m", &label, "module");
            chart.link(&parent, &id);
            modules.push((&path[..depth], id));
        }
        let module = parent_id(&modules, path);
        let own = if types.len() > MAX_TYPES_PER_MODULE {
            MAX_TYPES_PER_MODULE - 1
        } else {
            types.len()
        };
        for group in &types[..own] {
            let label = format!(
                "{} ×{}{}",
                cap(&group.type_label),
                group.total(),
                counts(&group.counts)
            );
            let id = chart.node("t", &label, class(&group.counts));
            chart.link(&module, &id);
        }
        drawn.extend(start..start + own);
        if own < types.len() {
            let others = &types[own..];
            let (sum, total) = summed(others);
            let label = format!("{} more types ×{total}{}", others.len(), counts(&sum));
            let id = chart.node("t", &label, class(&sum));
            chart.link(&module, &id);
            folded += total;
        }
        start = end;
    }
    if start < groups.len() {
        let others = &groups[start..];
        let (sum, total) = summed(others);
        let mut paths: Vec<&[&str]> = others.iter().map(|g| g.module.as_slice()).collect();
        paths.dedup();
        let noun = if paths.len() == 1 {
            "module"
        } else {
            "modules"
        };
        let label = format!("{} more {noun} ×{total}{}", paths.len(), counts(&sum));
        let id = chart.node("r", &label, class(&sum));
        chart.link("m0", &id);
        folded += total;
    }
    Flowchart {
        text: chart.text,
        drawn,
        folded,
    }
}

/// The text being written and the ids handed out.
#[derive(Default)]
struct Chart {
    text: String,
    nodes: usize,
    next: [usize; 3],
}

impl Chart {
    /// Writes a node with planmark's next id of `prefix` (`m`, `t` or `r`); returns the id.
    fn node(&mut self, prefix: &str, label: &str, class: &str) -> String {
        let slot = match prefix {
            "m" => 0,
            "t" => 1,
            _ => 2,
        };
        let id = format!("{prefix}{}", self.next[slot]);
        self.next[slot] += 1;
        self.nodes += 1;
        let _ = writeln!(
            self.text,
            "  {id}[\"{}\"]:::{class}",
            escape::mermaid_label(label)
        );
        id
    }

    fn link(&mut self, from: &str, to: &str) {
        let _ = writeln!(self.text, "  {from} --> {to}");
    }
}

fn parent_id(modules: &[(&[&str], String)], path: &[&str]) -> String {
    modules
        .iter()
        .find(|(m, _)| *m == path)
        .map_or_else(|| "m0".to_string(), |(_, id)| id.clone())
}

/// Plan text cut to [`MAX_LABEL`] characters (`…` says so).
fn cap(text: &str) -> String {
    if text.chars().count() <= MAX_LABEL {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(MAX_LABEL - 1).collect();
    cut.push('…');
    cut
}

/// The counts of `groups` summed, and their total.
fn summed(groups: &[Group<'_>]) -> ([usize; 9], usize) {
    let mut sum = [0; 9];
    for g in groups {
        for (s, c) in sum.iter_mut().zip(g.counts) {
            *s += c;
        }
    }
    (sum, sum.iter().sum())
}

/// ` (+2 ~1 -/+1 -1)`: Terraform's symbols for the common kinds, words for the rest.
fn counts(counts: &[usize; 9]) -> String {
    let parts: Vec<String> = Kind::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(kind, n)| match kind {
            Kind::Create => format!("+{n}"),
            Kind::Update => format!("~{n}"),
            Kind::Replace => format!("-/+{n}"),
            Kind::Delete => format!("-{n}"),
            Kind::Read => format!("<={n}"),
            other => format!("{n} {}", other.label()),
        })
        .collect();
    format!(" ({})", parts.join(" "))
}

/// The class of the most dangerous kind counted: its label for the kinds with a colour of
/// their own, else `other`.
fn class(counts: &[usize; 9]) -> &'static str {
    let first = Kind::ALL.iter().zip(counts).find(|(_, n)| **n > 0);
    match first.map(|(k, _)| *k) {
        Some(k @ (Kind::Delete | Kind::Replace | Kind::Update | Kind::Create)) => k.label(),
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group<'a>(module: &[&'a str], type_label: &str, kind: Kind, n: usize) -> Group<'a> {
        let mut counts = [0; 9];
        counts[kind.risk()] = n;
        Group {
            module: module.to_vec(),
            type_label: type_label.to_string(),
            counts,
        }
    }

    #[test]
    fn modules_form_a_tree_with_their_types_as_leaves() {
        let groups = [
            group(&[], "aws_s3_bucket", Kind::Create, 2),
            group(&["app", "db"], "aws_db_instance", Kind::Replace, 1),
        ];
        let chart = flowchart(&groups);
        let body: Vec<&str> = chart.text.lines().skip(1 + CLASSES.len()).collect();
        assert_eq!(
            body,
            [
                "  m0[\"root module\"]:::module",
                "  t0[\"aws_s3_bucket #215;2 (+2)\"]:::create",
                "  m0 --> t0",
                "  m1[\"module.app\"]:::module",
                "  m0 --> m1",
                "  m2[\"module.db\"]:::module",
                "  m1 --> m2",
                "  t1[\"aws_db_instance #215;1 (-/+1)\"]:::replace",
                "  m2 --> t1",
            ]
        );
        assert_eq!((chart.drawn, chart.folded), (vec![0, 1], 0));
    }

    #[test]
    fn a_huge_plan_is_capped_and_says_how_much_is_folded() {
        let names: Vec<String> = (0..200).map(|i| format!("m{i:03}")).collect();
        let groups: Vec<Group<'_>> = names
            .iter()
            .flat_map(|m| {
                (0..3).map(move |t| group(&[m.as_str()], &format!("type_{t}"), Kind::Update, 2))
            })
            .collect();
        let chart = flowchart(&groups);
        let nodes = chart.text.matches(":::").count();
        assert!(nodes <= MAX_NODES, "{nodes}");
        assert_eq!(chart.drawn.len() * 2 + chart.folded, 1200);
        assert!(chart.text.contains("more modules"), "{}", chart.text);
        // Many types in one module share a node past the limit.
        let wide: Vec<Group<'_>> = (0..25)
            .map(|t| group(&["wide"], &format!("type_{t:02}"), Kind::Delete, 1))
            .collect();
        let chart = flowchart(&wide);
        assert!(
            chart.text.contains("16 more types #215;16 (-16)"),
            "{}",
            chart.text
        );
        assert_eq!((chart.drawn.len(), chart.folded), (9, 16));
    }
}
