//! Policy stage, Rego values as OPA prints them (`sprintf`'s `%v` of a composite, its
//! `%s` of a boolean or `null`) and in OPA's order, which differs from regorus's.
//!
//! Contract: strings inside composites are quoted as Go's `strconv.Quote` does, objects
//! and sets are printed sorted in OPA's order (null < booleans < numbers < strings <
//! arrays < objects < sets), an empty set is `set()`.

use std::cmp::Ordering;
use std::sync::OnceLock;

use regorus::Value;

/// `value` as OPA's `Term.String()` writes it.
pub(super) fn opa_string(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(_) => out.push_str(&number_text(value)),
        Value::String(s) => out.push_str(&go_quote(s, false)),
        Value::Array(items) => {
            out.push('[');
            list(items.iter(), out);
            out.push(']');
        }
        Value::Set(items) if items.is_empty() => out.push_str("set()"),
        Value::Set(items) => {
            out.push('{');
            list(sorted_set(items.iter()).into_iter(), out);
            out.push('}');
        }
        Value::Object(object) => {
            out.push('{');
            for (i, (key, value)) in sorted_fields(object.iter()).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(key, out);
                out.push_str(": ");
                write(value, out);
            }
            out.push('}');
        }
        Value::Undefined => out.push_str("undefined"),
    }
}

fn list<'a>(items: impl Iterator<Item = &'a Value>, out: &mut String) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write(item, out);
    }
}

/// A number inside a composite. OPA keeps a number's text as it was read; regorus keeps
/// only its value, so a fraction is written as Go's encoding/json writes a float64 (plain
/// decimals, an exponent below 1e-6 or from 1e21: `1.5e-07`), the way plan JSON has them.
pub(super) fn number_text(value: &Value) -> String {
    let Value::Number(n) = value else {
        return String::new();
    };
    if n.is_integer() {
        if let Some(i) = n.as_i64() {
            return i.to_string();
        }
        return n.format_decimal();
    }
    let Some(f) = n.as_f64() else {
        return n.format_decimal();
    };
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exponent),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    f.to_string()
}

/// OPA's order of values (`ast.Compare`): by kind first (null, booleans, numbers,
/// strings, arrays, objects, sets), then by value; arrays and sets element by element,
/// objects key by key (sorted) then value by value.
pub(super) fn compare(a: &Value, b: &Value) -> Ordering {
    let rank = |v: &Value| match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
        Value::Set(_) => 6,
        Value::Undefined => 7,
    };
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => sequence(x.iter(), y.iter()),
        (Value::Set(x), Value::Set(y)) => sequence(sorted_set(x.iter()), sorted_set(y.iter())),
        // Pair by pair: a key, then its value.
        (Value::Object(x), Value::Object(y)) => sequence(
            sorted_fields(x.iter())
                .into_iter()
                .flat_map(|(k, v)| [k, v]),
            sorted_fields(y.iter())
                .into_iter()
                .flat_map(|(k, v)| [k, v]),
        ),
        // Regorus orders values of one kind as OPA does: numbers by value, strings
        // byte by byte, false before true.
        _ if rank(a) == rank(b) => a.cmp(b),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Element by element; a sequence before the longer ones it starts.
fn sequence<'a>(
    x: impl IntoIterator<Item = &'a Value>,
    y: impl IntoIterator<Item = &'a Value>,
) -> Ordering {
    let (mut x, mut y) = (x.into_iter(), y.into_iter());
    loop {
        match (x.next(), y.next()) {
            (Some(a), Some(b)) => match compare(a, b) {
                Ordering::Equal => continue,
                order => return order,
            },
            (a, b) => return a.is_some().cmp(&b.is_some()),
        }
    }
}

/// A set's elements in OPA's order.
pub(super) fn sorted_set<'a>(set: impl IntoIterator<Item = &'a Value>) -> Vec<&'a Value> {
    let mut items: Vec<&Value> = set.into_iter().collect();
    items.sort_by(|a, b| compare(a, b));
    items
}

/// An object's fields in OPA's order of their keys.
pub(super) fn sorted_fields<'a>(
    object: impl IntoIterator<Item = (&'a Value, &'a Value)>,
) -> Vec<(&'a Value, &'a Value)> {
    let mut fields: Vec<(&Value, &Value)> = object.into_iter().collect();
    fields.sort_by(|a, b| compare(a.0, b.0));
    fields
}

/// `s` in double quotes as Go's `strconv.Quote` writes it (`ascii`: `QuoteToASCII`, for
/// `%+q`): printable characters as they are (Go's `unicode.IsPrint`: letters, marks,
/// numbers, punctuation, symbols and the ASCII space), the rest escaped.
pub(super) fn go_quote(s: &str, ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => escape(c, ascii, &mut out),
        }
    }
    out.push('"');
    out
}

/// A character outside printable ASCII as Go's quoting writes it.
pub(super) fn escape(c: char, ascii: bool, out: &mut String) {
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        _ if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
        _ if !ascii && printable(c) => out.push(c),
        _ if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        _ => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// Go's `unicode.IsPrint` for a character outside ASCII: categories L, M, N, P and S.
pub(super) fn printable(c: char) -> bool {
    static PRINTABLE: OnceLock<Option<regex::Regex>> = OnceLock::new();
    let class = PRINTABLE.get_or_init(|| regex::Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").ok());
    let mut buf = [0u8; 4];
    class
        .as_ref()
        .is_some_and(|class| class.is_match(c.encode_utf8(&mut buf)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rego(text: &str) -> Value {
        Value::from_json_str(text).unwrap()
    }

    #[test]
    fn composites_print_as_opa_prints_them() {
        assert_eq!(
            opa_string(&rego(r#"{"b": [null, false, "x\n"], "a": 1.5}"#)),
            r#"{"a": 1.5, "b": [null, false, "x\n"]}"#
        );
        assert_eq!(opa_string(&Value::new_set()), "set()");
        assert_eq!(
            opa_string(&rego("[1.5e-7, 0.00001, 2]")),
            "[1.5e-07, 0.00001, 2]"
        );
    }

    #[test]
    fn kinds_order_as_in_opa() {
        let mut set = std::collections::BTreeSet::new();
        set.insert(Value::from(2));
        let values = [
            rego(r#"{"a": 1}"#),
            Value::from(set),
            rego("[1]"),
            rego("\"a\""),
        ];
        let mut sorted = values.to_vec();
        sorted.sort_by(compare);
        let printed: Vec<String> = sorted.iter().map(opa_string).collect();
        assert_eq!(printed, ["\"a\"", "[1]", "{\"a\": 1}", "{2}"]);
    }

    #[test]
    fn quoting_follows_go() {
        assert_eq!(
            go_quote("é\t\u{7f}\u{200b}\"", false),
            "\"é\\t\\x7f\\u200b\\\"\""
        );
        assert_eq!(go_quote("é😀", true), "\"\\u00e9\\U0001f600\"");
    }
}
