//! Differ: one value's before/after pair with its masks, and how to step into children.
//!
//! A [`Change`] is the differ's cursor. `None` stands for null whether the JSON had `null`
//! or nothing at all; the `*_explicit` flags remember which, because an explicit null in a
//! list (`[null]`) becoming a value is an update (`null -> 1`) while an absent one is a
//! create. Masks (unknown, sensitivity) mirror the value's shape.

use std::collections::BTreeMap;

use super::sequence::Pairing;
use crate::diff::Action;
use crate::input::json::Value;
use crate::input::schema::Attribute;

/// An unknown or sensitivity mask at one position.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mask<'v, 'a> {
    /// Nothing marked here.
    Absent,
    /// The whole value is marked.
    True,
    /// Every named attribute is marked (used to show an unknown object's old
    /// attributes as `old -> (known after apply)` rather than as deleted).
    Attributes(&'v BTreeMap<String, Attribute>),
    /// A mask value from the plan.
    Value(&'v Value<'a>),
}

impl<'v, 'a> Mask<'v, 'a> {
    pub(crate) fn from_value(value: &'v Value<'a>) -> Self {
        match value {
            Value::Null => Mask::Absent,
            Value::Bool(true) => Mask::True,
            v => Mask::Value(v),
        }
    }

    pub(crate) fn is_true(self) -> bool {
        matches!(self, Mask::True)
    }

    fn index(self, ix: usize) -> Self {
        match self {
            Mask::Value(Value::Array(items)) => {
                items.get(ix).map_or(Mask::Absent, Mask::from_value)
            }
            _ => Mask::Absent,
        }
    }

    /// Keys present in an object mask (used for maps, whose keys may hide in masks).
    pub(crate) fn keys(self) -> Vec<&'v str> {
        match self {
            Mask::Value(Value::Object(members)) => {
                members.iter().map(|(k, _)| k.as_ref()).collect()
            }
            Mask::Attributes(attrs) => attrs.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }
}

/// Attribute paths (replace paths, relevant attributes) followed down the value tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Matcher<'v, 'a> {
    always: bool,
    propagate: bool,
    paths: Vec<&'v [Value<'a>]>,
}

impl<'v, 'a> Matcher<'v, 'a> {
    /// Matches everything (normal changes: every attribute is relevant).
    pub(crate) fn always() -> Self {
        Matcher {
            always: true,
            ..Matcher::default()
        }
    }

    /// Matches those of `paths` that are JSON arrays of steps (the others name nothing);
    /// `propagate` extends a match to the matched value's children.
    pub(crate) fn paths(paths: impl IntoIterator<Item = &'v Value<'a>>, propagate: bool) -> Self {
        let paths = paths.into_iter().filter_map(|p| match p {
            Value::Array(steps) => Some(steps.as_slice()),
            _ => None,
        });
        Matcher {
            always: false,
            propagate,
            paths: paths.collect(),
        }
    }

    /// Builds a matcher from a JSON array of paths (`replace_paths`).
    pub(crate) fn from_value(value: &'v Value<'a>, propagate: bool) -> Self {
        let paths = match value {
            Value::Array(paths) => paths.as_slice(),
            _ => &[],
        };
        Matcher::paths(paths, propagate)
    }

    /// A path ends exactly here.
    pub(crate) fn matches(&self) -> bool {
        self.always || self.paths.iter().any(|p| p.is_empty())
    }

    /// Some path passes through (or ends at) here.
    pub(crate) fn matches_partial(&self) -> bool {
        self.always || !self.paths.is_empty()
    }

