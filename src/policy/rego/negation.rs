//! Policy stage, Rego compile: a policy's text → the same policy with each `not`
//! literal's dynamic operands moved out in front of it, as OPA's compiler moves them, and
//! the map from the new text's places back to the policy's own.
//!
//! Contract: OPA evaluates `not endswith(input.foo, "-dev")` as `x := input.foo; not
//! endswith(x, "-dev")` (its "rewrite dynamic terms" and "rewrite expression terms"
//! stages): an undefined argument makes the rule body undefined instead of making the
//! negation true. regorus negates the whole expression, so the text is rewritten the same
//! way before regorus reads it. What moves, per OPA: of a call (an operator other than
//! `==`/`=`, or a function), every operand that is a reference, a nested call, or a
//! collection holding one; of `a == b` and of a bare term, only the references' dynamic
//! indices and nested calls. The same passes move partial rules' head terms into their
//! bodies and make `some … in` of a non-collection undefined, as OPA does ([`heads`]).
//! Every place of the rewritten text maps back ([`PlaceMap`]), so every error still points
//! at the user's file, line and column.

use regorus::unstable::{Expr, Literal, LiteralStmt, Module, Query, Rule, RuleHead};
use regorus::Engine;

mod heads;

pub(super) use heads::ITERABLE;

/// The name of the locals the rewrite introduces; the counter follows.
const LOCAL: &str = "__planmark_";

/// Part of the rewritten text: copied from the input at `from`, or written by the rewrite
/// (errors inside it are charged to `from`).
#[derive(Debug, Clone)]
struct Piece {
    /// Where it starts in the output.
    at: usize,
    len: usize,
    from: usize,
    copied: bool,
}

/// One rewrite pass's pieces, from its input to its output.
type Pass = Vec<Piece>;

/// Where `offset` of a pass's output was in its input.
fn back(pass: &[Piece], offset: usize) -> usize {
    let index = pass.partition_point(|p| p.at + p.len <= offset);
    match pass.get(index) {
        Some(p) if p.copied => p.from + (offset - p.at),
        Some(p) => p.from,
        None => pass.last().map_or(offset, |p| p.from + p.len),
    }
}

/// Where a place of the rewritten text was in the policy as written.
#[derive(Debug, Clone, Default)]
pub(super) struct PlaceMap {
    original: String,
    rewritten: String,
    /// Last pass first.
    passes: Vec<Pass>,
}

impl PlaceMap {
    /// The policy's own `(line, column)` for a place regorus named in the rewritten text.
    pub(super) fn original(&self, line: u32, column: u32) -> (u32, u32) {
        if self.passes.is_empty() || line == 0 {
            return (line, column);
        }
        line_column(&self.original, self.original_offset(line, column))
    }

    /// The byte offset in the policy as written of a place in the rewritten text.
    pub(super) fn original_offset(&self, line: u32, column: u32) -> usize {
        let text = match self.passes.is_empty() {
            true => &self.original,
            false => &self.rewritten,
        };
        let mut offset = offset_of(text, line, column);
        for pass in &self.passes {
            offset = back(pass, offset);
        }
        offset
    }
}

/// The byte offset of a 1-based line and column, counted as regorus counts them (a tab is
/// four columns).
fn offset_of(text: &str, line: u32, column: u32) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1) as usize)
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    let mut col = 1;
    for (i, c) in rest.char_indices() {
        if col >= column || c == '\n' {
            return start + i;
        }
        col += width(c);
    }
    text.len()
}

fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, 1 + before[start..].chars().map(width).sum::<u32>())
}

fn width(c: char) -> u32 {
    match c {
        '\t' => 4,
        _ => 1,
    }
}

/// `text` rewritten (unchanged when no negation needs it) and its place map. `parse`
/// parses a text as the compile step does (v1, else v0) into a fresh engine.
pub(super) fn rewrite(
    text: &str,
    mut parse: impl FnMut(&str) -> Option<Engine>,
) -> (String, PlaceMap) {
    let mut map = PlaceMap {
        original: text.to_string(),
        ..PlaceMap::default()
    };
    let mut current = text.to_string();
    let mut next_local = 0;
    // Each pass rewrites the negations not inside a term another one moves; those are
    // done by the next pass, on the moved text.
    for _ in 0..16 {
        let Some(mut engine) = parse(&current) else {
            break;
        };
        let Some(module) = engine.get_modules().last().cloned() else {
            break;
        };
        let mut edits = Edits::default();
        edits.module(&module, &mut next_local);
        if edits.list.is_empty() {
            break;
        }
        let (out, pass) = edits.apply(&current);
        map.passes.insert(0, pass);
        current = out;
    }
    map.rewritten = current.clone();
    (current, map)
}

/// A segment of an edit's new text.
#[derive(Debug)]
enum Seg {
    Text(String, usize),
    Copy(usize, usize),
}

