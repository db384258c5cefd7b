//! Policy stage, Rego compile checks: the policies' syntax trees → the first thing OPA or
//! conftest would refuse before evaluating anything, as a [`RegoError::Refused`] naming
//! the file, line and column.
//!
//! Contract: what OPA's compiler refuses and regorus only finds when a rule reaches it: a
//! call of a function that is neither a builtin the engine has, nor one of the policies'
//! functions (through the package or an import), and a call with the wrong number of
//! arguments (a builtin or function of `n` parameters takes `n`, or `n + 1` with the last
//! an output). What conftest refuses: a function named as a rule (`deny_x(a)`), a rule
//! named as one but written as a reference head (`deny[msg] if`, an object in Rego v1),
//! and an `exception` rule whose results are not lists of rule names.

use std::collections::BTreeMap;

use regorus::unstable::{ArithOp, Expr, Literal, Module, Query, Rule, RuleHead, Span, BUILTINS};
use regorus::Engine;

use super::error::RegoError;
use super::negation::{children, head_exprs};

/// Each module's file, as errors name it, and its syntax tree.
pub(super) type Modules<'a> = [(&'a str, regorus::unstable::Ref<Module>)];

/// Refuses what OPA or conftest would; `namespaces` are the packages whose rules conftest
/// evaluates, `engine` the engine that will run them (for the functions it adds).
pub(super) fn check(
    modules: &Modules,
    namespaces: &[String],
    engine: &mut Engine,
) -> Result<(), RegoError> {
    let functions = functions(modules);
    for (file, module) in modules {
        let package = package(module);
        let evaluated = namespaces.contains(&package[1..].join("."));
        for rule in &module.policy {
            conventions(file, rule, evaluated)?;
        }
        for (span, fcn, args, _) in module_calls(module) {
            let Some(path) = fcn.and_then(path) else {
                continue;
            };
            let at = |message: String| refused(file, &span, message);
            let name = path.join(".");
            let resolved = resolve(module, &package, &path);
            let arity = match resolved.iter().find_map(|p| functions.get(p)) {
                Some(&arity) => arity,
                None => match builtin(engine, &name) {
                    Some(arity) => arity,
                    None => {
                        return Err(at(format!(
                            "undefined function {name}: neither a function of the policies \
                             nor a builtin planmark provides"
                        )))
                    }
                },
            };
            if let Some(n) = arity.filter(|&n| args != n && args != n + 1) {
                return Err(at(format!(
                    "{name} takes {n} argument{}, not {args} (OPA refuses the policy)",
                    if n == 1 { "" } else { "s" }
                )));
            }
        }
    }
    Ok(())
}

/// Whether `name` is a conftest rule name: `^(deny|violation|warn)(_[a-zA-Z0-9]+)*$`.
pub(super) fn is_conftest_rule(name: &str) -> bool {
    let rest = ["deny", "violation", "warn"]
        .iter()
        .find_map(|base| name.strip_prefix(base));
    rest.is_some_and(|rest| {
        rest.is_empty()
            || rest.strip_prefix('_').is_some_and(|parts| {
                parts
                    .split('_')
                    .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric()))
            })
    })
}

/// conftest's conventions for one rule of a package it evaluates (`evaluated`).
fn conventions(file: &str, rule: &Rule, evaluated: bool) -> Result<(), RegoError> {
    let (head_ref, span, function) = match rule {
        Rule::Spec { head, span, .. } => match head {
            RuleHead::Func { refr, .. } => (refr, span, true),
            RuleHead::Compr { refr, .. } | RuleHead::Set { refr, .. } => (refr, span, false),
        },
        Rule::Default {
            refr, args, span, ..
        } => (refr, span, !args.is_empty()),
    };
    // A reference of names, or the name it starts with (`deny` of `deny[msg]`).
    let root = match leftmost(head_ref) {
        Expr::Var { span, .. } => Some(vec![span.text().to_string()]),
        _ => None,
    };
    let Some(path) = path(head_ref).or(root) else {
        return Ok(());
    };
    let name = &path[0];
    if !is_conftest_rule(name) {
        if evaluated && name == "exception" {
            return exception(file, rule);
        }
        return Ok(());
    }
    if function && evaluated && path.len() == 1 {
        return Err(refused(
            file,
            span,
            format!(
                "{name} is a function, but conftest evaluates every deny/violation/warn name as \
                 a rule: rename the function"
            ),
        ));
    }
    if !matches!(head_ref.as_ref(), Expr::Var { .. }) {
        return Err(refused(
            file,
            span,
            format!(
                "{name}[...] is not a set of messages (in Rego v1 `{name}[msg] if` makes an \
                 object): write `{name} contains msg if`"
            ),
        ));
    }
    Ok(())
}