    fn child(&self, step_matches: impl Fn(&Value<'a>) -> bool) -> Self {
        if self.paths.is_empty() {
            // Nothing to follow (a matcher that matches always has no paths).
            return Matcher {
                always: self.always,
                propagate: self.propagate,
                paths: Vec::new(),
            };
        }
        let mut paths = Vec::new();
        for path in &self.paths {
            match path.split_first() {
                None if self.propagate => paths.push(*path),
                None => {}
                Some((step, rest)) if step_matches(step) => paths.push(rest),
                Some(_) => {}
            }
        }
        Matcher {
            always: false,
            propagate: self.propagate,
            paths,
        }
    }

    fn key(&self, key: &str) -> Self {
        self.child(|step| step.as_str() == Some(key))
    }

    fn index(&self, ix: usize) -> Self {
        // Terraform accepts numeric strings as indexes too (`list["0"]`), and truncates.
        self.child(|step| {
            let text = match step {
                Value::Number(n) => n.as_ref(),
                Value::String(s) => s.as_ref(),
                _ => return false,
            };
            text.parse::<f64>().is_ok_and(|f| f.trunc() == ix as f64)
        })
    }
}

/// One value's change: the differ's unit of work.
#[derive(Debug, Clone)]
pub(crate) struct Change<'v, 'a> {
    pub(crate) before: Option<&'v Value<'a>>,
    pub(crate) after: Option<&'v Value<'a>>,
    pub(crate) before_explicit: bool,
    pub(crate) after_explicit: bool,
    pub(crate) unknown: Mask<'v, 'a>,
    pub(crate) before_sensitive: Mask<'v, 'a>,
    pub(crate) after_sensitive: Mask<'v, 'a>,
    pub(crate) replace: Matcher<'v, 'a>,
    pub(crate) relevant: Matcher<'v, 'a>,
    /// The schema uses features the legacy SDK lacks, so `""` and null differ.
    pub(crate) non_legacy: bool,
    /// Whose list pairing applies (the same all the way down).
    pub(crate) pairing: Pairing,
}

fn non_null<'v, 'a>(value: &'v Value<'a>) -> Option<&'v Value<'a>> {
    match value {
        Value::Null => None,
        v => Some(v),
    }
}

impl<'v, 'a> Change<'v, 'a> {
    /// A top-level change.
    pub(crate) fn new(
        before: &'v Value<'a>,
        after: &'v Value<'a>,
        unknown: &'v Value<'a>,
        before_sensitive: &'v Value<'a>,
        after_sensitive: &'v Value<'a>,
        replace: Matcher<'v, 'a>,
        relevant: Matcher<'v, 'a>,
    ) -> Self {
        Change {
            before: non_null(before),
            after: non_null(after),
            before_explicit: false,
            after_explicit: false,
            unknown: Mask::from_value(unknown),
            before_sensitive: Mask::from_value(before_sensitive),
            after_sensitive: Mask::from_value(after_sensitive),
            replace,
            relevant,
            non_legacy: false,
            pairing: Pairing::Terraform,
        }
    }

    pub(crate) fn is_unknown(&self) -> bool {
        self.unknown.is_true()
    }

    pub(crate) fn is_before_sensitive(&self) -> bool {
        self.before_sensitive.is_true()
    }

    pub(crate) fn is_after_sensitive(&self) -> bool {
        self.after_sensitive.is_true()
    }

    /// The action of a leaf value.
    pub(crate) fn leaf_action(&self) -> Action {
        if self.before.is_none()
            && !self.before_explicit
            && (self.after.is_some() || self.after_explicit)
        {
            return Action::Create;
        }
        if self.after.is_none()
            && !self.after_explicit
            && (self.before.is_some() || self.before_explicit)
        {
            return Action::Delete;
        }
        if self.before == self.after
            && self.before_explicit == self.after_explicit
            && self.is_before_sensitive() == self.is_after_sensitive()
        {
            return Action::NoOp;
        }
        Action::Update
    }

    /// The starting action for a collection, refined by folding in its children.
    pub(crate) fn default_action(&self) -> Action {
        match (self.before, self.after) {
            (None, None) => Action::NoOp,
            (None, Some(_)) => Action::Create,
            (Some(_), None) => Action::Delete,
            (Some(_), Some(_)) => Action::NoOp,
        }
    }

    /// The same change seen as unchanged (after := before).
    pub(crate) fn as_noop(&self) -> Self {
        Change {
            after: self.before,
            after_explicit: self.before_explicit,
            unknown: Mask::Absent,
            after_sensitive: self.before_sensitive,
            non_legacy: false,
            ..self.clone()
        }
    }

    /// The same change seen as a deletion of the before value.
    pub(crate) fn as_delete(&self) -> Self {
        Change {
            after: None,
            after_explicit: false,
            unknown: Mask::Absent,
            after_sensitive: Mask::Absent,
            non_legacy: false,
            ..self.clone()
        }
    }

