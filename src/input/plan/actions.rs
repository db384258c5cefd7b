//! Plan model: a change's `actions` list, read straight into a [`ResourceAction`].
//!
//! Every resource change has one, so it is read without allocating: the names are
//! borrowed while they are matched, and the known lists become one byte.

use std::borrow::Cow;
use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// The actions Terraform plans for one resource instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ResourceAction {
    /// Nothing (shown only when moved or imported).
    NoOp,
    /// Create.
    Create,
    /// Read a data source during apply.
    Read,
    /// Update in place.
    Update,
    /// Destroy then create a replacement.
    DeleteThenCreate,
    /// Create a replacement then destroy.
    CreateThenDelete,
    /// Destroy.
    Delete,
    /// Remove from state without destroying.
    Forget,
    /// Create a replacement and forget the old object.
    CreateThenForget,
    /// OpenTofu opens an ephemeral resource (`["open"]`, mode `ephemeral`): nothing is
    /// kept or changed, and OpenTofu does not show it.
    Open,
    /// An action list this version does not know (or none): shown as `?`, as nothing
    /// can be said about what it does. A missing `actions` list says nothing either.
    #[default]
    Unsupported,
}

impl ResourceAction {
    /// The action of a list of `len` names starting with `first` and `second`.
    pub(crate) fn from_parts(len: usize, first: Option<&str>, second: Option<&str>) -> Self {
        match (len, first, second) {
            (1, Some("no-op"), _) => ResourceAction::NoOp,
            (1, Some("create"), _) => ResourceAction::Create,
            (1, Some("read"), _) => ResourceAction::Read,
            (1, Some("update"), _) => ResourceAction::Update,
            (2, Some("delete"), Some("create")) => ResourceAction::DeleteThenCreate,
            (2, Some("create"), Some("delete")) => ResourceAction::CreateThenDelete,
            (1, Some("delete"), _) => ResourceAction::Delete,
            (1, Some("forget"), _) => ResourceAction::Forget,
            (2, Some("create"), Some("forget")) => ResourceAction::CreateThenForget,
            (1, Some("open"), _) => ResourceAction::Open,
            _ => ResourceAction::Unsupported,
        }
    }

    /// Is this a replacement (an old object goes, a new one comes)?
    pub(crate) fn is_replace(&self) -> bool {
        matches!(
            self,
            ResourceAction::DeleteThenCreate
                | ResourceAction::CreateThenDelete
                | ResourceAction::CreateThenForget
        )
    }
}

/// An action name, borrowed from the plan text unless it has escapes.
#[derive(Deserialize)]
struct Name<'a>(#[serde(borrow)] Cow<'a, str>);

impl<'de> Deserialize<'de> for ResourceAction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = ResourceAction;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of action names")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // Only the first two names and the length matter; every element must
                // still be a string, as the format says.
                let mut names: [Option<Name<'de>>; 2] = [None, None];
                let mut len = 0;
                while let Some(name) = seq.next_element::<Name<'de>>()? {
                    if let Some(slot) = names.get_mut(len) {
                        *slot = Some(name);
                    }
                    len += 1;
                }
                let [first, second] = names;
                Ok(ResourceAction::from_parts(
                    len,
                    first.as_ref().map(|n| &*n.0),
                    second.as_ref().map(|n| &*n.0),
                ))
            }
        }
        deserializer.deserialize_seq(List)
    }
}

#[cfg(test)]
mod tests {
    use super::ResourceAction as A;

    const CASES: [(&[&str], A); 13] = [
        (&["no-op"], A::NoOp),
        (&["create"], A::Create),
        (&["read"], A::Read),
        (&["update"], A::Update),
        (&["delete", "create"], A::DeleteThenCreate),
        (&["create", "delete"], A::CreateThenDelete),
        (&["delete"], A::Delete),
        (&["forget"], A::Forget),
        (&["create", "forget"], A::CreateThenForget),
        (&["open"], A::Open),
        (&[], A::Unsupported),
        (&["create", "delete", "x"], A::Unsupported),
        (&["delete", "update"], A::Unsupported),
    ];

    #[test]
    fn action_lists_read_from_json() {
        for (list, expected) in CASES {
            let json = serde_json::to_string(list).unwrap();
            assert_eq!(
                serde_json::from_str::<A>(&json).unwrap(),
                expected,
                "{json}"
            );
        }
        // Escaped names are decoded before they are matched.
        let escaped: A = serde_json::from_str(r#"["cre\u0061te"]"#).unwrap();
        assert_eq!(escaped, A::Create);
        for bad in [r#"["create", 1]"#, r#""create""#, "null", "{}"] {
            assert!(serde_json::from_str::<A>(bad).is_err(), "{bad}");
        }
    }
}
