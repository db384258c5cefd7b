//! Pipeline stage, what a plan keeps secret: every sensitive string value of a loaded
//! plan, so that text a policy made from the plan (a Rego rule may `sprintf` any attribute
//! into its message) can be cleaned of them before it reaches the comment or the log.
//!
//! Contract: [`sensitive_strings`] gathers the strings under the `before_sensitive` /
//! `after_sensitive` masks of resource changes, drift and output changes, the values of
//! outputs marked sensitive, of root variables the configuration declares sensitive, and,
//! for plans older than Terraform 0.15.2 (whose masks leave them out) when schemas are
//! given, of attributes the provider schema declares sensitive. [`redact`] replaces each
//! one of at least [`MIN_CHARS`] characters in a text, longest first, by
//! `(sensitive value)`.

use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

use skim::Skim;

use crate::input::plan::masks_omit_provider_sensitivity;
use crate::input::schema::{Attribute, BlockType, NestingMode, ProviderSchemas};

mod skim;

/// Shorter values are left: replacing `on` or `1` everywhere would garble every message.
pub(crate) const MIN_CHARS: usize = 4;

/// What a secret is replaced by, as the renderers show a sensitive value.
const MASK: &str = "(sensitive value)";

/// Every sensitive string of the plan `json` (with `schemas`, for old plans), longest
/// first, each at least [`MIN_CHARS`] characters; an error when `json` is not JSON.
pub(super) fn sensitive_strings(
    json: &str,
    schemas: Option<&ProviderSchemas>,
) -> Result<Vec<String>, serde_json::Error> {
    // Skimmed, not made into a tree: a whole 10,000-resource plan as a tree costs more
    // than the rules whose findings need this.
    let Skim(plan) = serde_json::from_str::<Skim<skim::Plan<'_>>>(json)?;
    let mut found = Vec::new();
    let old = masks_omit_provider_sensitivity(
        plan.terraform_version.as_str(),
        plan.format_version.as_str(),
    );
    for rc in plan.resource_changes.0.iter().chain(&plan.resource_drift.0) {
        let block = schemas.filter(|_| old).and_then(|s| {
            let provider = rc.provider_name.as_str()?;
            let mode = rc.mode.as_str().unwrap_or("managed");
            s.resource(provider, mode, rc.type_.as_str()?)
        });
        let change = &rc.change;
        for (value, mask) in [
            (change.before, &change.before_sensitive),
            (change.after, &change.after_sensitive),
        ] {
            // Most masks mark nothing (`false`, `{}`): their value is never parsed.
            if !marks_any(mask) && block.is_none() {
                continue;
            }
            let value = skim::Change::value(value);
            masked(&value, mask, &mut found);
            if let Some(block) = block {
                let blocks = Some(&block.block_types);
                declared(&value, &block.attributes, blocks, &mut found);
            }
        }
    }
    for change in plan.output_changes.as_object().into_iter().flatten() {
        let change = change.1;
        for (value, mask) in [("before", "before_sensitive"), ("after", "after_sensitive")] {
            masked(&change[value], &change[mask], &mut found);
        }
    }
    for outputs in [&plan.planned_outputs, &plan.prior_outputs] {
        for output in outputs.as_object().into_iter().flatten().map(|o| o.1) {
            if output["sensitive"] == Value::Bool(true) {
                strings(&output["value"], &mut found);
            }
        }
    }
    for (name, variable) in plan.declared_variables.as_object().into_iter().flatten() {
        if variable["sensitive"] == Value::Bool(true) {
            strings(&plan.variables[name]["value"], &mut found);
        }
    }
    found.retain(|s| s.chars().count() >= MIN_CHARS);
    found.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    found.dedup();
    Ok(found)
}

/// Whether a `*_sensitive` mask marks anything: most are `false` or `{}`, and then the
/// value they mask need not be parsed.
fn marks_any(mask: &Value) -> bool {
    match mask {
        Value::Bool(marked) => *marked,
        Value::Array(masks) => masks.iter().any(marks_any),
        Value::Object(masks) => masks.values().any(marks_any),
        _ => false,
    }
}

