//! Policy stage, OPA's `yaml.unmarshal`: YAML 1.1 as OPA's Go reader takes it, where
//! regorus reads YAML 1.2 (`enabled: yes` was the string `"yes"`, OPA's `true`).
//!
//! Contract: the first document of the text → a value, plain (unquoted, untagged) scalars
//! resolved as YAML 1.1 resolves them: `y`/`yes`/`on`/`true` (and their `Y`, `Yes`,
//! `YES`… forms) true, `n`/`no`/`off`/`false` false, `~`/`null`/empty null, integers in
//! Go's forms (`0x1F`, `0o10`, `010` octal, `0b101`, `1_000`), floats; anything else a
//! string. Quoted and block scalars are strings; `!!str`, `!!bool`, `!!int`, `!!float`,
//! `!!null` tags are obeyed. Anchors, aliases and merge keys (`<<`) work. Keys become
//! strings as in JSON (`y: 1` is `{"true": 1}`); a collection as a key, an infinity or a
//! NaN is an error, as in OPA. Errors never quote the text (it may come from the plan).

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Result};
use regorus::Value;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::compat::is_decimal;
use super::string_arg;

/// `yaml.unmarshal(text)`.
pub(super) fn unmarshal(name: &str, args: Vec<Value>) -> Result<Value> {
    let text = string_arg(name, &args, 0)?;
    read(text).map_err(|e| anyhow!("{name}: {e}"))
}

/// The first YAML document of `text` as OPA's reader gives it (for `yaml.unmarshal` and
/// data files, which OPA's loader reads the same way).
pub(in crate::policy::rego) fn read(text: &str) -> Result<Value> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, false) {
        let at = e.marker();
        bail!(
            "not valid YAML (line {}, column {})",
            at.line(),
            at.col() + 1
        );
    }
    if let Some(error) = builder.error {
        return Err(error);
    }
    Ok(builder.done.unwrap_or(Value::Null))
}

/// A collection being read.
enum Frame {
    Sequence {
        items: Vec<Value>,
        anchor: usize,
    },
    Mapping {
        fields: BTreeMap<Value, Value>,
        /// What `<<` keys merge in, in order (earlier ones win).
        merged: Vec<Value>,
        key: Option<Value>,
        /// Whether `key` is a plain `<<`, a merge.
        merge: bool,
        anchor: usize,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: BTreeMap<usize, Value>,
    done: Option<Value>,
    error: Option<anyhow::Error>,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, _: Marker) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.event(event) {
            self.error = Some(e);
        }
    }
}

impl Builder {
    fn event(&mut self, event: Event) -> Result<()> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                if style == TScalarStyle::Plain && tag.is_none() && text == "<<" {
                    if let Some(Frame::Mapping {
                        key: key @ None,
                        merge,
                        ..
                    }) = self.stack.last_mut()
                    {
                        (*key, *merge) = (Some(Value::from("<<")), true);
                        return Ok(());
                    }
                }
                let value = scalar(&text, style, tag.as_ref())?;
                self.value(value, anchor)
            }
            Event::Alias(id) => {
                let value = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| anyhow!("an alias names no anchor"))?;
                self.value(value, 0)
            }
            Event::SequenceStart(anchor, _) => {
                self.stack.push(Frame::Sequence {
                    items: Vec::new(),
                    anchor,
                });
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push(Frame::Mapping {
                    fields: BTreeMap::new(),
                    merged: Vec::new(),
                    key: None,
                    merge: false,
                    anchor,
                });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor) = match self.stack.pop() {
                    Some(Frame::Sequence { items, anchor }) => (Value::from(items), anchor),
                    Some(Frame::Mapping {
                        fields,
                        merged,
                        anchor,
                        ..
                    }) => (mapping(fields, merged)?, anchor),
                    None => bail!("unbalanced collection"),
                };
                self.value(value, anchor)
            }
            _ => Ok(()),
        }
    }

    /// A finished value: into its collection (as key or value), or the document.
    fn value(&mut self, value: Value, anchor: usize) -> Result<()> {
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
        match self.stack.last_mut() {
            None => {
                self.done.get_or_insert(value);
            }
            Some(Frame::Sequence { items, .. }) => items.push(value),
            Some(Frame::Mapping {
                fields,
                merged,
                key,
                merge,
                ..
            }) => match key.take() {
                None => *key = Some(value),
                Some(_) if std::mem::take(merge) => merged.push(value),
                Some(name) => {
                    fields.insert(Value::from(key_text(&name)?), value);
                }
            },
        }
        Ok(())
    }
}