    /// The same change seen as a creation of the after value.
    pub(crate) fn as_create(&self) -> Self {
        Change {
            before: None,
            before_explicit: false,
            before_sensitive: Mask::Absent,
            non_legacy: false,
            ..self.clone()
        }
    }

    /// The same change with sensitivity marks removed (to compute the hidden action).
    pub(crate) fn without_sensitivity(&self) -> Self {
        Change {
            before_sensitive: Mask::Absent,
            after_sensitive: Mask::Absent,
            ..self.clone()
        }
    }

    pub(crate) fn before_object(&self) -> Option<&'v [(std::borrow::Cow<'a, str>, Value<'a>)]> {
        match self.before {
            Some(Value::Object(m)) => Some(m),
            _ => None,
        }
    }

    pub(crate) fn after_object(&self) -> Option<&'v [(std::borrow::Cow<'a, str>, Value<'a>)]> {
        match self.after {
            Some(Value::Object(m)) => Some(m),
            _ => None,
        }
    }

    pub(crate) fn before_array(&self) -> Option<&'v [Value<'a>]> {
        match self.before {
            Some(Value::Array(items)) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn after_array(&self) -> Option<&'v [Value<'a>]> {
        match self.after {
            Some(Value::Array(items)) => Some(items),
            _ => None,
        }
    }

    /// A walker over this change's children for keys in strictly ascending order.
    pub(crate) fn children<'c>(&'c self) -> Children<'c, 'v, 'a> {
        Children {
            change: self,
            before: Walk::of(self.before),
            after: Walk::of(self.after),
            unknown: Walk::of_mask(self.unknown),
            before_sensitive: Walk::of_mask(self.before_sensitive),
            after_sensitive: Walk::of_mask(self.after_sensitive),
        }
    }

    /// The child pairing element `before_ix` of the old list with `after_ix` of the new
    /// one; an index out of range means "absent on that side".
    pub(crate) fn index(&self, before_ix: usize, after_ix: usize) -> Self {
        let before_items = self.before_array();
        let after_items = self.after_array();
        let before = before_items.and_then(|items| items.get(before_ix));
        let after = after_items.and_then(|items| items.get(after_ix));
        // Paths follow the before index unless the element only exists after.
        let relevant_ix = if before.is_some() {
            before_ix
        } else {
            after_ix
        };
        Change {
            before: before.and_then(non_null),
            after: after.and_then(non_null),
            before_explicit: before.is_some(),
            after_explicit: after.is_some(),
            unknown: self.unknown.index(after_ix),
            before_sensitive: self.before_sensitive.index(before_ix),
            after_sensitive: self.after_sensitive.index(after_ix),
            replace: self.replace.index(relevant_ix),
            relevant: self.relevant.index(relevant_ix),
            non_legacy: self.non_legacy,
            pairing: self.pairing,
        }
    }

    /// The longer side's length, for elements paired by position.
    pub(crate) fn longest_array(&self) -> usize {
        let len = |items: Option<&[Value<'a>]>| items.map_or(0, <[_]>::len);
        len(self.before_array()).max(len(self.after_array()))
    }

    /// All keys of a map: from both values and from every mask (a key can exist only as
    /// unknown or sensitive).
    pub(crate) fn all_keys(&self) -> Vec<&'v str> {
        let mut keys = self.explicit_keys();
        let explicit = keys.len();
        keys.extend(self.unknown.keys());
        keys.extend(self.after_sensitive.keys());
        keys.extend(self.before_sensitive.keys());
        if keys.len() > explicit {
            keys.sort_unstable();
            keys.dedup();
        }
        keys
    }

    /// Keys present in the before or after value, sorted, each once.
    pub(crate) fn explicit_keys(&self) -> Vec<&'v str> {
        let keys = |members: Option<&'v [(std::borrow::Cow<'a, str>, Value<'a>)]>| {
            members.unwrap_or_default().iter().map(|(k, _)| k.as_ref())
        };
        // Object members are sorted and unique: merge the two lists.
        let mut before = keys(self.before_object()).peekable();
        let mut after = keys(self.after_object()).peekable();
        let mut out = Vec::with_capacity(before.len().max(after.len()));
        loop {
            let next = match (before.peek(), after.peek()) {
                (Some(b), Some(a)) => match crate::input::json::cmp_keys(b, a) {
                    std::cmp::Ordering::Less => before.next(),
                    std::cmp::Ordering::Greater => after.next(),
                    std::cmp::Ordering::Equal => {
                        after.next();
                        before.next()
                    }
                },
                (Some(_), None) => before.next(),
                (None, Some(_)) => after.next(),
                (None, None) => break,
            };
            out.extend(next);
        }
        out
    }
}