#[derive(Debug)]
struct Edit {
    start: usize,
    end: usize,
    segs: Vec<Seg>,
}

#[derive(Debug, Default)]
struct Edits {
    list: Vec<Edit>,
    /// Input ranges moved elsewhere by this pass.
    moved: Vec<(usize, usize)>,
}

impl Edits {
    fn module(&mut self, module: &Module, next: &mut usize) {
        for rule in &module.policy {
            if let Rule::Spec { head, bodies, .. } = rule.as_ref() {
                if self.head_terms(head, bodies, next) {
                    continue;
                }
                head_exprs(head).for_each(|e| self.expr(e, next));
                for body in bodies {
                    if let Some(assign) = &body.assign {
                        self.expr(&assign.value, next);
                    }
                    self.query(&body.query, true, next);
                }
            }
        }
    }

    /// Every query inside an expression (comprehensions).
    fn expr(&mut self, expr: &Expr, next: &mut usize) {
        children(expr, |child| self.expr(child, next));
        if let Expr::ArrayCompr { query, .. }
        | Expr::SetCompr { query, .. }
        | Expr::ObjectCompr { query, .. } = expr
        {
            self.query(query, false, next);
        }
    }

    /// `rule_body`: a rule's body, written without braces when it is one literal.
    fn query(&mut self, query: &Query, rule_body: bool, next: &mut usize) {
        let braced = query.span.text().starts_with('{');
        for stmt in &query.stmts {
            match &stmt.literal {
                Literal::NotExpr { expr, .. } => {
                    // First, so that a negation inside a term it moves waits a pass.
                    self.negation(stmt, expr, rule_body && !braced, next);
                    self.expr(expr, next);
                }
                Literal::Expr { expr, .. } => self.expr(expr, next),
                Literal::SomeIn {
                    key,
                    value,
                    collection,
                    ..
                } => {
                    key.iter().for_each(|k| self.expr(k, next));
                    self.expr(value, next);
                    self.some_in(collection);
                    self.expr(collection, next);
                }
                Literal::Every { domain, query, .. } => {
                    self.expr(domain, next);
                    self.query(query, false, next);
                }
                Literal::SomeVars { .. } => {}
            }
        }
    }

    fn negation(&mut self, stmt: &LiteralStmt, expr: &Expr, wrap: bool, next: &mut usize) {
        let (start, end) = (stmt.span.start as usize, closed(&stmt.span));
        if self.moved.iter().any(|&(s, e)| start < e && s < end) {
            return;
        }
        let mut moves = Vec::new();
        operands(expr, &mut moves);
        moves.retain(|e| !has_wildcard(e));
        if moves.is_empty() {
            return;
        }
        if wrap {
            self.insert(start, "{ ");
        }
        for term in &moves {
            let span = term.span();
            let (s, e) = (span.start as usize, closed(span));
            let name = format!("{LOCAL}{next}");
            *next += 1;
            let mut segs = vec![Seg::Text(format!("{name} := "), s), Seg::Copy(s, e)];
            // The modifiers' own spans stop short of their last token: up to the end.
            if let Some(with) = stmt.with_mods.first() {
                segs.push(Seg::Text(" ".into(), s));
                segs.push(Seg::Copy(with.span.start as usize, end));
            }
            segs.push(Seg::Text("; ".into(), s));
            self.list.push(Edit {
                start,
                end: start,
                segs,
            });
            self.list.push(Edit {
                start: s,
                end: e,
                segs: vec![Seg::Text(name, s)],
            });
            self.moved.push((s, e));
        }
        if wrap {
            self.insert(end, " }");
        }
    }

    fn insert(&mut self, at: usize, text: &str) {
        self.list.push(Edit {
            start: at,
            end: at,
            segs: vec![Seg::Text(text.into(), at)],
        });
    }

    fn apply(mut self, input: &str) -> (String, Pass) {
        // Insertions before replacements at the same place; otherwise in the order made.
        self.list.sort_by_key(|e| (e.start, e.end > e.start));
        let mut out = String::with_capacity(input.len() + 64);
        let mut pass = Pass::new();
        let mut push = |out: &mut String, text: &str, from: usize, copied: bool| {
            if text.is_empty() {
                return;
            }
            pass.push(Piece {
                at: out.len(),
                len: text.len(),
                from,
                copied,
            });
            out.push_str(text);
        };
        let mut position = 0;
        for edit in &self.list {
            push(&mut out, &input[position..edit.start], position, true);
            for seg in &edit.segs {
                match seg {
                    Seg::Text(text, from) => push(&mut out, text, *from, false),
                    Seg::Copy(s, e) => push(&mut out, &input[*s..*e], *s, true),
                }
            }
            position = edit.end;
        }
        push(&mut out, &input[position..], position, true);
        (out, pass)
    }
}

