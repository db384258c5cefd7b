//! Markdown renderer, look-alike changes: resource changes of one plan, of one kind, in
//! one module (instance keys set aside), whose diffs without unchanged context are the
//! same once the header's address is set aside, form a group the comment shows once, with
//! every address. Updates whose diffs differ only in the values of a few attribute lines
//! may form one too, with a table of those values ([`MAX_COLUMNS`]).
//!
//! Contract: a change joins a group only when its diff text, as the comment would show it,
//! is the group's (line for line, the header's address and the table's values aside), so
//! the one diff shown is true of every address listed. Groups form as the size budget
//! measures entries (in risk order), so a huge plan compares only the entries the budget
//! reaches, each once; entries never measured are shown on their own.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::diff::address::module_names;

use super::phrases::Kind;

/// The most attribute lines whose values may differ within a group (the columns of its
/// table); more, and a table stops being easier to read than the diffs.
pub const MAX_COLUMNS: usize = 3;

/// The most changes that join groups in one comment. Each is diffed to be compared, and a
/// member costs the comment only its address, so without a bound a plan of thousands of
/// identical changes would be diffed as far as its addresses fill the limit; past it,
/// changes are shown on their own (the size budget then stops as it does without groups).
pub const MAX_JOINED: usize = 512;

/// An entry in no group (not measured, or not a resource change).
const NONE: u32 = u32::MAX;

/// The groups found so far among a catalog's entries.
pub struct Grouping {
    /// Per entry, its group, or [`NONE`].
    of: Vec<u32>,
    groups: Vec<Group>,
    /// Groups by the hash of their key (plan, kind, module path, diff skeleton).
    index: HashMap<u64, Vec<u32>>,
    /// How many entries joined a group (at most [`MAX_JOINED`]).
    joined: usize,
}

struct Group {
    /// The first entry measured (the first in risk and natural order).
    leader: usize,
    /// Its diff text, the header's address set aside.
    text: String,
    /// Others that joined.
    members: usize,
    /// Lines whose values differ among the members, in text order.
    columns: Vec<usize>,
}

/// What [`Grouping::add`] reads of an entry.
pub struct Candidate<'t> {
    /// Its plan.
    pub plan: usize,
    /// Its kind.
    pub kind: Kind,
    /// Its address.
    pub address: &'t str,
    /// Its diff text without unchanged context (Terraform's, symbols in place).
    pub text: &'t str,
}

impl Grouping {
    /// No groups among `n` entries.
    pub fn new(n: usize) -> Self {
        Grouping {
            of: vec![NONE; n],
            groups: Vec::new(),
            index: HashMap::new(),
            joined: 0,
        }
    }

    /// The leader of entry `i`'s group when `i` joined another's, else `None`.
    pub fn leader_of(&self, i: usize) -> Option<usize> {
        let g = *self.of.get(i)?;
        let group = self.groups.get(g as usize)?;
        (group.leader != i).then_some(group.leader)
    }

    /// Does entry `i` lead a group others joined?
    pub fn leads(&self, i: usize) -> bool {
        let group = self.of.get(i).and_then(|g| self.groups.get(*g as usize));
        group.is_some_and(|g| g.leader == i && g.members > 0)
    }

    /// Places entry `i` (measured for the first time): in the group it looks like, or
    /// leading a new one; nowhere when its text does not name its address first, or once
    /// [`MAX_JOINED`] entries have joined groups.
    pub fn add(&mut self, i: usize, entry: &Candidate<'_>) {
        if self.of[i] != NONE || self.joined >= MAX_JOINED {
            return;
        }
        let Some(text) = normalized(entry.text, entry.address) else {
            return;
        };
        let near = entry.kind == Kind::Update;
        let mut hasher = DefaultHasher::new();
        (entry.plan, entry.kind as u8, module_names(entry.address)).hash(&mut hasher);
        for line in text.lines() {
            match value_at(line).filter(|_| near) {
                Some(at) => line[..at].hash(&mut hasher),
                None => line.hash(&mut hasher),
            }
        }
        let key = hasher.finish();
        let candidates = self.index.entry(key).or_default();
        for g in candidates.iter() {
            let group = &mut self.groups[*g as usize];
            if let Some(columns) = joined_columns(&group.text, &text, &group.columns, near) {
                group.columns = columns;
                group.members += 1;
                self.joined += 1;
                self.of[i] = *g;
                return;
            }
        }
        let g = u32::try_from(self.groups.len()).unwrap_or(NONE);
        candidates.push(g);
        self.of[i] = g;
        self.groups.push(Group {
            leader: i,
            text,
            members: 0,
            columns: Vec::new(),
        });
    }
}

/// `text` with `address` on its first line (the header) set aside, or `None` when the
/// header does not name it.
pub fn normalized(text: &str, address: &str) -> Option<String> {
    let (header, rest) = text.split_once('\n').unwrap_or((text, ""));
    let at = header.find(address)?;
    let mut out = String::with_capacity(text.len());
    out.push_str(&header[..at]);
    out.push('\u{0}');
    out.push_str(&header[at + address.len()..]);
    out.push('\n');
    out.push_str(rest);
    Some(out)
}

/// Where the value starts on an attribute line (`  ~ name = value`): after its first
/// ` = `; `None` for other lines and for values opening a nested block or a heredoc (which
/// go on over the next lines).
pub fn value_at(line: &str) -> Option<usize> {
    let at = line.find(" = ")? + 3;
    let value = line[at..].trim_end();
    let opens = value.ends_with(['{', '[', '(']) || value.starts_with("<<");
    (!opens && !value.is_empty()).then_some(at)
}

