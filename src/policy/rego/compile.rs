//! Policy stage, Rego compile: policy files and data documents (as the pipeline read them)
//! → [`Policies`], the rules to evaluate, found by conftest's naming conventions.
//!
//! Contract: pure (the pipeline reads the files); each file is parsed as Rego v1 (OPA
//! 1.0's default) and, when that fails, as v0, so files of either syntax work unchanged;
//! a file neither parses is an error with the v1 parser's place and message. What OPA's
//! compiler or conftest refuse is refused here ([`super::checks`]), and regorus runs each
//! file with its negations rewritten as OPA's compiler rewrites them ([`super::negation`]).

use std::collections::BTreeMap;
use std::time::Duration;

use regorus::utils::limits::ExecutionTimerConfig;
use regorus::{Engine, Value};

use super::checks::{self, is_conftest_rule};
use super::error::RegoError;
use super::input::Reads;
use super::message::locate;
use super::negation::{self, PlaceMap};
use super::report::Level;

/// A `.rego` file's text, named as it was found.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    /// The path, as errors name it.
    pub(crate) path: String,
    /// The policy.
    pub(crate) text: String,
}

/// A data document (`.json`, `.yaml`, `.yml`: told by the path's extension) and where it
/// lands under `data`, as OPA's loader places it: a file in the subdirectory `a/b/` of a
/// policy directory at `data.a.b`.
#[derive(Debug, Clone)]
pub(crate) struct DataFile {
    /// The path, as errors name it.
    pub(crate) path: String,
    /// The keys under `data` its object is merged at (empty: at the root).
    pub(crate) mount: Vec<String>,
    /// The document.
    pub(crate) text: String,
}

/// How the rules are chosen and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The packages whose `deny`/`violation`/`warn` rules are evaluated (`main` by default).
    pub(crate) namespaces: Vec<String>,
    /// The longest one rule may run.
    pub(crate) timeout: Duration,
    /// Failures are reported without failing the job (`--policy-warn-only`).
    pub(crate) warn_only: bool,
    /// A builtin's error fails the run (`--policy-strict`); by default, as conftest, it
    /// makes its expression undefined and is reported as a warning.
    pub(crate) strict: bool,
    /// The run's time, RFC 3339, which `time.now_ns()` returns; empty: when the policies
    /// are compiled.
    pub(crate) time: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            namespaces: vec!["main".to_string()],
            timeout: DEFAULT_TIMEOUT,
            warn_only: false,
            strict: false,
            time: String::new(),
        }
    }
}

/// `--policy-timeout`'s default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// One rule to evaluate: `data.NAMESPACE.NAME`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct RuleRef {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) level: Level,
    /// The first file defining it, for errors.
    pub(crate) file: String,
}

impl RuleRef {
    /// `namespace.name`, as errors and reports name it.
    pub(super) fn qualified(&self) -> String {
        format!("{}.{}", self.namespace, self.name)
    }
}

/// The compiled policies: the engine holding them and the data, and the rules to run.
#[derive(Debug)]
pub(crate) struct Policies {
    pub(super) engine: Engine,
    pub(super) rules: Vec<RuleRef>,
    /// What of the plan the rules can read, all that is converted.
    pub(super) reads: Reads,
    pub(super) timeout: Duration,
    /// The namespaces that have an `exception` rule.
    pub(super) exceptions: Vec<String>,
    /// Per policy file, where places of the text regorus runs were in the file as written.
    pub(super) places: BTreeMap<String, PlaceMap>,
    /// Per policy file, its calls: which builtin failed, told by its place.
    pub(super) calls: BTreeMap<String, Vec<checks::CallSite>>,
    /// A builtin's error fails the run (`--policy-strict`) instead of making its
    /// expression undefined.
    pub(super) strict: bool,
    /// Makes planmark's own builtins lenient beside regorus's.
    pub(super) lenient: super::builtins::Lenient,
}

