//! Policy stage, the builtins planmark gives regorus as extensions: those of OPA that
//! regorus lacks (`crypto.*`, `io.jwt.decode`, `net.cidr_*`, `strings.render_template`),
//! those where regorus's result differs from OPA's (`sprintf`, `trace`, `to_number`,
//! `glob.quote_meta`, `regex.*`, `uuid.parse`, `json.match_schema`, `yaml.unmarshal`), `time.now_ns` as the run's clock, and named refusals of
//! the rest ([`refused`]).
//!
//! Contract: [`register`] is called once per engine, before any policy is evaluated.
//! regorus looks a call up among the policy's own functions first, then among these
//! extensions, then among its builtins, so an extension replaces a builtin of the same
//! name. Every error names its builtin and quotes no value (values may be plan secrets).

mod compat;
mod crypto;
mod gofloat;
mod gofmt;
mod jwt;
mod net;
mod print;
mod refused;
mod regex;
mod schema;
mod template;
mod uuid;
mod walk;
mod yaml;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use hmac::Hmac;
use md5::Md5;
use regorus::{Engine, Value};
use sha1::Sha1;
use sha2::{Sha256, Sha384, Sha512};

use super::negation::ITERABLE;

pub(super) use walk::relation_form as walk_relation_form;
pub(super) use yaml::read as read_yaml;

/// A builtin, given the name it is called by (for its errors) and its arguments.
type Builtin = fn(&str, Vec<Value>) -> Result<Value>;

/// Each builtin provided here: its name, how many arguments it takes, the function.
const PROVIDED: &[(&str, u8, Builtin)] = &[
    ("sprintf", 2, compat::sprintf),
    ("trace", 1, compat::trace),
    ("glob.quote_meta", 1, compat::quote_meta),
    ("to_number", 1, compat::to_number),
    ("crypto.md5", 1, crypto::digest::<Md5>),
    ("crypto.sha1", 1, crypto::digest::<Sha1>),
    ("crypto.sha256", 1, crypto::digest::<Sha256>),
    ("crypto.hmac.md5", 2, crypto::hmac::<Hmac<Md5>>),
    ("crypto.hmac.sha1", 2, crypto::hmac::<Hmac<Sha1>>),
    ("crypto.hmac.sha256", 2, crypto::hmac::<Hmac<Sha256>>),
    ("crypto.hmac.sha512", 2, crypto::hmac::<Hmac<Sha512>>),
    ("crypto.hmac.equal", 2, crypto::hmac_equal),
    ("io.jwt.decode", 1, jwt::decode),
    ("io.jwt.verify_hs256", 2, jwt::verify::<Hmac<Sha256>>),
    ("io.jwt.verify_hs384", 2, jwt::verify::<Hmac<Sha384>>),
    ("io.jwt.verify_hs512", 2, jwt::verify::<Hmac<Sha512>>),
    ("net.cidr_contains", 2, net::cidr_contains),
    ("net.cidr_intersects", 2, net::cidr_intersects),
    ("net.cidr_is_valid", 1, net::cidr_is_valid),
    ("net.cidr_expand", 1, net::cidr_expand),
    ("net.cidr_merge", 1, net::cidr_merge),
    ("net.cidr_contains_matches", 2, net::cidr_contains_matches),
    ("strings.render_template", 2, template::render),
    ("uuid.parse", 1, uuid::parse),
    ("json.match_schema", 2, schema::match_schema),
    ("yaml.unmarshal", 1, yaml::unmarshal),
];

type Method = fn(&mut regex::Patterns, &str, Vec<Value>) -> Result<Value>;

/// The `regex.*` builtins, which compile patterns with Go's meaning of `\d \s \w \b`.
const PATTERNS: &[(&str, u8, Method)] = &[
    ("regex.match", 2, regex::Patterns::matches),
    ("regex.is_valid", 1, regex::Patterns::is_valid),
    ("regex.replace", 3, regex::Patterns::replace),
    ("regex.split", 2, regex::Patterns::split),
    ("regex.find_n", 3, regex::Patterns::find_n),
    (
        "regex.find_all_string_submatch_n",
        3,
        regex::Patterns::submatches,
    ),
];

/// Whether the builtins' errors make their expression undefined (conftest's default)
/// instead of failing the rule: regorus's `set_strict_builtin_errors` reaches only its
/// own builtins, so the evaluator sets this beside it (`eval.rs`). Refusals stay errors.
#[derive(Debug, Clone, Default)]
pub(super) struct Lenient(Arc<AtomicBool>);

impl Lenient {
    /// Makes errors undefined (`true`) or failures (`false`).
    pub(super) fn set(&self, lenient: bool) {
        self.0.store(lenient, Ordering::Relaxed);
    }

    /// `result`, an error made undefined when lenient.
    fn soften(&self, result: Result<Value>) -> Result<Value> {
        match result {
            Err(_) if self.0.load(Ordering::Relaxed) => Ok(Value::Undefined),
            other => other,
        }
    }
}

