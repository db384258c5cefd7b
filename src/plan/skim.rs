//! Plan model: a `resource_changes` element's entry read by skimming it, its syntax
//! checked on the way.
//!
//! The parallel parse reads the document's lists element by element on every core.
//! Reading each element with serde's typed deserializer cost more than twice serde's
//! syntax check of the same text; skimming it costs about that check. [`entry`] finds an
//! element's members by skipping values (checking their syntax as serde's `IgnoredAny`
//! does: [`super::syntax`]) and reads only what an entry keeps.
//!
//! It is exact by refusing: an element is skimmed only when it is plain (no key has
//! escapes, no string that serde would decode has a `\u` escape — serde's syntax check
//! lets a lone surrogate by, its typed read refuses it —, no known member is repeated,
//! every known member has the JSON type the model takes); anything else gives `None`, and
//! the caller reads that element with serde, which makes the entry or names the error. So
//! a skimmed entry is the one serde would have made, and an element that is not valid JSON
//! is never skimmed.

use memchr::memmem;

use super::actions::ResourceAction;
use super::entries::ChangeEntry;
use super::model::Str;
use super::syntax;
use crate::value::{decode_letter_escapes, plain_string_end};

/// The entry of the element whose `{` is at `at`, and the offset just past its `}`;
/// `None` when it is not plain (see the module documentation).
pub(super) fn entry(text: &str, at: usize) -> Option<(ChangeEntry<'_>, usize)> {
    let mut skim = Skim {
        text,
        bytes: text.as_bytes(),
        pos: at,
    };
    let mut seen = Seen::default();
    let (mut address, mut previous, mut mode, mut type_) = (None, None, None, None);
    let mut change = None;
    skim.object(|skim, key| {
        match key {
            "address" => address = Some(skim.once(&mut seen, 0)?.decoded()?),
            "previous_address" => previous = skim.once(&mut seen, 1)?.decoded_or_null()?,
            "mode" => mode = Some(skim.once(&mut seen, 2)?.decoded()?),
            "type" => type_ = Some(skim.once(&mut seen, 3)?.decoded()?),
            "module_address" => skim.once(&mut seen, 4)?.string_or_null()?,
            "deposed" => skim.once(&mut seen, 5)?.string_or_null()?,
            "action_reason" => skim.once(&mut seen, 6)?.string_or_null()?,
            "name" => skim.once(&mut seen, 7)?.string()?,
            "provider_name" => skim.once(&mut seen, 8)?.string()?,
            "index" => skim.once(&mut seen, 9)?.value()?,
            "index_unknown" => skim.once(&mut seen, 10)?.boolean()?,
            "change" => change = Some(skim.once(&mut seen, 11)?.change()?),
            _ => skim.value()?,
        }
        Some(())
    })?;
    let (address, (action, importing)) = (address?, change?);
    let moved = previous.is_some_and(|previous| previous != address);
    let flags = (mode.as_deref() == Some("data"), moved, importing);
    let entry = ChangeEntry::at(at, (address, type_.unwrap_or_default()), action, flags);
    Some((entry, skim.pos))
}

/// Which known members of an object were read (bit `n` for the `n`th).
#[derive(Default)]
struct Seen(u32);