impl Policies {
    /// Parses `sources` (each as v1, else v0), merges `data`, and finds the rules of
    /// `settings.namespaces` named as conftest reads them: `deny`, `violation`, `warn`
    /// and their `deny_*`, `violation_*`, `warn_*` forms (functions excepted).
    pub(crate) fn compile(
        sources: &[Source],
        data: &[DataFile],
        settings: &Settings,
    ) -> Result<Policies, RegoError> {
        super::clock::install();
        // The policies as written: parse errors and refusals point at the user's text.
        let mut written = Engine::new();
        for source in sources {
            add_policy(&mut written, &source.path, &source.text)?;
        }
        let modules: Vec<_> = sources
            .iter()
            .map(|s| s.path.as_str())
            .zip(written.get_modules().iter().cloned())
            .collect();
        let mut engine = Engine::new();
        engine.set_execution_timer_config(ExecutionTimerConfig {
            limit: settings.timeout,
            check_interval: CHECK_INTERVAL,
        });
        engine.set_strict_builtin_errors(true);
        let mut places = BTreeMap::new();
        let lenient = super::builtins::Lenient::default();
        super::builtins::register(
            &mut engine,
            super::builtins::run_clock(&settings.time),
            &lenient,
        );
        for source in sources {
            let (text, map) = negation::rewrite(&source.text, |text| {
                let mut engine = Engine::new();
                add_policy(&mut engine, &source.path, text)
                    .ok()
                    .map(|_| engine)
            });
            add_policy(&mut engine, &source.path, &text).map_err(|e| RegoError::Refused {
                file: source.path.clone(),
                line: 0,
                column: 0,
                message: format!(
                    "planmark could not rewrite it as OPA's compiler reads it ({}): \
                     please report this policy",
                    locate(&e.to_string()).message
                ),
            })?;
            places.insert(source.path.clone(), map);
        }
        for file in data {
            add_data(&mut engine, file)?;
        }
        checks::check(&modules, &settings.namespaces, &mut engine)?;
        let ast = syntax_trees(&engine, sources)?;
        let (rules, exceptions) = rules(&ast, sources, &settings.namespaces)?;
        Ok(Policies {
            engine,
            rules,
            exceptions,
            places,
            calls: checks::call_sites(&modules),
            reads: Reads::of(&ast),
            timeout: settings.timeout,
            strict: settings.strict,
            lenient,
        })
    }
}

/// Work units between two looks at the clock: often enough that a runaway rule stops
/// close to its limit, rarely enough that the clock costs nothing measurable.
const CHECK_INTERVAL: std::num::NonZeroU32 = std::num::NonZeroU32::new(64).unwrap();

/// Adds one policy: as Rego v1, else as v0; the v1 parser's error when neither parses.
fn add_policy(engine: &mut Engine, path: &str, text: &str) -> Result<(), RegoError> {
    let text = super::builtins::walk_relation_form(text).into_owned();
    engine.set_rego_v0(false);
    let v1 = match engine.add_policy(path.to_string(), text.clone()) {
        Ok(_) => return Ok(()),
        Err(err) => err,
    };
    engine.set_rego_v0(true);
    let v0 = engine.add_policy(path.to_string(), text);
    engine.set_rego_v0(false);
    if v0.is_ok() {
        return Ok(());
    }
    let located = locate(&v1.to_string());
    Err(RegoError::Parse {
        file: path.to_string(),
        line: located.line,
        column: located.column,
        message: located.message,
    })
}

/// Merges one data document under its mount point.
fn add_data(engine: &mut Engine, file: &DataFile) -> Result<(), RegoError> {
    let error = |message: String| RegoError::Data {
        file: file.path.clone(),
        message,
    };
    let yaml = file.path.ends_with(".yaml") || file.path.ends_with(".yml");
    let parsed = match yaml {
        // YAML 1.1, as OPA's loader reads data files (`enabled: yes` is true).
        true => super::builtins::read_yaml(&file.text),
        false => Value::from_json_str(&file.text),
    };
    let mut value = parsed.map_err(|e| error(locate(&e.to_string()).message))?;
    match value {
        // An empty YAML file is an empty document, as OPA reads it.
        Value::Null if yaml => return Ok(()),
        Value::Object(_) => {}
        _ => return Err(error("the top level must be an object (key: value)".into())),
    }
    for key in file.mount.iter().rev() {
        let mut object = Value::new_object();
        if let Ok(map) = object.as_object_mut() {
            map.insert(Value::from(key.as_str()), value);
        }
        value = object;
    }
    engine
        .add_data(value)
        .map_err(|e| error(locate(&e.to_string()).message))
}

