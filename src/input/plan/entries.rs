//! Plan model: `resource_changes` (and `resource_drift`) entries kept small between
//! parsing and diffing.
//!
//! Each entry keeps what every renderer reads up front (address, type, actions and a few
//! flags) and is read again in full from the plan text when it is diffed
//! ([`super::Plan::read_change`], in one pass of the value parser), from where its object
//! starts, found from its address or type (borrowed from the text: `for_each` keys put
//! escaped quotes in addresses, which are then decoded copies). Holding every change as
//! read (some 400 bytes each, besides the text they borrow from) would cost a
//! 100,000-change plan 40 MB; only a change neither way can find is kept. The parse still
//! checks each change in full, so a malformed one fails there, named.

use serde::{Deserialize, Deserializer};

use super::actions::ResourceAction;
use super::model::{ResourceChange, Str};
use super::parsed::ParsedChange;
use super::reread::{self, ReadChange};
use crate::input::json::ParseError;

/// One of a plan's lists of resource changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ChangeList {
    /// `resource_changes`: the planned changes.
    Changes,
    /// `resource_drift`: the changes detected outside Terraform.
    Drift,
}

/// One `resource_changes` entry (see the module documentation).
#[derive(Debug)]
pub(crate) struct ChangeEntry<'a> {
    /// Full instance address; borrowed from the plan text, it locates the change there.
    pub(crate) address: Str<'a>,
    /// Resource type; borrowed from the plan text, it locates the change there too.
    pub(crate) type_: Str<'a>,
    /// The planned actions.
    pub(crate) action: ResourceAction,
    /// A data source (`mode` is `data`).
    pub(crate) data_source: bool,
    /// Moving from another address (`previous_address` differs).
    pub(crate) moved: bool,
    /// Being imported.
    pub(crate) importing: bool,
    /// Its address was rebuilt (a drift entry from Terraform 0.15.4–1.0.8), without an
    /// instance key when `Some(true)`: the change is kept as read, with that address.
    rebuilt: Option<bool>,
    /// Where it is read again from.
    place: Place<'a>,
}

/// Where a change is read again from.
#[derive(Debug)]
enum Place<'a> {
    /// The object holding the entry's address, borrowed from the plan text.
    Address,
    /// The object holding the entry's type, borrowed from the plan text (its address has
    /// escapes, so it is a decoded copy that is no place in the text).
    Type,
    /// Nowhere: the change is kept as read (neither is borrowed, or the address was
    /// rebuilt).
    Kept(Box<ResourceChange<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for ChangeEntry<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let change = ResourceChange::deserialize(deserializer)?;
        Ok(ChangeEntry::new(change))
    }
}

impl<'a> ChangeEntry<'a> {
    fn new(mut change: ResourceChange<'a>) -> Self {
        let rebuilt = change
            .address
            .is_empty()
            .then(|| super::address::rebuild(&mut change));
        let moved = change
            .previous_address
            .as_deref()
            .is_some_and(|previous| previous != change.address);
        let (action, data_source) = (change.change.action, change.mode == "data");
        let importing = change.change.importing.is_some();
        // A rebuilt address is nowhere in the text.
        let place = match (&change.address, &change.type_) {
            _ if rebuilt.is_some() => None,
            (Str::Borrowed(_), _) => Some(Place::Address),
            (_, Str::Borrowed(_)) => Some(Place::Type),
            _ => None,
        };
        // No place in the text known: kept. Its instance key is written as a change read
        // again writes it, so that a plan reads the same whether its changes are kept or
        // read again (a string key's escapes decoded: `"k\u00e9"` is `"ké"`).
        let place = place.unwrap_or_else(|| {
            change.index = change.index.take().map(reread::key_text);
            Place::Kept(Box::new(change.clone()))
        });
        ChangeEntry {
            address: change.address,
            type_: change.type_,
            action,
            data_source,
            moved,
            importing,
            rebuilt,
            place,
        }
    }

    /// Its address was rebuilt without the instance key (see [`super::address`]).
    pub(super) fn key_unknown(&self) -> bool {
        self.rebuilt == Some(true)
    }

    /// Gives an entry whose address was rebuilt the address settled for it.
    pub(super) fn set_address(&mut self, address: String) {
        if let Place::Kept(kept) = &mut self.place {
            kept.address = Str::Owned(address.clone());
        }
        self.address = Str::Owned(address);
        self.rebuilt = Some(false);
    }

    /// Where the change's object starts in `text` (the plan text it was parsed from), or
    /// `Err` with the change kept as read. `None` if `text` is not that text.
    fn start(&self, text: &str) -> Option<Result<usize, &ResourceChange<'a>>> {
        let anchor = match &self.place {
            Place::Kept(kept) => return Some(Err(kept)),
            Place::Address => &self.address,
            Place::Type => &self.type_,
        };
        let anchor = (anchor.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        Some(Ok(crate::input::json::object_start(
            text.as_bytes(),
            anchor,
        )?))
    }

