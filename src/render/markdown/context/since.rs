//! Markdown renderer, template context of "Since the last plan": what moved between the
//! comment this one replaces and this one, as the pipeline found it by comparing the
//! changes' digests with the previous comment's marker ([`Since`]), laid out for the
//! templates ([`SinceContext`]) and marked on the entries it names ([`Marks`]).
//!
//! Contract: the addresses are plan text, escaped by the templates like any other; the
//! lists are cut at [`LISTED`] each with the rest counted; a comparison that could not be
//! made is one sentence, never a list.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;

/// At most this many addresses are listed per kind (new, changed, gone); the rest are
/// counted.
pub(crate) const LISTED: usize = 10;

/// What the pipeline found comparing this comment's changes with the previous comment's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Since {
    /// The commit the previous comment planned (full), when its marker names one.
    pub(crate) commit: Option<String>,
    /// When the previous comment was rendered (RFC 3339), when its marker says.
    pub(crate) time: Option<String>,
    /// What moved.
    pub(crate) found: SinceFound,
}

/// What moved since the previous comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SinceFound {
    /// The changes are the same.
    Unchanged,
    /// The changes differ. Labels are addresses, `NAME: ADDRESS` when the comment has
    /// several plans.
    Moved {
        /// Changes the previous plan did not have.
        new: Vec<String>,
        /// Changes the previous plan made otherwise.
        changed: Vec<String>,
        /// The previous plan's changes no longer in this one, named.
        gone: Vec<String>,
        /// The previous plan's changes no longer in this one whose addresses neither
        /// plan nor the previous comment shows: how many.
        gone_unnamed: usize,
    },
    /// The comparison could not be made: why, in a sentence of our own words.
    NotCompared(String),
}

/// "Since the last plan": the line that opens a comment replacing an earlier one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SinceContext {
    /// `unchanged` (the same changes), `moved` (see `new`, `changed` and `gone`) or
    /// `not-compared` (see `reason`).
    pub(crate) status: String,
    /// The commit the previous comment planned (full SHA), when its marker names one.
    pub(crate) commit: Option<String>,
    /// Its first 7 characters.
    pub(crate) commit_short: Option<String>,
    /// When the previous comment was rendered (RFC 3339, UTC), when its marker says.
    pub(crate) time: Option<String>,
    /// Changes the previous plan did not have.
    pub(crate) new: SinceList,
    /// Changes the previous plan made otherwise.
    pub(crate) changed: SinceList,
    /// Changes of the previous plan no longer in this one, named from the addresses this
    /// plan knows or the previous comment showed whose hashes match the marker's.
    pub(crate) gone: SinceList,
    /// Changes of the previous plan no longer in this one that cannot be named: how many.
    pub(crate) gone_unnamed: usize,
    /// `not-compared`: why (a sentence); `null` otherwise.
    pub(crate) reason: Option<String>,
}

/// Addresses of one kind of move.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct SinceList {
    /// How many there are.
    pub(crate) count: usize,
    /// The first of them (at most 10), in the plan's order; `NAME: ADDRESS` when the
    /// comment has several plans.
    pub(crate) addresses: Vec<String>,
    /// How many more are counted only.
    pub(crate) more: usize,
}

impl SinceList {
    fn of(labels: &[String]) -> SinceList {
        SinceList {
            count: labels.len(),
            addresses: labels.iter().take(LISTED).cloned().collect(),
            more: labels.len().saturating_sub(LISTED),
        }
    }
}

/// The template context of `since`.
pub(crate) fn since_context(since: &Since) -> SinceContext {
    let mut context = SinceContext {
        status: "unchanged".to_string(),
        commit_short: since.commit.as_ref().map(|c| c.chars().take(7).collect()),
        commit: since.commit.clone(),
        time: since.time.clone(),
        new: SinceList::default(),
        changed: SinceList::default(),
        gone: SinceList::default(),
        gone_unnamed: 0,
        reason: None,
    };
    match &since.found {
        SinceFound::Unchanged => {}
        SinceFound::Moved {
            new,
            changed,
            gone,
            gone_unnamed,
        } => {
            context.status = "moved".to_string();
            context.new = SinceList::of(new);
            context.changed = SinceList::of(changed);
            context.gone = SinceList::of(gone);
            context.gone_unnamed = *gone_unnamed;
        }
        SinceFound::NotCompared(reason) => {
            context.status = "not-compared".to_string();
            context.reason = Some(reason.clone());
        }
    }
    context
}