/// An `exception` rule's results must be lists of rule names (`exception contains
/// ["tags"]`): conftest's query `exception[_][_]` refuses a set of strings.
fn exception(file: &str, rule: &Rule) -> Result<(), RegoError> {
    let Rule::Spec {
        head: RuleHead::Set { key: Some(key), .. },
        span,
        ..
    } = rule
    else {
        return Ok(());
    };
    match key.as_ref() {
        Expr::String { .. }
        | Expr::RawString { .. }
        | Expr::Number { .. }
        | Expr::Bool { .. }
        | Expr::Null { .. } => Err(refused(
            file,
            span,
            "exception results must be lists of rule names, as conftest reads them: write \
             `exception contains [\"name\"]`"
                .into(),
        )),
        _ => Ok(()),
    }
}

fn refused(file: &str, span: &Span, message: String) -> RegoError {
    RegoError::Refused {
        file: file.to_string(),
        line: span.line,
        column: span.col,
        message,
    }
}

/// Every function of the policies (`data.pkg.f`) and how many parameters it takes.
fn functions(modules: &Modules) -> BTreeMap<Vec<String>, Option<usize>> {
    let mut found = BTreeMap::new();
    for (_, module) in modules {
        let package = package(module);
        for rule in &module.policy {
            let (refr, args) = match rule.as_ref() {
                Rule::Spec {
                    head: RuleHead::Func { refr, args, .. },
                    ..
                } => (refr, args.len()),
                Rule::Default { refr, args, .. } if !args.is_empty() => (refr, args.len()),
                _ => continue,
            };
            if let Some(path) = path(refr) {
                let full = [package.clone(), path].concat();
                found.insert(full, Some(args));
            }
        }
    }
    found
}

/// The paths a call's function may name, most specific first: through an import alias,
/// in the module's own package, as written (`data.x.f`).
fn resolve(module: &Module, package: &[String], path: &[String]) -> Vec<Vec<String>> {
    let mut candidates = Vec::new();
    if path[0] == "data" {
        candidates.push(path.to_vec());
    }
    for import in &module.imports {
        let Some(target) = self::path(&import.refr) else {
            continue;
        };
        let alias = import
            .r#as
            .as_ref()
            .map(|s| s.text().to_string())
            .or_else(|| target.last().cloned());
        if target[0] == "data" && alias.as_deref() == Some(path[0].as_str()) {
            candidates.push([target.clone(), path[1..].to_vec()].concat());
        }
    }
    candidates.push([package.to_vec(), path.to_vec()].concat());
    candidates
}

/// A builtin's parameter count (`None`: any); `None` when the engine has no such function.
#[allow(clippy::option_option)]
fn builtin(engine: &mut Engine, name: &str) -> Option<Option<usize>> {
    if name == "print" {
        return Some(None);
    }
    if let Some((_, nargs)) = BUILTINS.get(name) {
        return Some(Some(*nargs as usize));
    }
    // A function added to the engine (an extension): calling it without arguments says
    // whether the engine has it, without running it.
    match engine.eval_query(format!("{name}()"), false) {
        Err(e) if e.to_string().contains("could not find function") => None,
        _ => Some(None),
    }
}

/// The package's components after `data` (`package a.b` → `["data", "a", "b"]`).
fn package(module: &Module) -> Vec<String> {
    let mut components = vec!["data".to_string()];
    components.extend(path(&module.package.refr).unwrap_or_default());
    components
}

/// A reference of names (`a.b["c"]`) as its components.
pub(super) fn path(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Var { span, .. } => Some(vec![span.text().to_string()]),
        Expr::RefDot { refr, field, .. } => {
            let mut p = path(refr)?;
            p.push(field.0.text().to_string());
            Some(p)
        }
        Expr::RefBrack { refr, index, .. } => {
            let mut p = path(refr)?;
            match index.as_ref() {
                Expr::String { value, .. } => p.push(value.as_string().ok()?.to_string()),
                _ => return None,
            }
            Some(p)
        }
        _ => None,
    }
}

/// The first term of a reference (`lib` of `lib.f`).
fn leftmost(expr: &Expr) -> &Expr {
    match expr {
        Expr::RefDot { refr, .. } | Expr::RefBrack { refr, .. } => leftmost(refr),
        _ => expr,
    }
}