    /// Is `change`, read from the object found, this entry's? (The very string it was
    /// found from.)
    fn is_own(&self, change: &ResourceChange<'_>) -> bool {
        match self.place {
            Place::Address => change.address.as_ptr() == self.address.as_ptr(),
            Place::Type => change.type_.as_ptr() == self.type_.as_ptr(),
            Place::Kept(_) => false,
        }
    }

    /// The change in full, read again from `text` (the plan text it was parsed from) or
    /// the one kept, with its values parsed. `None` if `text` is not that text.
    pub(super) fn read(&self, text: &'a str) -> Option<Result<ReadChange<'a>, ParseError>> {
        let start = match self.start(text)? {
            Ok(start) => start,
            Err(kept) => {
                let change = kept.clone();
                let values = ParsedChange::parse(&change.change);
                return Some(values.map(|values| ReadChange { change, values }));
            }
        };
        let read = match reread::read(text.get(start..)?) {
            Ok(read) => read?,
            Err(err) => return Some(Err(err)),
        };
        // The object found must be the one whose address this entry holds.
        self.is_own(&read.change).then_some(Ok(read))
    }

    /// The names in the change's `actions` list, read again from `text` (the plan text it
    /// was parsed from): what a list planmark does not know holds. `None` when the change
    /// was kept as read (its names are gone) or cannot be found.
    pub(super) fn action_names(&self, text: &'a str) -> Option<Vec<String>> {
        #[derive(Deserialize)]
        struct Actions {
            #[serde(default)]
            actions: Vec<String>,
        }
        #[derive(Deserialize)]
        struct Entry {
            change: Actions,
        }
        let start = self.start(text)?.ok()?;
        let mut de = serde_json::Deserializer::from_str(text.get(start..)?);
        Some(Entry::deserialize(&mut de).ok()?.change.actions)
    }

    /// The change's members, read again by serde from `text` (its values only checked and
    /// kept as text), its instance key written as [`Self::read`] writes it. `None` if
    /// `text` is not the plan text.
    pub(super) fn read_members(&self, text: &'a str) -> Option<ResourceChange<'a>> {
        let start = match self.start(text)? {
            Ok(start) => start,
            Err(kept) => return Some(kept.clone()),
        };
        let mut de = serde_json::Deserializer::from_str(text.get(start..)?);
        let mut change = ResourceChange::deserialize(&mut de).ok()?;
        change.index = change.index.map(reread::key_text);
        self.is_own(&change).then_some(change)
    }
}

#[cfg(test)]
mod tests {
    use super::ChangeList::{Changes, Drift};
    use super::*;
    use std::borrow::Cow;

    const PLAN: &str = r#"{"format_version":"1.2","resource_changes":[
        {"address":"a.x","mode":"managed","type":"a","name":"x","provider_name":"p",
         "change":{"actions":["create"],"before":null,"after":{"v":"}{\"]["}}},
        {"mode":"data","type":"b","name":"y","provider_name":"p","index":"\\u0041b","index_unknown":true,
         "module_address":"module.m","deposed":"dep1","action_reason":"read_because_config_unknown",
         "future_member":{"x":[1,"]"]},
         "change":{"actions":["read"],"before":{"w":0},"after":{"w":[1,{"q":"\\"}]},
           "after_unknown":{"w":[false,{"q":false}]},"before_sensitive":false,
           "after_sensitive":{"w":[false,{"q":true}]},"replace_paths":[["w"]],
           "importing":{"unknown":true},"generated_config":"x = 1","future":1},
         "address":"data.b.y[0]"},
        {"address":"c.z[\"k\"]","previous_address":"c.old","mode":"managed","type":"c","name":"z",
         "provider_name":"p","change":{"actions":["delete","create"],"importing":{"id":"i"}}}
    ]}"#;