/// The policies' syntax trees, one per source, as regorus writes them in JSON.
fn syntax_trees(engine: &Engine, sources: &[Source]) -> Result<serde_json::Value, RegoError> {
    let internal = |e: String| RegoError::Parse {
        file: sources.first().map(|s| s.path.clone()).unwrap_or_default(),
        line: 0,
        column: 0,
        message: e,
    };
    let ast = engine
        .get_ast_as_json()
        .map_err(|e| internal(e.to_string()))?;
    serde_json::from_str(&ast).map_err(|e| internal(e.to_string()))
}

/// The rules conftest would evaluate in `namespaces`, sorted, and the namespaces among
/// them where some file defines an `exception` rule; every namespace must be a package
/// of some file.
fn rules(
    modules: &serde_json::Value,
    sources: &[Source],
    namespaces: &[String],
) -> Result<(Vec<RuleRef>, Vec<String>), RegoError> {
    let modules = modules.as_array().map(Vec::as_slice).unwrap_or_default();
    let mut found: Vec<RuleRef> = Vec::new();
    let mut exceptions: Vec<String> = Vec::new();
    let mut packages = Vec::new();
    for (module, source) in modules.iter().zip(sources) {
        let ast = &module["ast"];
        let Some(package) = ref_path(&ast["package"]["refr"]) else {
            continue;
        };
        let namespace = package.join(".");
        packages.push(namespace.clone());
        if !namespaces.contains(&namespace) {
            continue;
        }
        let heads = ast["rules"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for name in heads.iter().filter_map(rule_name) {
            if name == "exception" && !exceptions.contains(&namespace) {
                exceptions.push(namespace.clone());
            }
            let Some(level) = level(&name) else { continue };
            if found
                .iter()
                .any(|r| r.namespace == namespace && r.name == name)
            {
                continue;
            }
            found.push(RuleRef {
                namespace: namespace.clone(),
                name,
                level,
                file: source.path.clone(),
            });
        }
    }
    if let Some(missing) = namespaces.iter().find(|ns| !packages.contains(ns)) {
        return Err(RegoError::Namespace {
            namespace: missing.clone(),
        });
    }
    found.sort();
    Ok((found, exceptions))
}

/// A rule's name when its head is a plain name (`deny`, `warn_tags`), not a function nor
/// a reference (`deny.x`).
fn rule_name(rule: &serde_json::Value) -> Option<String> {
    let refr = match (&rule["Spec"]["head"], &rule["Default"]) {
        (serde_json::Value::Object(head), _) => {
            let (kind, head) = head.iter().next()?;
            if kind == "Func" {
                return None;
            }
            &head["refr"]
        }
        (_, serde_json::Value::Object(default)) => &default["refr"],
        _ => return None,
    };
    refr["Var"]["value"].as_str().map(str::to_string)
}

/// The components of a package's reference (`a.b` → `["a", "b"]`); `None` for any other
/// shape (`a["b"]`), which no namespace names.
fn ref_path(refr: &serde_json::Value) -> Option<Vec<String>> {
    if let Some(name) = refr["Var"]["value"].as_str() {
        return Some(vec![name.to_string()]);
    }
    let dot = refr.get("RefDot")?;
    let mut path = ref_path(&dot["refr"])?;
    path.push(dot["field"][1].as_str()?.to_string());
    Some(path)
}

/// Failure or warning, by conftest's names; `None` for any other rule.
fn level(name: &str) -> Option<Level> {
    let warns = name.starts_with("warn");
    is_conftest_rule(name).then_some(if warns {
        Level::Warning
    } else {
        Level::Failure
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conftest_names_say_the_level() {
        assert_eq!(level("deny"), Some(Level::Failure));
        assert_eq!(level("violation_public_bucket"), Some(Level::Failure));
        assert_eq!(level("warn_tags"), Some(Level::Warning));
        assert_eq!(level("denylist"), None);
        assert_eq!(level("warning"), None);
        assert_eq!(level("allow"), None);
        assert_eq!(level("deny_"), None);
        assert_eq!(level("deny__x"), None);
        assert_eq!(level("warn_a_b1"), Some(Level::Warning));
    }

    #[test]
    fn a_package_with_brackets_is_no_namespace_and_no_crash() {
        // `package main["a"]` used to recurse until the stack overflowed.
        let sources = [Source {
            path: "p.rego".into(),
            text: "package main[\"a\"]\n\ndeny contains \"x\" if { true }\n".into(),
        }];
        let settings = Settings::default();
        let err = Policies::compile(&sources, &[], &settings)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("package main")),
            "{err:?}"
        );
    }
}