/// The lines whose values differ between `leader` and `other`, added to `columns`, when
/// `other` may join `leader`'s group: every other line the same, and (`near`) at most
/// [`MAX_COLUMNS`] lines differing in their value only; `None` when it may not.
pub fn joined_columns(
    leader: &str,
    other: &str,
    columns: &[usize],
    near: bool,
) -> Option<Vec<usize>> {
    if leader == other {
        return Some(columns.to_vec());
    }
    if !near {
        return None;
    }
    let mut union = columns.to_vec();
    let mut a = leader.split('\n');
    let mut b = other.split('\n');
    for n in 0.. {
        match (a.next(), b.next()) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => {
                let at = value_at(x).filter(|at| value_at(y) == Some(*at))?;
                if x[..at] != y[..at] {
                    return None;
                }
                if !union.contains(&n) {
                    union.push(n);
                }
            }
            _ => return None,
        }
    }
    union.sort_unstable();
    (union.len() <= MAX_COLUMNS).then_some(union)
}

/// The attribute path of line `n` of a diff text: the names of the blocks and values it
/// is nested in (the resource's own line aside) and its own name, joined with `.`.
pub fn column_name(text: &str, n: usize) -> String {
    let mut path: Vec<&str> = Vec::new();
    for (k, line) in text.split('\n').enumerate() {
        let trimmed = line.trim();
        let name = trimmed
            .split_once(" = ")
            .map_or(trimmed, |(name, _)| name)
            .trim_start_matches(['~', '+', '-', '/', '!', ' '])
            .trim_end_matches([' ', '{', '[', '(']);
        if k == n {
            path.push(name);
            break;
        }
        if trimmed.ends_with(['{', '[', '(']) {
            path.push(name);
        } else if trimmed.starts_with(['}', ']', ')']) {
            path.pop();
        }
    }
    // The first opener is the resource line (`resource "t" "n" {`).
    path.iter().skip(1).copied().collect::<Vec<_>>().join(".")
}

/// The value on line `n` of `text` (see [`value_at`]); empty when there is none.
pub fn value_on(text: &str, n: usize) -> &str {
    let line = text.split('\n').nth(n).unwrap_or("");
    value_at(line).map_or("", |at| line[at..].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WEB0: &str = "  # aws_instance.web[0] will be updated in-place\n  ~ resource \"aws_instance\" \"web\" {\n      ~ tags = {\n          ~ \"Env\"  = \"dev\" -> \"prod\"\n        }\n    }";

    fn web(i: usize, env: &str) -> String {
        WEB0.replace("web[0]", &format!("web[{i}]"))
            .replace("\"prod\"", env)
    }

    fn add(g: &mut Grouping, i: usize, kind: Kind, text: &str, address: &str) {
        let candidate = Candidate {
            plan: 0,
            kind,
            address,
            text,
        };
        g.add(i, &candidate);
    }

    #[test]
    fn identical_diffs_group_under_the_first() {
        let mut g = Grouping::new(3);
        for i in 0..3 {
            let text = web(i, "\"prod\"");
            add(
                &mut g,
                i,
                Kind::Update,
                &text,
                &format!("aws_instance.web[{i}]"),
            );
        }
        assert!(g.leads(0));
        assert_eq!(g.leader_of(1), Some(0));
        assert_eq!(g.leader_of(2), Some(0));
        assert_eq!(g.leader_of(0), None);
    }

    #[test]
    fn near_identical_updates_group_with_their_differing_line() {
        let mut g = Grouping::new(2);
        add(
            &mut g,
            0,
            Kind::Update,
            &web(0, "\"prod\""),
            "aws_instance.web[0]",
        );
        add(
            &mut g,
            1,
            Kind::Update,
            &web(1, "\"qa\""),
            "aws_instance.web[1]",
        );
        assert_eq!(g.leader_of(1), Some(0));
        assert_eq!(g.groups[0].columns, vec![3]);
        assert_eq!(column_name(&web(1, "\"qa\""), 3), "tags.\"Env\"");
        assert_eq!(value_on(&web(1, "\"qa\""), 3), "\"dev\" -> \"qa\"");
    }

    #[test]
    fn other_kinds_modules_and_shapes_stay_apart() {
        let mut g = Grouping::new(4);
        add(
            &mut g,
            0,
            Kind::Create,
            &web(0, "\"a\""),
            "aws_instance.web[0]",
        );
        // A create with another value is not near-identical: creates group only when equal.
        add(
            &mut g,
            1,
            Kind::Create,
            &web(1, "\"b\""),
            "aws_instance.web[1]",
        );
        let other_module =
            web(2, "\"a\"").replace("aws_instance.web[2]", "module.m.aws_instance.web[2]");
        add(
            &mut g,
            2,
            Kind::Create,
            &other_module,
            "module.m.aws_instance.web[2]",
        );
        // A value that opens a block is a different shape, not a different value.
        let opened = web(3, "{");
        add(&mut g, 3, Kind::Update, &opened, "aws_instance.web[3]");
        assert!((0..4).all(|i| g.leader_of(i).is_none()));
    }

    #[test]
    fn a_value_naming_the_address_is_not_set_aside() {
        let a = web(0, "\"aws_instance.web[0]\"");
        let b = web(1, "\"aws_instance.web[1]\"");
        let (a, b) = (
            normalized(&a, "aws_instance.web[0]").unwrap(),
            normalized(&b, "aws_instance.web[1]").unwrap(),
        );
        assert_ne!(a, b);
        assert_eq!(joined_columns(&a, &b, &[], false), None);
    }

    #[test]
    fn too_many_differing_lines_do_not_group() {
        let lines = |v: &str| {
            (0..=MAX_COLUMNS)
                .map(|k| format!("      ~ a{k} = {v}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(joined_columns(&lines("1"), &lines("2"), &[], true), None);
    }
}