/// The strings of `value` where `mask` (a `*_sensitive` mask: `true`, or an object or
/// array of masks in the value's shape) marks it.
fn masked(value: &Value, mask: &Value, found: &mut Vec<String>) {
    match (mask, value) {
        (Value::Bool(true), _) => strings(value, found),
        (Value::Object(masks), Value::Object(values)) => {
            for (key, mask) in masks {
                if let Some(value) = values.get(key) {
                    masked(value, mask, found);
                }
            }
        }
        (Value::Array(masks), Value::Array(values)) => {
            for (mask, value) in masks.iter().zip(values) {
                masked(value, mask, found);
            }
        }
        _ => {}
    }
}

/// The strings of `value` (an object of a block's shape: its `attributes` and nested
/// `blocks`) under attributes the schema declares sensitive, in nested attributes and
/// blocks too.
fn declared(
    value: &Value,
    attributes: &BTreeMap<String, Attribute>,
    blocks: Option<&BTreeMap<String, BlockType>>,
    found: &mut Vec<String>,
) {
    let Value::Object(values) = value else {
        return;
    };
    for (name, attribute) in attributes {
        let Some(value) = values.get(name) else {
            continue;
        };
        if attribute.sensitive {
            strings(value, found);
        } else if let Some(nested) = &attribute.nested_type {
            each_object(value, nested.nesting_mode, |v| {
                declared(v, &nested.attributes, None, found)
            });
        }
    }
    for (name, block_type) in blocks.into_iter().flatten() {
        if let Some(value) = values.get(name) {
            let block = &block_type.block;
            each_object(value, block_type.nesting_mode, |v| {
                declared(v, &block.attributes, Some(&block.block_types), found)
            });
        }
    }
}

/// Each object a nested attribute or block of `mode` holds in `value`.
fn each_object(value: &Value, mode: NestingMode, mut f: impl FnMut(&Value)) {
    match (mode, value) {
        (_, Value::Array(items)) => items.iter().for_each(f),
        (NestingMode::Map, Value::Object(items)) => items.values().for_each(f),
        (_, Value::Object(_)) => f(value),
        _ => {}
    }
}

/// Every string in `value`.
fn strings(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(s) => found.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, found)),
        Value::Object(members) => members.values().for_each(|v| strings(v, found)),
        _ => {}
    }
}

/// A plan's secrets, ready to be replaced in the texts its policies made.
pub(super) struct Redactor {
    /// Leftmost-longest: at the first place any secret starts, the longest one there, as
    /// the scan of [`redact_each`] finds it; `None` when there is none, or when the
    /// automaton could not be built (then the scan is used).
    automaton: Option<AhoCorasick>,
    secrets: Vec<String>,
}

impl Redactor {
    /// For `secrets` as [`sensitive_strings`] gives them (longest first).
    pub(super) fn new(secrets: Vec<String>) -> Redactor {
        // Trying each secret at each character costs findings × length × secrets: minutes
        // for 10,000 findings in a plan of 10,000 sensitive values.
        let automaton = match secrets.is_empty() {
            true => None,
            false => AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&secrets)
                .ok(),
        };
        Redactor { automaton, secrets }
    }

    /// `text` with every secret replaced by `(sensitive value)`, in one pass so that a
    /// mask is never searched.
    pub(super) fn redact(&self, text: &str) -> String {
        let Some(automaton) = &self.automaton else {
            return redact_each(text, &self.secrets);
        };
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for found in automaton.find_iter(text) {
            out.push_str(&text[copied..found.start()]);
            out.push_str(MASK);
            copied = found.end();
        }
        out.push_str(&text[copied..]);
        out
    }
}

