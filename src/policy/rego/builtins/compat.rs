//! Policy stage, builtins regorus has but that give other results than OPA's: `sprintf`
//! (Go's `fmt`), `trace` (true), `glob.quote_meta` (all of glob's metacharacters) and
//! `to_number` (the strings Go's `strconv.ParseFloat` reads).
//!
//! Contract: the result OPA gives for the same arguments; errors name the builtin and
//! never quote a value.

use anyhow::{bail, Result};
use regorus::Value;

use super::gofmt::{sprintf as go_sprintf, Arg};
use super::string_arg;

/// `sprintf(format, values)`.
pub(super) fn sprintf(name: &str, args: Vec<Value>) -> Result<Value> {
    let format = string_arg(name, &args, 0)?;
    let Value::Array(values) = &args[1] else {
        bail!("{name}: operand 2 must be an array");
    };
    let values: Vec<Arg> = values.iter().map(Arg::of).collect();
    Ok(Value::from(go_sprintf(format, &values)))
}

/// `trace(note)`: true, as in OPA; planmark keeps no trace to add the note to.
pub(super) fn trace(name: &str, args: Vec<Value>) -> Result<Value> {
    string_arg(name, &args, 0)?;
    Ok(Value::from(true))
}

/// `glob.quote_meta(pattern)`: each of `* ? [ ] { } \` escaped with a backslash.
pub(super) fn quote_meta(name: &str, args: Vec<Value>) -> Result<Value> {
    let pattern = string_arg(name, &args, 0)?;
    let mut out = String::with_capacity(pattern.len() + 4);
    for c in pattern.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(Value::from(out))
}

/// `to_number(x)`: null 0, booleans 0 and 1, numbers themselves, and strings Go's
/// `strconv.ParseFloat` reads as a finite decimal (`"010"` is 10, `" 1"` is an error).
pub(super) fn to_number(name: &str, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Null => Ok(Value::from(0)),
        Value::Bool(b) => Ok(Value::from(i64::from(*b))),
        number @ Value::Number(_) => Ok(number.clone()),
        Value::String(text) => match decimal(text) {
            Some(number) => Ok(number),
            None => bail!("{name}: operand 1 is not a number Go's strconv.ParseFloat reads"),
        },
        _ => bail!("{name}: operand 1 must be null, a boolean, a number or a string"),
    }
}

/// A decimal number as `strconv.ParseFloat` accepts it: a sign, digits (`_` between
/// them), a fraction, an exponent; no spaces, hexadecimal, infinities or NaN.
fn decimal(text: &str) -> Option<Value> {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    if !is_decimal(&digits) {
        return None;
    }
    let plain = digits.trim_start_matches('+');
    let fraction = digits.split_once('.').map_or("", |(_, fraction)| fraction);
    if !digits.contains(['e', 'E']) && fraction.is_empty() {
        // An integer keeps every digit, however long.
        let trimmed = plain.trim_start_matches('-').trim_start_matches('0');
        let sign = if plain.starts_with('-') && !trimmed.is_empty() {
            "-"
        } else {
            ""
        };
        let canonical = format!("{sign}{}", if trimmed.is_empty() { "0" } else { trimmed });
        return Value::from_json_str(&canonical).ok();
    }
    let value: f64 = plain.parse().ok()?;
    value.is_finite().then(|| Value::from(value))
}

/// A decimal number: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, the form of
/// Go's `strconv.ParseFloat` without hexadecimal, infinities or NaN, and YAML 1.1's float.
pub(super) fn is_decimal(text: &str) -> bool {
    let text = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Result<Value> {
        to_number("to_number", vec![Value::from(text)])
    }

    #[test]
    fn strings_read_as_go_reads_them() {
        // OPA: to_number("010") is 10, to_number(" 1") and ("0x10") are errors.
        assert_eq!(number("010").unwrap(), Value::from(10));
        assert_eq!(number("-0").unwrap(), Value::from(0));
        assert_eq!(number("1e3").unwrap(), Value::from(1000.0));
        assert_eq!(number(".5").unwrap(), Value::from(0.5));
        assert_eq!(
            number("12345678901234567890123").unwrap(),
            Value::from_json_str("12345678901234567890123").unwrap()
        );
        for bad in [" 1", "0x10", "inf", "NaN", "", "1e400", "1e", "-"] {
            assert!(number(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn glob_metacharacters_are_quoted() {
        let quoted = quote_meta("glob.quote_meta", vec![Value::from("*.x?[a]{b}\\!")]).unwrap();
        assert_eq!(quoted, Value::from("\\*.x\\?\\[a\\]\\{b\\}\\\\!"));
    }
}
