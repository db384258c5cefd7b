//! Policy stage, `strings.render_template(template, vars)`: the part of Go's
//! `text/template` that policies use, fields of the variables (`{{.name}}`,
//! `{{ .a.b }}`, with `{{-` and `-}}` trimming spaces), printed as Go prints them.
//!
//! Contract: a field missing or null prints `<undefined>` (as OPA gives it), an array
//! `[a b]`, an object `map[k:v]`; any other action (`if`, `range`, pipelines, functions)
//! is an error naming the builtin, never a different text.

use anyhow::{bail, Result};
use regorus::Value;

use super::print::{number_text, sorted_fields, sorted_set};
use super::string_arg;

/// `strings.render_template(template, vars)`.
pub(super) fn render(name: &str, args: Vec<Value>) -> Result<Value> {
    let template = string_arg(name, &args, 0)?;
    let Value::Object(_) = &args[1] else {
        bail!("{name}: operand 2 must be an object");
    };
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let (text, after) = rest.split_at(open);
        let after = &after[2..];
        let Some(close) = after.find("}}") else {
            bail!("{name}: an action is not closed with }}}}");
        };
        let mut action = &after[..close];
        rest = &after[close + 2..];
        let mut text = text;
        if let Some(trimmed) = action.strip_prefix("- ") {
            text = text.trim_end();
            action = trimmed;
        }
        if let Some(trimmed) = action.strip_suffix(" -") {
            rest = rest.trim_start();
            action = trimmed;
        }
        out.push_str(text);
        let action = action.trim();
        if action.starts_with("/*") && action.ends_with("*/") {
            continue;
        }
        out.push_str(&field(name, &args[1], action)?);
    }
    out.push_str(rest);
    Ok(Value::from(out))
}

/// The value of `.a.b` in `vars`, printed.
fn field(name: &str, vars: &Value, action: &str) -> Result<String> {
    let path = match action.strip_prefix('.') {
        Some(path) if !path.is_empty() => path,
        _ => bail!("{name}: planmark renders only fields such as {{{{.name}}}}, not other actions"),
    };
    let mut value = vars;
    for key in path.split('.') {
        let valid = key.chars().all(|c| c.is_alphanumeric() || c == '_') && !key.is_empty();
        if !valid {
            bail!("{name}: planmark renders only fields such as {{{{.name}}}}, not other actions");
        }
        match value {
            Value::Object(object) => {
                value = object.get(&Value::from(key)).unwrap_or(&Value::Undefined);
            }
            _ => bail!("{name}: a field of something that is not an object"),
        }
    }
    Ok(match value {
        Value::Null | Value::Undefined => "<undefined>".to_string(),
        other => go_value(other),
    })
}

/// Go's `%v` of the value OPA hands the template.
fn go_value(value: &Value) -> String {
    let join = |items: Vec<String>| items.join(" ");
    match value {
        Value::Null | Value::Undefined => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => number_text(value),
        Value::String(s) => s.to_string(),
        Value::Array(items) => format!("[{}]", join(items.iter().map(go_value).collect())),
        Value::Set(items) => {
            format!(
                "[{}]",
                join(sorted_set(items.iter()).into_iter().map(go_value).collect())
            )
        }
        Value::Object(object) => {
            let pairs = sorted_fields(object.iter())
                .into_iter()
                .map(|(k, v)| format!("{}:{}", go_value(k), go_value(v)));
            format!("map[{}]", join(pairs.collect()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_with(template: &str, vars: &str) -> Result<Value> {
        render(
            "strings.render_template",
            vec![Value::from(template), Value::from_json_str(vars)?],
        )
    }

    #[test]
    fn fields_render_as_in_opa() {
        // Recorded from OPA's strings.render_template.
        let vars = r#"{"a": 1.5, "b": true, "c": [1, "x"], "d": {"k": "v"}, "e": null, "f": {"g": "h"}, "n": 10}"#;
        let rendered = render_with(
            "{{.a}}|{{.b}}|{{.c}}|{{.d}}|{{.e}}|{{ .f.g }}|{{.n}}|{{.z}}",
            vars,
        );
        assert_eq!(
            rendered.unwrap(),
            Value::from("1.5|true|[1 x]|map[k:v]|<undefined>|h|10|<undefined>")
        );
        let trimmed = render_with("{{- .a -}} x {{.a}}", r#"{"a": "<b>"}"#).unwrap();
        assert_eq!(trimmed, Value::from("<b>x <b>"));
        let refused = render_with("{{if .a}}y{{end}}", r#"{"a": true}"#).unwrap_err();
        assert!(
            refused.to_string().contains("strings.render_template"),
            "{refused}"
        );
    }
}