/// `text` with every one of `secrets` (longest first, as [`sensitive_strings`] orders
/// them) replaced by `(sensitive value)`, trying each at each character.
fn redact_each(text: &str, secrets: &[String]) -> String {
    if secrets.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while let Some(c) = rest.chars().next() {
        for secret in secrets {
            if let Some(after) = rest.strip_prefix(secret.as_str()) {
                out.push_str(MASK);
                rest = after;
                continue 'outer;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_secret_first_and_masks_never_searched() {
        let secrets = vec![
            "hunter22".to_string(),
            "hunter".to_string(),
            "sens".to_string(),
            "itive".to_string(),
        ];
        let text = "a hunter22 b hunter c sensitive ü-hunter2";
        let expected = "a (sensitive value) b (sensitive value) c (sensitive value)\
            (sensitive value) ü-(sensitive value)2";
        assert_eq!(redact_each(text, &secrets), expected);
        assert_eq!(Redactor::new(secrets).redact(text), expected);
        assert_eq!(Redactor::new(Vec::new()).redact("nothing"), "nothing");
    }

    #[test]
    fn the_automaton_finds_what_the_scan_finds() {
        // Overlapping secrets, one inside another, and each at the text's ends.
        let secrets = ["abcd", "bcdefg", "cdef", "defgh", "abcdefgh"].map(String::from);
        let mut sorted = secrets.to_vec();
        sorted.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let redactor = Redactor::new(sorted.clone());
        for text in [
            "abcdefgh",
            "xabcdx bcdefgx cdefgh",
            "defgabcd",
            "aabcdefghh",
        ] {
            assert_eq!(redactor.redact(text), redact_each(text, &sorted), "{text}");
        }
    }

    #[test]
    fn every_kind_of_sensitive_value_is_found() {
        let plan = serde_json::json!({
            "format_version": "1.2", "terraform_version": "1.9.0",
            "resource_changes": [{"address": "a.b", "type": "a", "provider_name": "p",
                "change": {"before": {"pw": "old-secret", "name": "public"},
                    "after": {"pw": "new-secret", "list": ["x", "list-secret"]},
                    "before_sensitive": {"pw": true},
                    "after_sensitive": {"pw": true, "list": [false, true]}}}],
            "output_changes": {"o": {"after": "output-secret", "after_sensitive": true}},
            "planned_values": {"outputs": {"p": {"sensitive": true, "value": {"k": "planned-secret"}}}},
            "variables": {"v": {"value": "variable-secret"}, "w": {"value": "public-var"}},
            "configuration": {"root_module": {"variables": {"v": {"sensitive": true}, "w": {}}}},
        });
        let found = sensitive_strings(&plan.to_string(), None).unwrap();
        let mut sorted = found.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            [
                "list-secret",
                "new-secret",
                "old-secret",
                "output-secret",
                "planned-secret",
                "variable-secret"
            ]
        );
        assert!(found.windows(2).all(|w| w[0].len() >= w[1].len()));
    }

    #[test]
    fn parts_of_unexpected_shapes_read_as_a_tree_reads_them() {
        // Each part as `serde_json::Value` indexing finds it: a key given twice keeps its
        // last value, a member of a non-object is absent, a list that is not one is empty.
        let plan = r#"{"format_version": "1.2", "terraform_version": "1.9.0",
            "planned_values": [1], "prior_state": {"values": 3},
            "resource_drift": {"a": 1},
            "resource_changes": [7, {"change": {"after": {"pw": "first-secret"},
                "after_sensitive": {"pw": true}, "after": {"pw": "last-secret"}}}],
            "configuration": {"root_module": {"variables": {"v\u0031": {"sensitive": true}}}},
            "variables": {"v1": {"value": ["escaped-key-secret"]}},
            "output_changes": {"o": {"before": "out-secret", "before_sensitive": true}},
            "output_changes": {"o": {"before": "last-out-secret", "before_sensitive": true}}}"#;
        let mut found = sensitive_strings(plan, None).unwrap();
        found.sort();
        assert_eq!(
            found,
            ["escaped-key-secret", "last-out-secret", "last-secret"]
        );
        assert!(sensitive_strings("[1, 2]", None).unwrap().is_empty());
        assert!(sensitive_strings("{\"resource_changes\": [", None).is_err());
    }
}
