//! Markdown renderer, look-alike changes: resource changes of one plan, of one kind, in
//! one module (instance keys set aside) are alike when their diffs without unchanged
//! context are the same once these are set aside: the header's address, values known only
//! after apply (`X -> (known after apply)`, whatever X was, `Aside::Unknown`) and values
//! that differ only by each address's own instance keys (`"web-0"`, `"web-1"`,
//! `Aside::OwnKey`). Updates and destroys whose diffs differ besides in the values of a
//! few attribute lines group too, with a table of those values (`MAX_COLUMNS`).
//!
//! Contract: a change joins a group only when its diff text, as the comment would show it,
//! is the group's line for line but for the lines `differences` names, so the one diff
//! shown is true of every address listed once the context says what was set aside. Groups
//! form as the size budget measures entries (in risk order), so a huge plan compares only
//! the entries the budget reaches, each once; entries never measured are shown on their own.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::diff::address::{instance_keys, module_names};

use super::phrases::Kind;

/// The most attribute lines whose values may differ freely within a group (the columns
/// of its table); more, and a table stops being easier to read than the diffs.
pub(crate) const MAX_COLUMNS: usize = 3;

/// The most changes that join groups in one comment. Each is diffed to be compared (and
/// laid out again for its group's context at each render), and a member costs the comment
/// only its address, so without a bound a plan of thousands of look-alike replacements
/// would be diffed as far as their addresses fill the limit; past it, changes are shown on
/// their own (the size budget then stops as it does without groups).
pub const MAX_JOINED: usize = 256;

/// The most groups of one key an entry is compared with, the latest first. The key sets
/// values aside (they may differ), so unlike changes of one shape share it; look-alikes
/// are measured one after another (natural order), so the latest groups are the likely.
const MAX_TRIED: usize = 8;

/// An entry in no group (not measured, or not a resource change).
const NONE: u32 = u32::MAX;

/// What a line of a member's diff has other than its group's diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Aside {
    /// Its own value known only after apply, before which it was another: `"1" -> (known
    /// after apply)`.
    Unknown,
    /// Its own value, the same as the group's once each one's own instance keys are set
    /// aside: `"web-1"` for `"web-0"`.
    OwnKey,
    /// Another value (updates and destroys only): shown in the group's table.
    Value,
}

/// Lines of a group's diff whose values differ among its members, in text order.
pub(crate) type Differences = Vec<(usize, Aside)>;

/// The groups found so far among a catalog's entries.
pub(crate) struct Grouping {
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
    /// Its address's instance keys.
    keys: Vec<String>,
    /// Others that joined.
    members: usize,
    /// Lines whose values differ among the members.
    differences: Differences,
}

/// May changes of `kind` differ in a few values of their own (shown in a table)?
pub(crate) fn near(kind: Kind) -> bool {
    matches!(kind, Kind::Update | Kind::Delete)
}

impl Grouping {
    /// No groups among `n` entries.
    pub(crate) fn new(n: usize) -> Self {
        Grouping {
            of: vec![NONE; n],
            groups: Vec::new(),
            index: HashMap::new(),
            joined: 0,
        }
    }

    /// The leader of entry `i`'s group when `i` joined another's, else `None`.
    pub(crate) fn leader_of(&self, i: usize) -> Option<usize> {
        let g = *self.of.get(i)?;
        let group = self.groups.get(g as usize)?;
        (group.leader != i).then_some(group.leader)
    }

