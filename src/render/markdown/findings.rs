//! Markdown renderer, findings grouped: policy findings (the Rego rules' results, the gates'
//! violations) of one rule whose messages differ only by a resource address of the plan
//! are shown once, with how many there are and their addresses.
//!
//! Contract: pure. Only an address the plan has counts as one (a message naming any other
//! string stays its own finding); every finding is in exactly one group; findings are in
//! natural order within a rule (`web[2]` before `web[10]`), groups in the order of their
//! first finding, and a group's addresses in natural order.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::diff::address::natural_cmp;

/// How many addresses of a group are listed before "and N more" (normally, and in the
/// counts-only form).
pub(crate) const ADDRESS_ITEMS: [usize; 2] = [50, 5];

/// The addresses of one plan, and how to find them in a message.
#[derive(Default)]
pub(crate) struct PlanAddresses {
    all: HashSet<String>,
    /// The distinct lengths of the addresses, longest first, by their first part (the text
    /// before the first `.`: `module`, `data` or a type): the candidates tried where a
    /// message may name one.
    lengths: HashMap<String, Vec<usize>>,
}

/// Characters that continue an address on either side, so that `web[1]` is not found
/// inside `web[10]` or `xnull_resource.a`.
fn continues(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '[')
}

impl PlanAddresses {
    /// The set of `addresses`.
    pub(crate) fn new<'a>(addresses: impl IntoIterator<Item = &'a str>) -> Self {
        let mut plan = PlanAddresses::default();
        for address in addresses {
            if !plan.all.insert(address.to_string()) {
                continue;
            }
            let head = address.split('.').next().unwrap_or(address);
            plan.lengths
                .entry(head.to_string())
                .or_default()
                .push(address.len());
        }
        for lengths in plan.lengths.values_mut() {
            lengths.sort_unstable_by(|a, b| b.cmp(a));
            lengths.dedup();
        }
        plan
    }

    /// The plan's addresses `message` names, each once, in the order they first appear;
    /// the longest wins where several start at one place.
    fn named_in<'m>(&self, message: &'m str) -> Vec<&'m str> {
        let mut found: Vec<&'m str> = Vec::new();
        for (at, len) in self.places(message) {
            let address = &message[at..at + len];
            if !found.contains(&address) {
                found.push(address);
            }
        }
        found
    }

    /// `message` in pieces, each an address of the plan (`true`) or other text.
    pub(crate) fn pieces<'m>(&self, message: &'m str) -> Vec<(&'m str, bool)> {
        let mut out = Vec::new();
        let mut from = 0;
        for (at, len) in self.places(message) {
            if at > from {
                out.push((&message[from..at], false));
            }
            out.push((&message[at..at + len], true));
            from = at + len;
        }
        if from < message.len() || out.is_empty() {
            out.push((&message[from..], false));
        }
        out
    }

    /// Where `message` names an address of the plan: (byte offset, length), in order.
    fn places(&self, message: &str) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        let mut previous: Option<char> = None;
        let mut skip_to = 0;
        for (i, c) in message.char_indices() {
            let at_start = previous.is_none_or(|p| !continues(p) && p != '.');
            previous = Some(c);
            if i < skip_to || !at_start || !c.is_ascii_alphabetic() {
                continue;
            }
            let rest = &message[i..];
            let head_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
                .unwrap_or(rest.len());
            let Some(lengths) = self.lengths.get(&rest[..head_end]) else {
                continue;
            };
            let hit = lengths.iter().find_map(|&n| {
                let candidate = rest.get(..n)?;
                let ends = rest[n..].chars().next().is_none_or(|c| !continues(c));
                (ends && self.all.contains(candidate)).then_some(candidate)
            });
            if let Some(address) = hit {
                skip_to = i + address.len();
                found.push((i, address.len()));
            }
        }
        found
    }
}

/// One finding as grouping reads it.
pub(crate) struct Item<'a> {
    /// What two findings of one group share besides their message: the rule (and its
    /// package, or the plan's name).
    pub(crate) rule: String,
    /// The message (the gates': what happens to the address).
    pub(crate) message: &'a str,
    /// The resource the finding names apart from its message, if any.
    pub(crate) resource: Option<&'a str>,
}

/// Findings shown as one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Group {
    /// The findings (indices of the items), in natural order of their addresses: the
    /// first stands for the group.
    pub(crate) members: Vec<usize>,
    /// The addresses the messages differ by, in natural order; empty for a finding that
    /// names none (or names several: it stays alone).
    pub(crate) addresses: Vec<String>,
}

impl Group {
    /// The first addresses to list (`tight`: the counts-only form); none for a finding
    /// alone, whose address, if any, is said with it.
    pub(crate) fn listed(&self, tight: usize) -> Vec<String> {
        if self.members.len() < 2 {
            return Vec::new();
        }
        let shown = ADDRESS_ITEMS[tight].min(self.addresses.len());
        self.addresses[..shown].to_vec()
    }
}

/// The address `item` varies by: its resource when the plan has it, else the one address
/// of the plan its message names (none when it names several, or its resource is another
/// string).
fn varying<'a>(item: &Item<'a>, plan: &PlanAddresses) -> Option<&'a str> {
    match item.resource {
        Some(resource) => plan.all.contains(resource).then_some(resource),
        None => match plan.named_in(item.message)[..] {
            [one] => Some(one),
            _ => None,
        },
    }
}

