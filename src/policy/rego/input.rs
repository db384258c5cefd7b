//! Policy stage, the plan as `input`: only the top-level fields the policies can read are
//! converted to regorus's values (docs/performance.md: converting a whole 10,000-resource
//! plan costs several times the rest of the run, and rules read `resource_changes`, not
//! `prior_state` or `configuration`).
//!
//! Contract: the same results as converting the whole plan. The fields are found in the
//! policies' syntax trees: a policy that names `input` other than as `input.FIELD` or
//! `input["FIELD"]` (`object.get(input, ...)`, `input[k]`, `with input as`, `import input`)
//! gets the whole plan.

use std::collections::{BTreeMap, BTreeSet};

use regorus::Value;
use serde_json::value::RawValue;

/// Which top-level fields of the plan the policies read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reads {
    /// Only these.
    Fields(BTreeSet<String>),
    /// Any: the whole plan is converted.
    Whole,
}

impl Reads {
    /// What the policies' syntax trees (regorus's AST as JSON) read of `input`.
    pub(super) fn of(modules: &serde_json::Value) -> Reads {
        let mut fields = BTreeSet::new();
        match reads(modules, &mut fields) {
            true => Reads::Fields(fields),
            false => Reads::Whole,
        }
    }

    /// The plan's JSON `text` as regorus's value, of only the fields read.
    pub(super) fn convert(&self, text: &str) -> anyhow::Result<Value> {
        let Reads::Fields(fields) = self else {
            return Value::from_json_str(text);
        };
        // Skimmed, not converted: the fields' text is found, their values left as text.
        let Ok(top) = serde_json::from_str::<BTreeMap<&str, &RawValue>>(text) else {
            // A key with escapes cannot be borrowed; such a plan is converted whole.
            return Value::from_json_str(text);
        };
        let mut input = Value::new_object();
        let object = input.as_object_mut()?;
        for (key, raw) in top {
            if fields.contains(key) {
                object.insert(Value::from(key), Value::from_json_str(raw.get())?);
            }
        }
        Ok(input)
    }
}

/// Adds to `fields` what `node` reads of `input`; false when it may read any field.
fn reads(node: &serde_json::Value, fields: &mut BTreeSet<String>) -> bool {
    use serde_json::Value as J;
    match node {
        J::Array(items) => items.iter().all(|item| reads(item, fields)),
        J::Object(map) => {
            if is_input(node) {
                return false;
            }
            if let Some(dot) = map.get("RefDot").filter(|d| is_input(&d["refr"])) {
                return field(dot["field"][1].as_str(), fields);
            }
            if let Some(brack) = map.get("RefBrack").filter(|b| is_input(&b["refr"])) {
                return field(brack["index"]["String"]["value"].as_str(), fields);
            }
            map.values().all(|value| reads(value, fields))
        }
        _ => true,
    }
}

fn field(name: Option<&str>, fields: &mut BTreeSet<String>) -> bool {
    name.map(|name| fields.insert(name.to_string())).is_some()
}

/// The variable `input`.
fn is_input(node: &serde_json::Value) -> bool {
    node["Var"]["value"] == "input"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_of(policy: &str) -> Reads {
        let mut engine = regorus::Engine::new();
        engine
            .add_policy("p.rego".into(), policy.into())
            .expect("parses");
        let ast = engine.get_ast_as_json().unwrap();
        Reads::of(&serde_json::from_str(&ast).unwrap())
    }

    fn fields(names: &[&str]) -> Reads {
        Reads::Fields(names.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn fields_named_statically_are_the_only_ones_read() {
        let policy = "package main\nimport input.planned_values as pv\n\
            deny contains x if { x := input[\"resource_changes\"][_].address }\n\
            warn contains x if { x := input.format_version }";
        assert_eq!(
            reads_of(policy),
            fields(&["format_version", "planned_values", "resource_changes"])
        );
        assert_eq!(reads_of("package main\nallow := true"), fields(&[]));
    }

    #[test]
    fn any_other_use_of_input_reads_the_whole_plan() {
        for body in [
            "x := object.get(input, \"a\", 1)",
            "some k; x := input[k]",
            "x := input",
            "x := data.main.helper with input as {}",
        ] {
            let policy = format!("package main\ndeny contains x if {{ {body} }}");
            assert_eq!(reads_of(&policy), Reads::Whole, "{body}");
        }
    }

    #[test]
    fn only_the_fields_read_are_converted() {
        let plan = r#"{"format_version":"1.2","resource_changes":[{"address":"a.b"}],"prior_state":{"big":[1,2,3]}}"#;
        let input = fields(&["resource_changes", "missing"])
            .convert(plan)
            .unwrap();
        assert_eq!(
            input.to_json_str().unwrap().replace([' ', '\n'], ""),
            r#"{"resource_changes":[{"address":"a.b"}]}"#
        );
        let whole = Reads::Whole.convert(plan).unwrap();
        assert_eq!(whole, Value::from_json_str(plan).unwrap());
    }
}
