//! Policy stage, OPA's `json.match_schema`: regorus's gives `[true, null]` for a valid
//! document and one string for an invalid one, where OPA gives `[true, []]` and a list of
//! error objects, so `count(errors)` failed on valid documents.
//!
//! Contract: the document and the schema are values or JSON texts, as in OPA; a valid
//! document gives `[true, []]`, an invalid one `[false, errors]`, each error an object
//! with OPA's fields: `field` (`(Root)`, `a.b.0`), `type` (gojsonschema's names:
//! `required`, `invalid_type`, `number_gte`…), `desc` and `error` (`FIELD: DESC`). The
//! descriptions are the Rust validator's words, not Go's (docs/policy.md, "How close to OPA").
//! A schema that does not compile is an error naming the builtin.

use anyhow::{anyhow, bail, Result};
use jsonschema::error::ValidationErrorKind as Kind;
use regorus::Value;

/// `json.match_schema(document, schema)`.
pub(super) fn match_schema(name: &str, args: Vec<Value>) -> Result<Value> {
    let document = json(name, &args[0], 1)?;
    let schema = json(name, &args[1], 2)?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|_| anyhow!("{name}: operand 2 is not a valid JSON schema"))?;
    let errors: Vec<Value> = validator
        .iter_errors(&document)
        .map(|error| {
            let field = field(&error.instance_path().to_string());
            let desc = error.to_string();
            Value::from(std::collections::BTreeMap::from([
                (
                    Value::from("error"),
                    Value::from(format!("{field}: {desc}")),
                ),
                (Value::from("type"), Value::from(kind(error.kind()))),
                (Value::from("field"), Value::from(field)),
                (Value::from("desc"), Value::from(desc)),
            ]))
        })
        .collect();
    Ok(Value::from(vec![
        Value::from(errors.is_empty()),
        Value::from(errors),
    ]))
}

/// Operand `i` as JSON: a string is a JSON text, anything else the value itself.
fn json(name: &str, value: &Value, i: usize) -> Result<serde_json::Value> {
    let parsed = match value {
        Value::String(text) => serde_json::from_str(text),
        other => serde_json::to_value(other),
    };
    match parsed {
        Ok(json) => Ok(json),
        Err(_) => bail!("{name}: operand {i} is not valid JSON"),
    }
}

/// gojsonschema's name of a place: `(Root)`, else the JSON pointer's steps joined by `.`.
fn field(pointer: &str) -> String {
    if pointer.is_empty() || pointer == "/" {
        return "(Root)".to_string();
    }
    let steps: Vec<String> = pointer
        .trim_start_matches('/')
        .split('/')
        .map(|step| step.replace("~1", "/").replace("~0", "~"))
        .collect();
    steps.join(".")
}

/// gojsonschema's name of an error's kind.
fn kind(kind: &Kind) -> &'static str {
    match kind {
        Kind::Required { .. } => "required",
        Kind::Type { .. } => "invalid_type",
        Kind::Minimum { .. } => "number_gte",
        Kind::Maximum { .. } => "number_lte",
        Kind::ExclusiveMinimum { .. } => "number_gt",
        Kind::ExclusiveMaximum { .. } => "number_lt",
        Kind::MultipleOf { .. } => "multiple_of",
        Kind::MinLength { .. } => "string_gte",
        Kind::MaxLength { .. } => "string_lte",
        Kind::Pattern { .. } => "pattern",
        Kind::Format { .. } => "format",
        Kind::Enum { .. } => "enum",
        Kind::Constant { .. } => "const",
        Kind::AdditionalProperties { .. } => "additional_property_not_allowed",
        Kind::MinItems { .. } => "array_min_items",
        Kind::MaxItems { .. } => "array_max_items",
        Kind::UniqueItems => "unique",
        Kind::MinProperties { .. } => "array_min_properties",
        Kind::MaxProperties { .. } => "array_max_properties",
        Kind::AnyOf { .. } => "number_any_of",
        Kind::OneOfMultipleValid { .. } | Kind::OneOfNotValid { .. } => "number_one_of",
        Kind::Not { .. } => "number_not",
        Kind::Contains => "contains",
        Kind::FalseSchema => "false",
        _ => "invalid",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(document: &str, schema: &str) -> String {
        let args = vec![Value::from(document), Value::from(schema)];
        serde_json::to_string(&match_schema("json.match_schema", args).unwrap()).unwrap()
    }

    const SCHEMA: &str = r#"{"type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "n": {"type": "integer", "minimum": 3}}}"#;

    /// The verdicts and fields as OPA gives them (the descriptions are the validator's).
    #[test]
    fn verdicts_and_fields_are_opas() {
        assert_eq!(matched(r#"{"name": "x"}"#, SCHEMA), "[true,[]]");
        let invalid = matched(r#"{"n": 1}"#, SCHEMA);
        assert!(invalid.starts_with("[false,[{"), "{invalid}");
        for part in [
            r#""field":"(Root)","type":"required""#,
            r#""field":"n","type":"number_gte""#,
            r#""error":"n: "#,
        ] {
            assert!(invalid.contains(part), "{invalid}");
        }
        assert!(match_schema(
            "json.match_schema",
            vec![Value::from("{"), Value::from(SCHEMA)]
        )
        .is_err());
        let bad_schema = r#"{"type": "nonsense"}"#;
        assert!(match_schema(
            "json.match_schema",
            vec![Value::from("{}"), Value::from(bad_schema)]
        )
        .is_err());
    }
}