/// `message` in pieces around each place it names `address` (as
/// [`PlanAddresses::named_in`] finds it): two messages with the same pieces differ only by
/// the address.
fn pieces<'m>(message: &'m str, address: &str) -> Vec<&'m str> {
    let mut out = Vec::new();
    let (mut piece, mut from) = (0, 0);
    while let Some(found) = message[from..].find(address) {
        let (at, end) = (from + found, from + found + address.len());
        let before = message[..at].chars().next_back();
        let after = message[end..].chars().next();
        if before.is_none_or(|p| !continues(p) && p != '.') && after.is_none_or(|c| !continues(c)) {
            out.push(&message[piece..at]);
            piece = end;
        }
        from = end;
    }
    out.push(&message[piece..]);
    out
}

fn natural_option(a: Option<&str>, b: Option<&str>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => natural_cmp(a, b),
        _ => a.is_some().cmp(&b.is_some()),
    }
}

/// `items` grouped: one group per rule and message (its pieces around the address it
/// varies by), in the order the rules first appear, then natural order.
pub(crate) fn group(items: &[Item<'_>], plan: &PlanAddresses) -> Vec<Group> {
    let mut rule_rank: HashMap<&str, usize> = HashMap::new();
    for item in items {
        let next = rule_rank.len();
        rule_rank.entry(item.rule.as_str()).or_insert(next);
    }
    let varying: Vec<Option<&str>> = items.iter().map(|i| varying(i, plan)).collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&items[a], &items[b]);
        rule_rank[x.rule.as_str()]
            .cmp(&rule_rank[y.rule.as_str()])
            .then_with(|| natural_cmp(x.message, y.message))
            .then_with(|| natural_option(x.resource, y.resource))
    });
    // (rule, the message's pieces around its address, the resource when it is not an
    // address that varies, whether it is) → group.
    type Key<'k> = (&'k str, Vec<&'k str>, Option<&'k str>, bool);
    let mut index: HashMap<Key<'_>, usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for i in order {
        let item = &items[i];
        let key = match varying[i] {
            Some(address) => (
                item.rule.as_str(),
                pieces(item.message, address),
                None,
                true,
            ),
            None => (item.rule.as_str(), vec![item.message], item.resource, false),
        };
        let next = groups.len();
        let g = *index.entry(key).or_insert(next);
        if g == next {
            groups.push(Group::default());
        }
        groups[g].members.push(i);
        if let Some(address) = varying[i] {
            groups[g].addresses.push(address.to_string());
        }
    }
    for g in &mut groups {
        g.members
            .sort_by(|&a, &b| natural_option(varying[a], varying[b]));
        g.addresses.sort_by(|a, b| natural_cmp(a, b));
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(message: &'a str, resource: Option<&'a str>) -> Item<'a> {
        Item {
            rule: "main.warn".into(),
            message,
            resource,
        }
    }

    #[test]
    fn messages_differing_by_an_address_of_the_plan_are_one_group() {
        let names: Vec<String> = (0..12).map(|i| format!("null_resource.web[{i}]")).collect();
        let plan = PlanAddresses::new(names.iter().map(String::as_str));
        let messages: Vec<String> = names
            .iter()
            .map(|n| format!("{n}: replacing a dev instance"))
            .collect();
        let items: Vec<Item<'_>> = messages.iter().map(|m| item(m, None)).collect();
        let groups = group(&items, &plan);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].addresses[..3], names[..3], "natural order");
        assert_eq!(groups[0].members[..3], [0, 1, 2]);
        assert_eq!(groups[0].addresses.len(), 12);
    }

    #[test]
    fn other_strings_and_several_addresses_stay_alone() {
        let plan = PlanAddresses::new(["a.x[1]", "a.x[10]", "a.y"]);
        let items = [
            item("a.x[1] is bad", None),
            item("a.x[10] is bad", None),
            item("a.z is bad", None),
            item("a.w is bad", None),
            item("a.x[1] needs a.y", None),
            item("a.x[10] needs a.y", None),
            item("same words", Some("a.gone")),
            item("same words", Some("a.gone2")),
            item("same words", Some("a.y")),
        ];
        let groups = group(&items, &plan);
        let sizes: Vec<usize> = groups.iter().map(|g| g.members.len()).collect();
        // Natural order: `a.w`, `a.x[…] is bad`, `a.x[1] needs`, `a.x[10] needs`, `a.z`,
        // then "same words" by resource.
        assert_eq!(sizes, [1, 2, 1, 1, 1, 1, 1, 1], "{groups:?}");
        assert_eq!(groups[0].members, [3]);
        let pair = groups.iter().find(|g| g.members.len() == 2).unwrap();
        assert_eq!(pair.addresses, ["a.x[1]", "a.x[10]"]);
    }

    #[test]
    fn addresses_are_found_whole() {
        let plan = PlanAddresses::new(["n.web[1]", "n.web[10]", "n.a"]);
        assert_eq!(
            plan.named_in("n.web[10] and n.web[1]."),
            ["n.web[10]", "n.web[1]"]
        );
        assert!(plan.named_in("xn.a n.ab n.a_b n.web[1]0 m.n.a").is_empty());
        assert_eq!(pieces("n.a, xn.a, n.a.", "n.a"), ["", ", xn.a, ", "."]);
        assert_eq!(
            plan.pieces("see n.a, xn.a and n.web[1]"),
            [
                ("see ", false),
                ("n.a", true),
                (", xn.a and ", false),
                ("n.web[1]", true)
            ]
        );
        assert_eq!(plan.pieces(""), [("", false)]);
    }
}