/// Gives `engine` planmark's builtins; `now_ns` is what `time.now_ns()` returns, the
/// run's time, the same for every rule and plan of the run; `lenient` says, as the
/// evaluator sets it, whether their errors make their expression undefined.
pub(super) fn register(engine: &mut Engine, now_ns: i64, lenient: &Lenient) {
    // regorus refuses only a name added twice, which the lists below never hold (a unit
    // test registers them).
    let mut add = |name: &str, arity: u8, extension: Box<dyn regorus::Extension>| {
        let added = engine.add_extension(name.to_string(), arity, extension);
        debug_assert!(added.is_ok(), "{name} added twice");
    };
    for (name, arity, function) in PROVIDED {
        let (name, function, lenient) = (*name, *function, lenient.clone());
        add(
            name,
            *arity,
            Box::new(move |args| lenient.soften(function(name, args))),
        );
    }
    for (name, arity, why) in refused::REFUSED {
        add(name, *arity, Box::new(refused::refusal(name, why)));
    }
    let now = move |_: Vec<Value>| -> Result<Value> { Ok(Value::from(now_ns)) };
    add("time.now_ns", 0, Box::new(now));
    add(ITERABLE, 1, Box::new(iterable));
    for (name, arity, method) in PATTERNS {
        // Each builtin keeps the patterns it compiled, as regorus's `cache` feature does.
        let mut compiled = regex::Patterns::default();
        let (name, method, lenient) = (*name, *method, lenient.clone());
        add(
            name,
            *arity,
            Box::new(move |args| lenient.soften(method(&mut compiled, name, args))),
        );
    }
}

/// Every builtin name [`register`] adds, provided or refused: a policy calling one of
/// these calls a known function (for a compile-time check of undefined functions, which
/// must not take these for unknown ones; only the tests call it so far).
#[cfg(test)]
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    PROVIDED
        .iter()
        .map(|(name, _, _)| *name)
        .chain(refused::REFUSED.iter().map(|(name, _, _)| *name))
        .chain(PATTERNS.iter().map(|(name, _, _)| *name))
        .chain(["time.now_ns", ITERABLE])
}

/// What `some … in` iterates over, as the rewrite wraps its collection
/// ([`super::negation::ITERABLE`]): an array, set or object, else nothing (OPA makes
/// `some v in null` undefined where regorus fails).
fn iterable(args: Vec<Value>) -> Result<Value> {
    Ok(match args.into_iter().next() {
        Some(value @ (Value::Array(_) | Value::Set(_) | Value::Object(_))) => value,
        _ => Value::Undefined,
    })
}

/// Argument `i` of `name`, which must be a string.
fn string_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a str> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s),
        _ => bail!("{name}: operand {} must be a string", i + 1),
    }
}

/// `time.now_ns()` for a run at `time` (RFC 3339, as the pipeline's run facts give it),
/// or now when it is empty or unreadable.
pub(super) fn run_clock(time: &str) -> i64 {
    let parsed = chrono::DateTime::parse_from_rfc3339(time)
        .ok()
        .and_then(|t| t.timestamp_nanos_opt());
    parsed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `expr` in a policy with planmark's builtins.
    fn eval(expr: &str) -> Result<Value> {
        let mut engine = Engine::new();
        register(&mut engine, 1_700_000_000_000_000_000, &Lenient::default());
        engine.add_policy("t.rego".into(), format!("package t\nx := {expr}\n"))?;
        engine.eval_rule("data.t.x".into())
    }

    #[test]
    fn every_name_is_added_once() {
        let mut names: Vec<&str> = names().collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count);
        let mut engine = Engine::new();
        register(&mut engine, 0, &Lenient::default());
        assert!(engine
            .add_extension(
                "sprintf".into(),
                2,
                Box::new(|args| compat::sprintf("sprintf", args))
            )
            .is_err());
    }

    #[test]
    fn extensions_replace_regorus_builtins() {
        assert_eq!(
            eval(r#"sprintf("%-4s|%05d", ["ab", 42])"#).unwrap(),
            Value::from("ab  |00042")
        );
        assert_eq!(eval(r#"trace("note")"#).unwrap(), Value::from(true));
        assert_eq!(
            eval("time.now_ns()").unwrap(),
            Value::from(1_700_000_000_000_000_000i64)
        );
        let refused = eval(r#"http.send({"method": "get", "url": "http://x"})"#).unwrap_err();
        assert!(
            refused.to_string().contains("`http.send` is not supported"),
            "{refused}"
        );
    }

    #[test]
    fn the_run_time_is_the_clock() {
        assert_eq!(run_clock("2026-11-27T23:30:57Z"), 1_795_822_257_000_000_000);
        assert!(run_clock("") > 1_700_000_000_000_000_000);
    }
}