/// A mapping with what its `<<` keys merge in: its own fields win, then earlier merges.
fn mapping(fields: BTreeMap<Value, Value>, merged: Vec<Value>) -> Result<Value> {
    let mut sources = Vec::new();
    for value in merged {
        match value {
            Value::Array(items) => sources.extend(items.iter().cloned()),
            other => sources.push(other),
        }
    }
    let mut out = BTreeMap::new();
    for source in sources.iter().rev() {
        let Value::Object(object) = source else {
            bail!("a merge key `<<` takes a mapping or a list of mappings");
        };
        out.extend(object.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    out.extend(fields);
    Ok(Value::from(out))
}

/// A key as JSON writes it: a string, or a scalar's text.
fn key_text(key: &Value) -> Result<String> {
    Ok(match key {
        Value::String(s) => s.to_string(),
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => serde_json::to_string(key)?,
        _ => bail!("a collection as a mapping key"),
    })
}

/// A scalar's value, resolved as YAML 1.1 resolves it.
fn scalar(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value> {
    let tag = tag
        .filter(|t| t.handle == "!!" || t.handle == "tag:yaml.org,2002:")
        .map(|t| t.suffix.as_str());
    if tag == Some("str") {
        return Ok(Value::from(text));
    }
    let plain = style == TScalarStyle::Plain;
    if !plain && tag.is_none() {
        return Ok(Value::from(text));
    }
    let resolved = resolve(text)?;
    let fits = match (tag, &resolved) {
        (None, _) => true,
        (Some("bool"), Value::Bool(_)) | (Some("null"), Value::Null) => true,
        (Some("int") | Some("float"), Value::Number(_)) => true,
        (Some("bool" | "null" | "int" | "float"), _) => false,
        _ => true,
    };
    if !fits {
        bail!("a scalar does not fit its tag");
    }
    Ok(resolved)
}

/// A plain scalar's value.
fn resolve(text: &str) -> Result<Value> {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Ok(Value::from(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Ok(Value::from(false))
        }
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        _ => {}
    }
    let numeric = text.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
    if !numeric {
        return Ok(Value::from(text));
    }
    let lower = text.to_ascii_lowercase();
    if matches!(lower.trim_start_matches(['+', '-']), ".inf" | ".nan") {
        bail!("infinities and NaN have no JSON value");
    }
    let digits = text.replace('_', "");
    if let Some(n) = integer(&digits) {
        return Value::from_json_str(&n.to_string());
    }
    if is_decimal(&digits) {
        if let Ok(f) = digits.parse::<f64>() {
            return Ok(Value::from(f));
        }
    }
    Ok(Value::from(text))
}

/// An integer in Go's `strconv.ParseInt(s, 0, 64)` forms (or unsigned past `i64`).
fn integer(text: &str) -> Option<i128> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = rest.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let value = i128::from_str_radix(digits, radix).ok()?;
    let value = if negative { -value } else { value };
    let fits = i64::try_from(value).is_ok() || (!negative && u64::try_from(value).is_ok());
    fits.then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> String {
        serde_json::to_string(&read(text).unwrap()).unwrap()
    }

    /// Each as OPA's `yaml.unmarshal` answers it.
    #[test]
    fn scalars_resolve_as_yaml_1_1() {
        for (text, want) in [
            ("a: y", r#"{"a":true}"#),
            ("a: YES", r#"{"a":true}"#),
            ("a: yEs", r#"{"a":"yEs"}"#),
            ("a: off", r#"{"a":false}"#),
            ("a: 'y'", r#"{"a":"y"}"#),
            ("a: !!str yes", r#"{"a":"yes"}"#),
            ("a: !!bool yes", r#"{"a":true}"#),
            ("y: 1", r#"{"true":1}"#),
            ("a: [y, n, 'y']", r#"{"a":[true,false,"y"]}"#),
            ("a: 010", r#"{"a":8}"#),
            ("a: 0o10", r#"{"a":8}"#),
            ("a: 0x1F", r#"{"a":31}"#),
            ("a: 0b101", r#"{"a":5}"#),
            ("a: 1_000", r#"{"a":1000}"#),
            ("a: 1:20", r#"{"a":"1:20"}"#),
            ("a: ~", r#"{"a":null}"#),
            ("a: 2001-12-14", r#"{"a":"2001-12-14"}"#),
            ("a: 1e3", r#"{"a":1000}"#),
            ("a: 12.", r#"{"a":12}"#),
            ("a: +12", r#"{"a":12}"#),
            ("a: |\n  yes\n", r#"{"a":"yes\n"}"#),
            ("b: &x {c: 1}\nd: *x", r#"{"b":{"c":1},"d":{"c":1}}"#),
            (
                "b: &x {c: 1}\nd:\n  <<: *x\n  e: 2",
                r#"{"b":{"c":1},"d":{"c":1,"e":2}}"#,
            ),
            ("d:\n  c: 3\n  <<: {c: 1, e: 2}", r#"{"d":{"c":3,"e":2}}"#),
            ("d:\n  <<: [{c: 1}, {c: 2, f: 3}]", r#"{"d":{"c":1,"f":3}}"#),
            ("", "null"),
        ] {
            assert_eq!(json(text), want, "{text}");
        }
        for refused in [
            "a: .inf",
            "a: -.Inf",
            "a: .nan",
            "? [1, 2]\n: x",
            "a: [1",
            "a: !!int x",
        ] {
            assert!(read(refused).is_err(), "{refused}");
        }
    }
}