/// A position in a text assumed to be valid JSON.
struct Skim<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Skim<'a> {
    /// Itself, after marking member `bit` read; `None` if it was already (serde refuses
    /// a repeated member).
    fn once(&mut self, seen: &mut Seen, bit: u32) -> Option<&mut Self> {
        let mask = 1 << bit;
        if seen.0 & mask != 0 {
            return None;
        }
        seen.0 |= mask;
        Some(self)
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next byte after whitespace (not consumed).
    fn peek(&mut self) -> Option<u8> {
        self.space();
        self.bytes.get(self.pos).copied()
    }

    /// Consumes `byte`, the next after whitespace.
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// The object here, each member's key handed to `member`, which reads its value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.expect(b'{')?;
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        loop {
            let key = self.plain_string()?;
            self.expect(b':')?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string without escapes, borrowed.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.pos;
        let end = plain_string_end(self.bytes, start)?;
        self.pos = end + 1;
        self.text.get(start..end)
    }

    /// A string, decoded: borrowed when it has no escapes. One with a `\u` escape is
    /// left to serde (`None`: decoding it here would make a lone surrogate U+FFFD where
    /// serde refuses it).
    fn decoded(&mut self) -> Option<Str<'a>> {
        self.expect(b'"')?;
        let start = self.pos;
        if let Some(end) = plain_string_end(self.bytes, start) {
            self.pos = end + 1;
            return self.text.get(start..end).map(Str::Borrowed);
        }
        // `for_each` keys put escaped quotes in addresses: decoded in one pass.
        let (decoded, end) = decode_letter_escapes(self.text, start)?;
        self.pos = end;
        Some(Str::Owned(decoded))
    }

    /// `null` (`None`) or a string, decoded.
    fn decoded_or_null(&mut self) -> Option<Option<Str<'a>>> {
        match self.peek()? {
            b'n' => self.null().map(|()| None),
            _ => self.decoded().map(Some),
        }
    }

    /// A string serde decodes (into a member the model keeps), skipped; `None` if it has
    /// a `\u` escape: serde refuses a lone surrogate there, which its syntax check (of a
    /// value it skips) lets by.
    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        let start = self.pos;
        self.pos = syntax::string_end(self.bytes, start)?;
        // A `\u` that is not an escape (an escaped backslash before a `u`) is left to
        // serde too: it costs only time, and never happens in Terraform's output.
        memmem::find(&self.bytes[start..self.pos], b"\\u")
            .is_none()
            .then_some(())
    }

    /// `null` or a string serde decodes.
    fn string_or_null(&mut self) -> Option<()> {
        match self.peek()? {
            b'n' => self.null(),
            _ => self.string(),
        }
    }

    fn null(&mut self) -> Option<()> {
        self.literal("null")
    }

    /// `true` or `false` (serde's `bool` takes nothing else, not even `null`).
    fn boolean(&mut self) -> Option<()> {
        match self.peek()? {
            b't' => self.literal("true"),
            _ => self.literal("false"),
        }
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        self.peek()?;
        let found = self.bytes.get(self.pos..)?.starts_with(word.as_bytes());
        found.then(|| self.pos += word.len())
    }

    /// Any value, skipped (its syntax checked).
    fn value(&mut self) -> Option<()> {
        self.pos = syntax::value_end(self.bytes, self.pos)?;
        Some(())
    }

    /// A `change` object: its action, and whether it imports.
    fn change(&mut self) -> Option<(ResourceAction, bool)> {
        let mut seen = Seen::default();
        let (mut action, mut importing) = (ResourceAction::Unsupported, false);
        self.object(|skim, key| {
            match key {
                "actions" => action = skim.once(&mut seen, 0)?.actions()?,
                "importing" => importing = skim.once(&mut seen, 1)?.importing()?,
                "generated_config" => skim.once(&mut seen, 2)?.string_or_null()?,
                "before" => skim.once(&mut seen, 3)?.value()?,
                "after" => skim.once(&mut seen, 4)?.value()?,
                "after_unknown" => skim.once(&mut seen, 5)?.value()?,
                "before_sensitive" => skim.once(&mut seen, 6)?.value()?,
                "after_sensitive" => skim.once(&mut seen, 7)?.value()?,
                "replace_paths" => skim.once(&mut seen, 8)?.value()?,
                _ => skim.value()?,
            }
            Some(())
        })?;
        Some((action, importing))
    }

    /// An `actions` list of names without escapes.
    fn actions(&mut self) -> Option<ResourceAction> {
        self.expect(b'[')?;
        let (mut names, mut len) = ([None, None], 0);
        if self.peek()? == b']' {
            self.pos += 1;
        } else {
            loop {
                let name = self.plain_string()?;
                if let Some(slot) = names.get_mut(len) {
                    *slot = Some(name);
                }
                len += 1;
                match self.peek()? {
                    b',' => self.pos += 1,
                    b']' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        Some(ResourceAction::from_parts(len, names[0], names[1]))
    }

    /// An `importing` member: `null` (false) or an object (true) whose `id` is a string
    /// or `null` and whose `unknown` is a boolean.
    fn importing(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            return self.null().map(|()| false);
        }
        let mut seen = Seen::default();
        self.object(|skim, key| match key {
            "id" => skim.once(&mut seen, 0)?.string_or_null(),
            "unknown" => skim.once(&mut seen, 1)?.boolean(),
            _ => skim.value(),
        })?;
        Some(true)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::value::RawValue;

    use super::*;

    /// The element at `at` read by serde, as [`entry`] gives it (its `Debug`, its end).
    fn by_serde(text: &str, at: usize) -> Option<(String, usize)> {
        let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter();
        let entry: ChangeEntry = stream.next()?.ok()?;
        // Read element by element, it is located as a skimmed one is.
        let entry = entry.located(at);
        Some((format!("{entry:?}"), at + stream.byte_offset()))
    }

    fn skimmed(text: &str, at: usize) -> Option<(String, usize)> {
        entry(text, at).map(|(entry, end)| (format!("{entry:?}"), end))
    }

    /// Where the `resource_changes` elements of a plan start.
    fn elements(text: &str) -> Vec<usize> {
        #[derive(Deserialize)]
        struct Document<'a> {
            #[serde(borrow, default)]
            resource_changes: Option<&'a RawValue>,
        }
        let document: Document = serde_json::from_str(text).expect("a plan");
        let Some(list) = document.resource_changes else {
            return Vec::new();
        };
        let items: Vec<&RawValue> = serde_json::from_str(list.get()).expect("a list");
        let base = text.as_ptr() as usize;
        items
            .iter()
            .map(|raw| raw.get().as_ptr() as usize - base)
            .collect()
    }

    #[test]
    fn real_changes_skim_to_the_entries_serde_reads() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-plans");
        let (mut skims, mut all) = (0, 0);
        for plan in std::fs::read_dir(dir).expect("the real plans").flatten() {
            let Ok(text) = std::fs::read_to_string(plan.path().join("plan.json")) else {
                continue;
            };
            for at in elements(&text) {
                let expected = by_serde(&text, at).expect("real changes read");
                if let Some(skimmed) = skimmed(&text, at) {
                    assert_eq!(skimmed, expected, "{}", plan.path().display());
                    skims += 1;
                }
                all += 1;
            }
        }
        // Every change of Terraform's is skimmed, `for_each` keys (quotes escaped in the
        // address) included.
        assert!(all >= 30 && skims == all, "{skims} of {all} skimmed");
    }

    #[test]
    fn what_serde_refuses_or_decodes_is_left_to_serde() {
        let change = r#""change":{"actions":["create"]}"#;
        for element in [
            // A repeated member: serde refuses it.
            format!(r#"{{"address":"a.b","address":"a.c",{change}}}"#),
            format!(r#"{{"address":"a.b",{change},"change":{{}}}}"#),
            r#"{"address":"a.b","change":{"actions":["create"],"after":1,"after":2}}"#.into(),
            // A `\u` escape in what the entry keeps (serde refuses a lone surrogate, which
            // the value parser decodes), or any escape in a key (it may name a member).
            format!(r#"{{"address":"a.\u0062",{change}}}"#),
            format!(r#"{{"address":"a.\ud800",{change}}}"#),
            format!(r#"{{"address":"a.b","previous_address":"\u0061",{change}}}"#),
            format!(r#"{{"address":"a.b","typ\u0065":"x",{change}}}"#),
            format!(r#"{{"address":"a.b","mode":"dat\u0061",{change}}}"#),
            r#"{"address":"a.b","change":{"actions":["cr\u0065ate"]}}"#.into(),
            // Types serde does not take.
            format!(r#"{{"address":"a.b","mode":null,{change}}}"#),
            format!(r#"{{"address":"a.b","name":7,{change}}}"#),
            format!(r#"{{"address":"a.b","index_unknown":null,{change}}}"#),
            format!(r#"{{"address":"a.b","deposed":false,{change}}}"#),
            r#"{"address":"a.b","change":{"actions":null}}"#.into(),
            r#"{"address":"a.b","change":{"actions":[1]}}"#.into(),
            r#"{"address":"a.b","change":{"actions":["create"],"importing":[]}}"#.into(),
            r#"{"address":"a.b","change":{"importing":{"unknown":"yes"}}}"#.into(),
            r#"{"address":"a.b","change":[]}"#.into(),
            // Members serde requires.
            format!(r#"{{"mode":"managed",{change}}}"#),
            r#"{"address":"a.b"}"#.into(),
            // Not an object.
            r#"["a.b",null]"#.into(),
        ] {
            assert_eq!(skimmed(&element, 0), None, "{element}");
        }
        // A lone surrogate in a string serde decodes: its syntax check lets it by, its
        // typed read refuses it.
        for element in [
            format!(r#"{{"address":"a.b","name":"\ud800",{change}}}"#),
            format!(r#"{{"address":"a.b","action_reason":"x\udc00",{change}}}"#),
            r#"{"address":"a.b","change":{"importing":{"id":"\ud800"}}}"#.into(),
        ] {
            let text = format!(r#"{{"resource_changes":[{element}]}}"#);
            assert!(serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok());
            assert_eq!(by_serde(&element, 0), None, "{element}");
            assert_eq!(skimmed(&element, 0), None, "{element}");
        }
    }

    #[test]
    fn plain_changes_skim_whatever_their_spacing_and_unknown_members() {
        let element = r#" { "zz" : [ {"a":"]}"} , "\"x\\" ] , "address" : "a.b[\"k\\\"\"]" ,
            "previous_address" : "a.c" , "mode" : "data" , "type" : "t\t" , "name" : "n\n" ,
            "index" : -1.5e3 , "index_unknown" : false , "deposed" : null ,
            "change" : { "actions" : [ "delete" , "create" ] , "before" : { "k" : [ 1 , true ] } ,
              "importing" : { "id" : "i\"d" , "unknown" : true , "more" : { } } ,
              "generated_config" : null , "unknown_member" : "}" } } , "#;
        let at = element.find('{').expect("an object");
        let expected = by_serde(element, at).expect("serde reads it");
        assert_eq!(skimmed(element, at), Some(expected));
    }

    /// A JSON value of any type, sometimes with escapes and brackets in strings.
    fn any_value() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            Just("-0.5e2".to_string()),
            Just("7".to_string()),
            Just(r#""plain""#.to_string()),
            Just(r#""data""#.to_string()),
            Just(r#""create""#.to_string()),
            Just(r#""e\"s\\c]}""#.to_string()),
            Just(r#""\u0063reate""#.to_string()),
            // serde's syntax check lets a lone surrogate by; its typed read refuses it.
            Just(r#""\ud800""#.to_string()),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| format!("[{}]", items.join(","))),
                proptest::collection::vec((member_key(), inner), 0..4).prop_map(|members| {
                    let members: Vec<String> =
                        members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    /// A key: one the model knows (at either level), an escaped one, or another.
    fn member_key() -> impl Strategy<Value = String> {
        proptest::sample::select(vec![
            "address",
            "previous_address",
            "module_address",
            "mode",
            "type",
            "name",
            "index",
            "index_unknown",
            "deposed",
            "provider_name",
            "action_reason",
            "change",
            "actions",
            "before",
            "after",
            "importing",
            "id",
            "unknown",
            "generated_config",
            "replace_paths",
            "other",
            r"addr\u0065ss",
        ])
        .prop_map(|key| format!("\"{key}\""))
    }

    /// A member's value: often the type the model takes, often not.
    fn member_value() -> impl Strategy<Value = String> {
        prop_oneof![
            any_value(),
            Just(r#""a.b""#.to_string()),
            Just(r#"["delete","create"]"#.to_string()),
            Just(r#"{"actions":["update"],"before":{},"after":{"x":1}}"#.to_string()),
            proptest::collection::vec((member_key(), any_value()), 0..5).prop_map(|members| {
                let members: Vec<String> =
                    members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever the element, a skimmed entry is serde's (and ends where serde's does);
        /// what serde refuses is never skimmed.
        #[test]
        fn a_skimmed_entry_is_the_one_serde_reads(
            members in proptest::collection::vec((member_key(), member_value()), 0..8),
            address_first in any::<bool>(),
        ) {
            let mut members: Vec<String> =
                members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            if address_first {
                members.insert(0, r#""address":"a.b""#.into());
                members.push(r#""change":{"actions":["create"],"after":{"a":[1]}}"#.into());
            }
            let element = format!("{{{}}},", members.join(","));
            if let Some(skimmed) = skimmed(&element, 0) {
                prop_assert_eq!(Some(skimmed), by_serde(&element, 0), "{}", element);
            }
        }

        /// An element made invalid (bytes replaced anywhere) is never skimmed, nor is one
        /// serde reads otherwise: nothing else checks a skimmed element's syntax.
        #[test]
        fn a_broken_element_is_never_skimmed(
            at in 0usize..400,
            cut in 0usize..3,
            insert in proptest::collection::vec(
                proptest::sample::select(b"{}[]:,\"\\ 0-.eu\x01tn".to_vec()), 0..3),
        ) {
            let element = r#"{"address":"a.b[\"k\"]","mode":"managed","type":"t","name":"n","index":"k","provider_name":"p","change":{"actions":["delete","create"],"before":{"id":"1","l":[1,-2.5e3,true,null],"m":{"k":"v\\n"}},"after":{"id":"2","l":[],"m":{}},"after_unknown":{"id":false},"before_sensitive":{},"after_sensitive":{"m":{}},"replace_paths":[["id"]],"importing":null},"action_reason":"replace_because_cannot_update"}"#;
            prop_assert!(skimmed(element, 0).is_some(), "the element as it is is skimmed");
            let at = at.min(element.len());
            let end = (at + cut).min(element.len());
            let insert = String::from_utf8(insert).expect("ASCII");
            let text = format!("{}{insert}{}", &element[..at], &element[end..]);
            if let Some(skimmed) = skimmed(&text, 0) {
                prop_assert_eq!(Some(skimmed), by_serde(&text, 0), "{}", text);
            }
        }
    }
}