/// Where a span really ends: regorus ends a string token's span before its closing quote.
fn closed(span: &regorus::unstable::Span) -> usize {
    let end = span.end as usize;
    let text = span.source.contents();
    match text.get(end..end + 1) {
        Some("\"") | Some("`") => end + 1,
        _ => end,
    }
}

/// The terms OPA moves out of a negated expression `expr`.
fn operands<'a>(expr: &'a Expr, moves: &mut Vec<&'a Expr>) {
    match expr {
        // `==` (and `=`) unify: a reference stays, its dynamic indices move.
        Expr::BoolExpr {
            op: regorus::unstable::BoolOp::Eq,
            lhs,
            rhs,
            ..
        }
        | Expr::AssignExpr { lhs, rhs, .. } => {
            in_term(lhs, moves);
            in_term(rhs, moves);
        }
        Expr::Call { params, .. } => params.iter().for_each(|p| one(p, moves)),
        Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::BinExpr { lhs, rhs, .. } => {
            one(lhs, moves);
            one(rhs, moves);
        }
        Expr::Membership {
            key,
            value,
            collection,
            ..
        } => {
            key.iter().for_each(|k| one(k, moves));
            one(value, moves);
            one(collection, moves);
        }
        _ => in_term(expr, moves),
    }
}

/// A term compared or stated: of a reference, its dynamic indices; else as an operand.
fn in_term<'a>(term: &'a Expr, moves: &mut Vec<&'a Expr>) {
    match term {
        Expr::RefDot { .. } | Expr::RefBrack { .. } => indices(term, moves),
        Expr::ArrayCompr { .. } | Expr::SetCompr { .. } | Expr::ObjectCompr { .. } => {}
        _ => one(term, moves),
    }
}

fn indices<'a>(refr: &'a Expr, moves: &mut Vec<&'a Expr>) {
    match refr {
        Expr::RefDot { refr, .. } => indices(refr, moves),
        Expr::RefBrack { refr, index, .. } => {
            indices(refr, moves);
            one(index, moves);
        }
        _ => {}
    }
}

/// An operand: a reference or a call moves whole (whatever is inside it then moves with
/// it, as undefined there as in its own place); a collection's elements are operands.
fn one<'a>(term: &'a Expr, moves: &mut Vec<&'a Expr>) {
    match term {
        Expr::RefDot { .. }
        | Expr::RefBrack { .. }
        | Expr::Call { .. }
        | Expr::ArithExpr { .. }
        | Expr::BinExpr { .. }
        | Expr::BoolExpr { .. }
        | Expr::Membership { .. } => moves.push(term),
        Expr::Array { items, .. } | Expr::Set { items, .. } => {
            items.iter().for_each(|i| one(i, moves))
        }
        Expr::Object { fields, .. } => fields.iter().for_each(|(_, k, v)| {
            one(k, moves);
            one(v, moves);
        }),
        _ => {}
    }
}

/// Whether `_` appears in the term: moving an iteration out of a negation would change
/// what it means (OPA refuses it as unsafe).
fn has_wildcard(term: &Expr) -> bool {
    if let Expr::Var { span, .. } = term {
        return span.text() == "_";
    }
    let mut found = false;
    children(term, |child| found = found || has_wildcard(child));
    found
}

/// A rule head's expressions: its reference, then its value or key.
pub(super) fn head_exprs(head: &RuleHead) -> impl Iterator<Item = &Expr> {
    let (refr, value) = match head {
        RuleHead::Compr { refr, assign, .. } | RuleHead::Func { refr, assign, .. } => {
            (refr, assign.as_ref().map(|a| &*a.value))
        }
        RuleHead::Set { refr, key, .. } => (refr, key.as_deref()),
    };
    std::iter::once(&**refr).chain(value)
}

/// The direct sub-expressions of `expr` (not the queries of comprehensions).
pub(super) fn children<'a>(expr: &'a Expr, mut f: impl FnMut(&'a Expr)) {
    match expr {
        Expr::Array { items, .. } | Expr::Set { items, .. } => items.iter().for_each(|i| f(i)),
        Expr::Object { fields, .. } => fields.iter().for_each(|(_, k, v)| {
            f(k);
            f(v);
        }),
        Expr::ArrayCompr { term, .. } | Expr::SetCompr { term, .. } => f(term),
        Expr::ObjectCompr { key, value, .. } => {
            f(key);
            f(value);
        }
        Expr::Call { fcn, params, .. } => {
            f(fcn);
            params.iter().for_each(|p| f(p));
        }
        Expr::UnaryExpr { expr, .. } => f(expr),
        Expr::RefDot { refr, .. } => f(refr),
        Expr::RefBrack { refr, index, .. } => {
            f(refr);
            f(index);
        }
        Expr::BinExpr { lhs, rhs, .. }
        | Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::AssignExpr { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        Expr::Membership {
            key,
            value,
            collection,
            ..
        } => {
            key.iter().for_each(|k| f(k));
            f(value);
            f(collection);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