/// A call (its function, none for an operator) and how many arguments it has, or an
/// operator that runs a builtin (`plus` for `+`).
type Call<'a> = (Span, Option<&'a Expr>, usize, &'static str);

/// Where a builtin may fail: a call's or an operator's place in its file (byte offsets of
/// the policy as written) and its name.
#[derive(Debug, Clone)]
pub(super) struct CallSite {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) name: String,
}

/// Every call and builtin operator of each file.
pub(super) fn call_sites(modules: &Modules) -> BTreeMap<String, Vec<CallSite>> {
    let mut sites = BTreeMap::new();
    for (file, module) in modules {
        let list: Vec<CallSite> = module_calls(module)
            .into_iter()
            .filter_map(|(span, fcn, _, op)| {
                let name = match fcn {
                    Some(fcn) => path(fcn)?.join("."),
                    None => op.to_string(),
                };
                Some(CallSite {
                    start: span.start as usize,
                    end: span.end as usize,
                    name,
                })
            })
            .collect();
        sites.insert(file.to_string(), list);
    }
    sites
}

/// The builtin that failed at `offset`: the innermost call around it, not counting a call
/// that only starts there (an argument its caller refused).
pub(super) fn failed_call(sites: &[CallSite], offset: usize) -> Option<&str> {
    let inner = |strict: bool| {
        sites
            .iter()
            .filter(|s| (s.start < offset || (!strict && s.start == offset)) && offset <= s.end)
            .min_by_key(|s| s.end - s.start)
    };
    inner(true)
        .or_else(|| inner(false))
        .map(|s| s.name.as_str())
}

/// Every call and builtin operator of a module, in the order written.
fn module_calls(module: &Module) -> Vec<Call<'_>> {
    let mut calls = Vec::new();
    for rule in &module.policy {
        rule_calls(rule, &mut calls);
    }
    calls
}

fn rule_calls<'a>(rule: &'a Rule, calls: &mut Vec<Call<'a>>) {
    match rule {
        Rule::Spec { head, bodies, .. } => {
            head_exprs(head).for_each(|e| expr_calls(e, calls));
            for body in bodies {
                body.assign.iter().for_each(|a| expr_calls(&a.value, calls));
                query_calls(&body.query, calls);
            }
        }
        Rule::Default { value, .. } => expr_calls(value, calls),
    }
}

fn query_calls<'a>(query: &'a Query, calls: &mut Vec<Call<'a>>) {
    for stmt in &query.stmts {
        match &stmt.literal {
            Literal::Expr { expr, .. } | Literal::NotExpr { expr, .. } => expr_calls(expr, calls),
            Literal::SomeIn {
                key,
                value,
                collection,
                ..
            } => {
                key.iter().for_each(|k| expr_calls(k, calls));
                expr_calls(value, calls);
                expr_calls(collection, calls);
            }
            Literal::Every { domain, query, .. } => {
                expr_calls(domain, calls);
                query_calls(query, calls);
            }
            Literal::SomeVars { .. } => {}
        }
        // A `with` may replace a function by another: its target is not called.
        for with in &stmt.with_mods {
            expr_calls(&with.r#as, calls);
        }
    }
}

fn expr_calls<'a>(expr: &'a Expr, calls: &mut Vec<Call<'a>>) {
    match expr {
        Expr::Call {
            span, fcn, params, ..
        } => {
            // A call's own span starts at its parenthesis: from its function's name.
            let mut span = span.clone();
            let name = leftmost(fcn).span();
            (span.start, span.line, span.col) = (name.start, name.line, name.col);
            calls.push((span, Some(fcn), params.len(), ""));
            // Its function is a name: only the arguments may call.
            params.iter().for_each(|p| expr_calls(p, calls));
            return;
        }
        Expr::ArithExpr { span, op, .. } => {
            let name = match op {
                ArithOp::Add => "plus",
                ArithOp::Sub => "minus",
                ArithOp::Mul => "mul",
                ArithOp::Div => "div",
                ArithOp::Mod => "rem",
            };
            calls.push((span.clone(), None, 2, name));
        }
        _ => {}
    }
    children(expr, |child| expr_calls(child, calls));
    if let Expr::ArrayCompr { query, .. }
    | Expr::SetCompr { query, .. }
    | Expr::ObjectCompr { query, .. } = expr
    {
        query_calls(query, calls);
    }
}