/// What an entry is since the last plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    New,
    Changed,
}

/// The labels the comparison names new or changed, to mark the entries that show them.
pub(crate) struct Marks {
    marks: HashMap<String, Mark>,
    /// Labels carry the plan's name (`NAME: ADDRESS`): the comment has several plans.
    scoped: bool,
}

impl Marks {
    /// The marks of `since` in a comment of `plans` plans.
    pub(super) fn new(since: Option<&Since>, plans: usize) -> Marks {
        let mut marks = HashMap::new();
        if let Some(SinceFound::Moved { new, changed, .. }) = since.map(|s| &s.found) {
            marks.extend(new.iter().map(|l| (l.clone(), Mark::New)));
            marks.extend(changed.iter().map(|l| (l.clone(), Mark::Changed)));
        }
        Marks {
            marks,
            scoped: plans > 1,
        }
    }

    fn get(&self, plan: &str, address: &str) -> Option<Mark> {
        if self.marks.is_empty() {
            return None;
        }
        match self.scoped {
            true => self.marks.get(&format!("{plan}: {address}")).copied(),
            false => self.marks.get(address).copied(),
        }
    }

    /// What the entries at `addresses` of plan `plan` (one entry, or a look-alike group's)
    /// are since the last plan, in words: `new`, `changed`, or for a group how many of
    /// each (`2 new, 1 changed`); `None` when none moved.
    pub(crate) fn words<'a>(
        &self,
        plan: &str,
        addresses: impl IntoIterator<Item = &'a str>,
    ) -> Option<String> {
        let (mut new, mut changed, mut all) = (0, 0, 0);
        for address in addresses {
            all += 1;
            match self.get(plan, address) {
                Some(Mark::New) => new += 1,
                Some(Mark::Changed) => changed += 1,
                None => {}
            }
        }
        match (all, new, changed) {
            (_, 0, 0) => None,
            (1, 1, _) => Some("new".into()),
            (1, _, 1) => Some("changed".into()),
            (_, new, 0) => Some(format!("{new} new")),
            (_, 0, changed) => Some(format!("{changed} changed")),
            (_, new, changed) => Some(format!("{new} new, {changed} changed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(new: &[&str], changed: &[&str]) -> Since {
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Since {
            commit: None,
            time: None,
            found: SinceFound::Moved {
                new: labels(new),
                changed: labels(changed),
                gone: Vec::new(),
                gone_unnamed: 0,
            },
        }
    }

    #[test]
    fn entries_are_marked_by_their_address_and_groups_by_count() {
        let since = moved(&["a.x", "a.y"], &["a.z"]);
        let marks = Marks::new(Some(&since), 1);
        assert_eq!(marks.words("p", ["a.x"]), Some("new".into()));
        assert_eq!(marks.words("p", ["a.z"]), Some("changed".into()));
        assert_eq!(marks.words("p", ["a.w"]), None);
        assert_eq!(
            marks.words("p", ["a.x", "a.y", "a.w"]),
            Some("2 new".into())
        );
        assert_eq!(
            marks.words("p", ["a.x", "a.z"]),
            Some("1 new, 1 changed".into())
        );
        // With several plans, labels carry the plan's name.
        let since = moved(&["prod: a.x"], &[]);
        let marks = Marks::new(Some(&since), 2);
        assert_eq!(marks.words("prod", ["a.x"]), Some("new".into()));
        assert_eq!(marks.words("dev", ["a.x"]), None);
    }

    #[test]
    fn lists_are_cut_and_the_rest_counted() {
        let many: Vec<String> = (0..13).map(|i| format!("a.r[{i}]")).collect();
        let list = SinceList::of(&many);
        assert_eq!(
            (list.count, list.addresses.len(), list.more),
            (13, LISTED, 3)
        );
    }
}