    #[test]
    fn every_change_reads_again_as_it_was_read() {
        let plan = crate::input::plan::parse_plan("plan.json", PLAN.as_bytes()).unwrap();
        #[derive(serde::Deserialize)]
        struct Full<'a> {
            #[serde(borrow)]
            resource_changes: Vec<ResourceChange<'a>>,
        }
        let full: Full = serde_json::from_str(PLAN).unwrap();
        assert_eq!(full.resource_changes.len(), 3);
        for (i, expected) in full.resource_changes.iter().enumerate() {
            let read = plan.read_change(Changes, i).unwrap().unwrap();
            let (change, entry) = (&read.change, &plan.resource_changes[i]);
            // Every member the serde parse reads, the same (the value members parsed).
            // Every member as the serde parse reads it, the values parsed instead of kept
            // as text, and a string key written again (perhaps escaped differently).
            let mut expected_members = expected.clone();
            let c = &mut expected_members.change;
            (c.before, c.after, c.after_unknown) = (None, None, None);
            (c.before_sensitive, c.after_sensitive, c.replace_paths) = (None, None, None);
            let index = |text: Option<&str>| {
                text.map(|t| serde_json::from_str::<serde_json::Value>(t).unwrap())
            };
            assert_eq!(
                index(change.index.as_deref()),
                index(expected.index.as_deref())
            );
            let mut read_members = change.clone();
            read_members.index = expected.index.clone();
            assert_eq!(
                format!("{read_members:?}"),
                format!("{expected_members:?}"),
                "change {i}"
            );
            let values = ParsedChange::parse(&expected.change).unwrap();
            assert_eq!(
                format!("{:?}", read.values),
                format!("{values:?}"),
                "change {i}"
            );
            assert_eq!(entry.address, change.address);
            assert_eq!(entry.type_, change.type_);
            assert_eq!(entry.action, change.change.action);
            // Its members read without parsing its values: the same (values aside), the
            // instance key written the same way.
            let mut members = plan.read_members(Changes, i).unwrap();
            let c = &mut members.change;
            (c.before, c.after, c.after_unknown) = (None, None, None);
            (c.before_sensitive, c.after_sensitive, c.replace_paths) = (None, None, None);
            assert_eq!(format!("{members:?}"), format!("{change:?}"), "change {i}");
        }
        assert!(plan.read_members(Changes, 3).is_none());
        let [a, b, c] = [0, 1, 2].map(|i| &plan.resource_changes[i]);
        assert!(!a.data_source && b.data_source && !c.data_source);
        assert!(!a.moved && !b.moved && c.moved);
        assert!(!a.importing && b.importing && c.importing);
        let actions = [a, b, c].map(|e| e.action);
        assert_eq!(
            actions,
            [
                ResourceAction::Create,
                ResourceAction::Read,
                ResourceAction::DeleteThenCreate
            ]
        );
        // The escaped address is a decoded copy, no place in the text: that change is
        // found from its type.
        assert!(matches!(a.place, Place::Address) && matches!(b.place, Place::Address));
        assert!(matches!(c.place, Place::Type));
        assert!(plan.read_change(Changes, 3).is_none());
    }

    #[test]
    fn drift_entries_read_again_as_changes_do() {
        // `resource_drift` is kept as small as `resource_changes`: the same list under
        // either name reads again the same, the escaped address found from its type.
        let changes = crate::input::plan::parse_plan("plan.json", PLAN.as_bytes()).unwrap();
        let drift_json = PLAN.replace("\"resource_changes\"", "\"resource_drift\"");
        let drift = crate::input::plan::parse_plan("plan.json", drift_json.as_bytes()).unwrap();
        assert!(drift.resource_changes.is_empty());
        assert_eq!(drift.resource_drift.len(), 3);
        for i in 0..3 {
            let as_change = changes.read_change(Changes, i).unwrap().unwrap();
            let as_drift = drift.read_change(Drift, i).unwrap().unwrap();
            assert_eq!(
                format!("{as_drift:?}"),
                format!("{as_change:?}"),
                "entry {i}"
            );
        }
        let places = drift.resource_drift.iter().map(|e| &e.place);
        let by_type: Vec<bool> = places.map(|p| matches!(p, Place::Type)).collect();
        assert_eq!(by_type, [false, false, true]);
        assert!(drift.read_change(Drift, 3).is_none());
    }

    #[test]
    fn strings_borrow_from_the_input() {
        // serde copies strings it could borrow unless a field's type is spelt `Cow<'a, str>`:
        // a copy of every address, type and name doubled a huge plan's memory.
        let plan = crate::input::plan::parse_plan("plan.json", PLAN.as_bytes()).unwrap();
        let borrowed = |s: &Cow<'_, str>| matches!(s, Cow::Borrowed(_));
        let entry = &plan.resource_changes[0];
        assert!(borrowed(&entry.address) && borrowed(&entry.type_));
        assert!(plan.format_version.as_ref().is_some_and(borrowed));
        // Read again, in full.
        let change = plan.read_change(Changes, 0).unwrap().unwrap().change;
        assert!(borrowed(&change.address) && borrowed(&change.mode) && borrowed(&change.type_));
        assert!(borrowed(&change.name) && borrowed(&change.provider_name));
        let moved = plan.read_change(Changes, 2).unwrap().unwrap().change;
        assert!(moved.previous_address.as_ref().is_some_and(borrowed));
        assert!(!borrowed(&moved.address), "escaped: decoded into a copy");
    }
}
