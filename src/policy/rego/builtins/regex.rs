//! Policy stage, OPA's `regex.*` builtins with Go's syntax: RE2's Perl classes are ASCII
//! (`\d` is `[0-9]`, `\w` `[0-9A-Za-z_]`, `\s` `[\t\n\f\r ]`, `\b` an ASCII word
//! boundary) where Rust's `regex` makes them Unicode, so patterns are rewritten before
//! they are compiled; Unicode classes (`\p{Greek}`) and `(?i)` are the same in both.
//!
//! Contract: `regex.match`, `regex.is_valid`, `regex.replace`, `regex.split`,
//! `regex.find_n` and `regex.find_all_string_submatch_n` give what OPA gives; compiled
//! patterns are kept (per engine, a bounded number) since rules run them per resource.

use std::collections::HashMap;

use anyhow::{bail, Result};
use regex::Regex;
use regorus::Value;

use super::string_arg;

/// `pattern` with Go's ASCII meaning of the Perl classes and `\b`, in Rust's syntax.
/// Inside a bracket class a Perl class becomes a nested class, which Rust unites.
pub(super) fn go_pattern(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push(c);
            break;
        };
        match next {
            'd' => out.push_str("[0-9]"),
            'D' => out.push_str("[^0-9]"),
            's' => out.push_str(r"[\t\n\f\r ]"),
            'S' => out.push_str(r"[^\t\n\f\r ]"),
            'w' => out.push_str("[0-9A-Za-z_]"),
            'W' => out.push_str("[^0-9A-Za-z_]"),
            'b' => out.push_str(r"(?-u:\b)"),
            'B' => out.push_str(r"(?-u:\B)"),
            _ => {
                out.push(c);
                out.push(next);
            }
        }
    }
    out
}

/// Compiled patterns of one engine.
#[derive(Debug, Clone, Default)]
pub(super) struct Patterns {
    compiled: HashMap<String, Regex>,
}

/// More distinct patterns than this in one run are compiled again when met again.
const KEPT: usize = 512;

impl Patterns {
    fn get(&mut self, name: &str, pattern: &str) -> Result<&Regex> {
        if !self.compiled.contains_key(pattern) {
            let Ok(regex) = Regex::new(&go_pattern(pattern)) else {
                bail!("{name}: the pattern is not a valid regular expression");
            };
            if self.compiled.len() >= KEPT {
                self.compiled.clear();
            }
            self.compiled.insert(pattern.to_string(), regex);
        }
        Ok(&self.compiled[pattern])
    }
}

fn strings(items: impl Iterator<Item = String>) -> Value {
    Value::from(items.map(Value::from).collect::<Vec<_>>())
}

/// How many results `n` asks for: all when negative.
fn limit(name: &str, args: &[Value], i: usize) -> Result<usize> {
    match &args[i] {
        Value::Number(n) => match n.as_i64() {
            Some(n) if n < 0 => Ok(usize::MAX),
            Some(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            None => bail!("{name}: operand {} must be an integer", i + 1),
        },
        _ => bail!("{name}: operand {} must be a number", i + 1),
    }
}

impl Patterns {
    /// `regex.match(pattern, value)`.
    pub(super) fn matches(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let value = string_arg(name, &args, 1)?;
        let regex = self.get(name, string_arg(name, &args, 0)?)?;
        Ok(Value::from(regex.is_match(value)))
    }

    /// `regex.is_valid(pattern)`: false for anything but a valid pattern.
    pub(super) fn is_valid(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let valid = match &args[0] {
            Value::String(pattern) => self.get(name, pattern).is_ok(),
            _ => false,
        };
        Ok(Value::from(valid))
    }

    /// `regex.replace(value, pattern, replacement)`, `$1` and `${name}` expanded.
    pub(super) fn replace(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let value = string_arg(name, &args, 0)?;
        let replacement = string_arg(name, &args, 2)?;
        let regex = self.get(name, string_arg(name, &args, 1)?)?;
        Ok(Value::from(
            regex.replace_all(value, replacement).into_owned(),
        ))
    }

    /// `regex.split(pattern, value)`: Go's `Split(value, -1)`; an empty match splits
    /// between characters.
    pub(super) fn split(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let value = string_arg(name, &args, 1)?;
        let pattern = string_arg(name, &args, 0)?;
        let regex = self.get(name, pattern)?;
        if value.is_empty() && !pattern.is_empty() {
            return Ok(strings(std::iter::once(String::new())));
        }
        // Go's Split: a piece before each match but one at the very start, the rest
        // after the last match unless that match begins at the end.
        let mut parts = Vec::new();
        let (mut begin, mut end) = (0, 0);
        for m in regex.find_iter(value) {
            end = m.start();
            if m.end() != 0 {
                parts.push(value[begin..end].to_string());
            }
            begin = m.end();
        }
        if end != value.len() {
            parts.push(value[begin..].to_string());
        }
        Ok(strings(parts.into_iter()))
    }

    /// `regex.find_n(pattern, value, n)`: at most `n` matches (all when negative).
    pub(super) fn find_n(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let value = string_arg(name, &args, 1)?;
        let n = limit(name, &args, 2)?;
        let regex = self.get(name, string_arg(name, &args, 0)?)?;
        Ok(strings(
            regex
                .find_iter(value)
                .take(n)
                .map(|m| m.as_str().to_string()),
        ))
    }

    /// `regex.find_all_string_submatch_n(pattern, value, n)`: each match and its groups,
    /// a group that took no part as `""`.
    pub(super) fn submatches(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let value = string_arg(name, &args, 1)?;
        let n = limit(name, &args, 2)?;
        let regex = self.get(name, string_arg(name, &args, 0)?)?;
        let found = regex.captures_iter(value).take(n).map(|groups| {
            strings(
                groups
                    .iter()
                    .map(|g| g.map_or(String::new(), |g| g.as_str().to_string())),
            )
        });
        Ok(Value::from(found.collect::<Vec<_>>()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, value: &str) -> bool {
        let args = vec![Value::from(pattern), Value::from(value)];
        Patterns::default().matches("regex.match", args).unwrap() == Value::from(true)
    }

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        // Recorded from OPA: each as regex.match gives it.
        assert!(matches(r"^\d+$", "123"));
        assert!(!matches(r"^\w+$", "é"));
        assert!(matches(r"^\p{Greek}+$", "αβγ"));
        assert!(matches(r"(?i)^AWS_", "aws_s3"));
        assert!(matches(r"[\w-]+", "a-b"));
        assert!(matches(r"^[\D]+$", "ab"));
        assert!(matches(r"\bweb\b", "aws_instance.web"));
        assert!(matches(r"\\d", r"\d"));
    }

    #[test]
    fn splits_and_finds_as_go() {
        let mut patterns = Patterns::default();
        let split = patterns
            .split(
                "regex.split",
                vec![Value::from("x*"), Value::from("axbxxc")],
            )
            .unwrap();
        assert_eq!(split, Value::from_json_str(r#"["a", "b", "c"]"#).unwrap());
        let found = patterns
            .find_n(
                "regex.find_n",
                vec![Value::from("x*"), Value::from("axbxxc"), Value::from(-1)],
            )
            .unwrap();
        assert_eq!(
            found,
            Value::from_json_str(r#"["", "x", "xx", ""]"#).unwrap()
        );
    }
}
