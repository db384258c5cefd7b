//! Finding a plan's secrets the way a reader of its JSON would: the values a provider
//! schema declares sensitive (nested blocks and nested attribute types too), for the
//! tests that check no secret reaches any output (`real_world`, `old_plans`, `sensitive`).

use serde_json::Value;

/// Every string and number in `value`, at any depth.
pub fn leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| leaves(i, out)),
        Value::Object(members) => members.values().for_each(|v| leaves(v, out)),
        Value::Bool(_) | Value::Null => {}
    }
}

/// The instances of a nested block or nested attribute type in `value`.
fn instances<'v>(value: &'v Value, mode: &str) -> Vec<&'v Value> {
    match (mode, value) {
        ("list" | "set", Value::Array(items)) => items.iter().collect(),
        ("map", Value::Object(members)) => members.values().collect(),
        ("single" | "group", v @ Value::Object(_)) => vec![v],
        _ => Vec::new(),
    }
}

/// Values of `object` under the attributes `attributes` declares sensitive.
fn secrets_in_attributes(attributes: &Value, object: &Value, out: &mut Vec<String>) {
    for (name, attr) in attributes.as_object().into_iter().flatten() {
        let Some(value) = object.get(name) else {
            continue;
        };
        if attr["sensitive"] == Value::Bool(true) {
            leaves(value, out);
        } else if let Some(nested) = attr.get("nested_type") {
            let mode = nested["nesting_mode"].as_str().unwrap_or_default();
            for instance in instances(value, mode) {
                secrets_in_attributes(&nested["attributes"], instance, out);
            }
        }
    }
}

/// Values of `object` the schema `block` declares sensitive, at any depth.
pub fn secrets_in_block(block: &Value, object: &Value, out: &mut Vec<String>) {
    secrets_in_attributes(&block["attributes"], object, out);
    for (name, block_type) in block["block_types"].as_object().into_iter().flatten() {
        let mode = block_type["nesting_mode"].as_str().unwrap_or_default();
        for instance in object
            .get(name)
            .map(|v| instances(v, mode))
            .unwrap_or_default()
        {
            secrets_in_block(&block_type["block"], instance, out);
        }
    }
}