/// A child seen as unchanged when no relevant path reaches it.
fn relevant<'v, 'a>(child: Change<'v, 'a>) -> Change<'v, 'a> {
    if child.relevant.matches_partial() {
        child
    } else {
        child.as_noop()
    }
}

/// The children of one change, looked up by keys in strictly ascending (bytewise) order,
/// as schema attributes and merged key lists come: each side's sorted members are walked
/// once instead of binary-searched for every key.
pub(crate) struct Children<'c, 'v, 'a> {
    change: &'c Change<'v, 'a>,
    before: Walk<'v, 'a>,
    after: Walk<'v, 'a>,
    unknown: Walk<'v, 'a>,
    before_sensitive: Walk<'v, 'a>,
    after_sensitive: Walk<'v, 'a>,
}

impl<'v, 'a> Children<'_, 'v, 'a> {
    /// The child at `key` of an object or map; `key` must be greater than every key
    /// asked before.
    pub(crate) fn key(&mut self, key: &str) -> Change<'v, 'a> {
        let change = self.change;
        let (before, after) = (self.before.seek(key), self.after.seek(key));
        Change {
            before: before.and_then(non_null),
            after: after.and_then(non_null),
            before_explicit: before.is_some(),
            after_explicit: after.is_some(),
            unknown: mask_child(change.unknown, &mut self.unknown, key),
            before_sensitive: mask_child(change.before_sensitive, &mut self.before_sensitive, key),
            after_sensitive: mask_child(change.after_sensitive, &mut self.after_sensitive, key),
            replace: change.replace.key(key),
            relevant: change.relevant.key(key),
            non_legacy: change.non_legacy,
            pairing: change.pairing,
        }
    }

    /// The child at `key`, seen as unchanged when no relevant path reaches it; `key` must
    /// be greater than every key asked before.
    pub(crate) fn relevant_key(&mut self, key: &str) -> Change<'v, 'a> {
        relevant(self.key(key))
    }
}

/// The mask of member `key`, through a walker over the mask's members.
fn mask_child<'v, 'a>(mask: Mask<'v, 'a>, walk: &mut Walk<'v, 'a>, key: &str) -> Mask<'v, 'a> {
    match mask {
        Mask::Value(_) => walk.seek(key).map_or(Mask::Absent, Mask::from_value),
        Mask::Attributes(attrs) if attrs.contains_key(key) => Mask::True,
        _ => Mask::Absent,
    }
}

/// A position in an object's sorted members (empty for anything but an object).
struct Walk<'v, 'a> {
    members: &'v [(std::borrow::Cow<'a, str>, Value<'a>)],
    pos: usize,
}

impl<'v, 'a> Walk<'v, 'a> {
    fn of(value: Option<&'v Value<'a>>) -> Self {
        let members = match value {
            Some(Value::Object(members)) => members.as_slice(),
            _ => &[],
        };
        Walk { members, pos: 0 }
    }

    fn of_mask(mask: Mask<'v, 'a>) -> Self {
        match mask {
            Mask::Value(v) => Walk::of(Some(v)),
            _ => Walk::of(None),
        }
    }

    /// The member named `key`, which is greater than every key sought before.
    fn seek(&mut self, key: &str) -> Option<&'v Value<'a>> {
        let members = self.members;
        while let Some((k, v)) = members.get(self.pos) {
            match crate::input::json::cmp_keys(k, key) {
                std::cmp::Ordering::Less => self.pos += 1,
                std::cmp::Ordering::Equal => {
                    self.pos += 1;
                    return Some(v);
                }
                std::cmp::Ordering::Greater => return None,
            }
        }
        None
    }
}