    /// Places entry `i` (measured for the first time), a change of `kind` in plan `plan`
    /// at `address` whose diff without unchanged context is `text` (Terraform's, symbols
    /// in place): in the group it looks like, or leading a new one; nowhere when its text
    /// does not name its address first, or once [`MAX_JOINED`] entries have joined groups.
    pub(crate) fn add(&mut self, i: usize, plan: usize, kind: Kind, address: &str, text: &str) {
        if self.of[i] != NONE || self.joined >= MAX_JOINED {
            return;
        }
        let Some(text) = normalized(text, address) else {
            return;
        };
        let near = near(kind);
        let keys = instance_keys(address);
        let mut hasher = DefaultHasher::new();
        (plan, kind as u8, module_names(address)).hash(&mut hasher);
        let mut body = Heredoc::default();
        for line in text.lines() {
            let held = body.holds(line);
            match value_at(line).filter(|_| !held) {
                // What may differ is left out of the key; the rest of the line is in it.
                Some(at) => {
                    line[..at].hash(&mut hasher);
                    let value = &line[at..];
                    unknown_tail(value).filter(|_| !near).hash(&mut hasher);
                }
                None => line.hash(&mut hasher),
            }
        }
        let key = hasher.finish();
        let candidates = self.index.entry(key).or_default();
        for g in candidates.iter().rev().take(MAX_TRIED) {
            let group = &mut self.groups[*g as usize];
            let leader_keys: Vec<&str> = group.keys.iter().map(String::as_str).collect();
            let (lead, other) = (
                (group.text.as_str(), &leader_keys[..]),
                (&text[..], &keys[..]),
            );
            if let Some(differences) = differences(lead, other, &group.differences, near) {
                group.differences = differences;
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
            keys: keys.into_iter().map(str::to_string).collect(),
            members: 0,
            differences: Vec::new(),
        });
    }
}

/// `text` with `address` on its first line (the header) set aside, or `None` when the
/// header does not name it.
pub(crate) fn normalized(text: &str, address: &str) -> Option<String> {
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
pub(crate) fn value_at(line: &str) -> Option<usize> {
    let at = line.find(" = ")? + 3;
    let value = line[at..].trim_end();
    let opens = value.ends_with(['{', '[', '(']) || value.starts_with("<<");
    (!opens && !value.is_empty()).then_some(at)
}

/// What Terraform writes after a value that becomes known only after apply, with the
/// comment it may add: a value's text that ends otherwise (a string ends with its quote)
/// is not one, whatever it contains.
const UNKNOWN: [&str; 2] = [
    " -> (known after apply)",
    " -> (known after apply) # forces replacement",
];

/// A value's end from `->` on, when it becomes known only after apply.
fn unknown_tail(value: &str) -> Option<&str> {
    let value = value.trim_end();
    let tail = UNKNOWN.iter().find(|tail| value.ends_with(*tail))?;
    Some(&value[value.len() - tail.len()..])
}

/// Tells the lines of a heredoc's body (a string's own lines, shown as they are, which may
/// read like attribute lines) from the diff's own, a line at a time.
#[derive(Default)]
struct Heredoc {
    /// Inside a body: the indentation of the line that closes it.
    closer: Option<usize>,
}

impl Heredoc {
    /// Is `line`, the next line of a diff, in a heredoc (its body or the line closing it)?
    fn holds(&mut self, line: &str) -> bool {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(closer) = self.closer {
            // The body is indented a level deeper than the `EOT` that closes it.
            if indent == closer && line[indent..].starts_with("EOT") {
                self.closer = None;
            }
            return true;
        }
        let trimmed = line.trim_end();
        if trimmed.ends_with("<<-EOT") || trimmed.ends_with("<<-EOT # forces replacement") {
            // Lines stand two columns in, four more a level (the symbol's two columns
            // included); `EOT` stands at the opening line's level after a symbol's two.
            self.closer = Some(indent.saturating_sub(2) / 4 * 4 + 4);
        }
        false
    }
}

/// How `x` and `y`, lines at one place of two diffs whose addresses have the instance keys
/// `x_keys` and `y_keys`, differ: `Ok(None)` when they are the same, `Err(())` when they
/// are not alike (see [`Aside`]; `near`: [`Aside::Value`] allowed).
fn line_aside(x: (&str, &[&str]), y: (&str, &[&str]), near: bool) -> Result<Option<Aside>, ()> {
    let ((x, x_keys), (y, y_keys)) = (x, y);
    if x == y {
        return Ok(None);
    }
    let at = value_at(x)
        .filter(|at| value_at(y) == Some(*at))
        .ok_or(())?;
    if x[..at] != y[..at] {
        return Err(());
    }
    let (a, b) = (x[at..].trim_end(), y[at..].trim_end());
    if let (Some(ta), Some(tb)) = (unknown_tail(a), unknown_tail(b)) {
        if ta == tb {
            return Ok(Some(Aside::Unknown));
        }
    }
    if keyed(a, x_keys).is_some_and(|k| Some(k) == keyed(b, y_keys)) {
        return Ok(Some(Aside::OwnKey));
    }
    near.then_some(Some(Aside::Value)).ok_or(())
}

/// The lines whose values differ between `leader` and `other` (each a diff text and its
/// address's instance keys), merged into `known`, when `other` is alike: every other
/// line the same and at most [`MAX_COLUMNS`] lines of [`Aside::Value`]; `None` when not.
pub(crate) fn differences(
    leader: (&str, &[&str]),
    other: (&str, &[&str]),
    known: &[(usize, Aside)],
    near: bool,
) -> Option<Differences> {
    if leader.0 == other.0 {
        return Some(known.to_vec());
    }
    let mut union = known.to_vec();
    let mut a = leader.0.split('\n');
    let mut b = other.0.split('\n');
    let mut body = Heredoc::default();
    for n in 0.. {
        match (a.next(), b.next()) {
            (None, None) => break,
            (Some(x), Some(y)) if body.holds(x) => {
                if x != y {
                    return None;
                }
            }
            (Some(x), Some(y)) => {
                let Some(aside) = line_aside((x, leader.1), (y, other.1), near).ok()? else {
                    continue;
                };
                match union.iter_mut().find(|(line, _)| *line == n) {
                    // A line set aside for one member and tabled for another is tabled.
                    Some((_, was)) => *was = (*was).max(aside),
                    None => union.push((n, aside)),
                }
            }
            _ => return None,
        }
    }
    union.sort_unstable();
    let values = union.iter().filter(|(_, a)| *a == Aside::Value).count();
    (values <= MAX_COLUMNS).then_some(union)
}

/// `value` with each of `keys` that stands apart in it replaced by a placeholder naming
/// which key it was; `None` when none does. A key stands apart where the characters on
/// either side are not of its edge's kind (digits, letters): `1` in `"web-1"` but not in
/// `"10"`, `a` in `"app-a"` but not in `"app"`.
pub(crate) fn keyed(value: &str, keys: &[&str]) -> Option<String> {
    let mut keys: Vec<(usize, &str)> = keys
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, k)| !k.is_empty())
        .collect();
    // The longest first, so a key inside another does not cut it.
    keys.sort_by_key(|(_, k)| std::cmp::Reverse(k.len()));
    let mut out = String::with_capacity(value.len());
    let mut found = false;
    let mut rest = value;
    let mut previous: Option<char> = None;
    'outer: while let Some(c) = rest.chars().next() {
        for (n, key) in &keys {
            if rest.starts_with(key) && apart(previous, key, rest[key.len()..].chars().next()) {
                out.push('\u{0}');
                out.push(char::from_u32(0xE000 + *n as u32).unwrap_or('\u{0}'));
                previous = key.chars().next_back();
                rest = &rest[key.len()..];
                found = true;
                continue 'outer;
            }
        }
        out.push(c);
        previous = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    found.then_some(out)
}

/// Does `key`, between `before` and `after`, stand apart from them?
fn apart(before: Option<char>, key: &str, after: Option<char>) -> bool {
    let kind = |c: char| match c {
        _ if c.is_numeric() => 1,
        _ if c.is_alphabetic() => 2,
        _ => 0,
    };
    let joins = |edge: Option<char>, side: Option<char>| match (edge, side) {
        (Some(e), Some(s)) => kind(e) != 0 && kind(e) == kind(s),
        _ => false,
    };
    !joins(key.chars().next(), before) && !joins(key.chars().next_back(), after)
}

/// The attribute path of line `n` of a diff text: the names of the blocks and values it
/// is nested in (the resource's own line aside) and its own name, joined with `.`.
pub(crate) fn column_name(text: &str, n: usize) -> String {
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
pub(crate) fn value_on(text: &str, n: usize) -> &str {
    let line = text.split('\n').nth(n).unwrap_or("");
    value_at(line).map_or("", |at| line[at..].trim_end())
}

#[cfg(test)]
mod tests;
