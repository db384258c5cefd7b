//! Policy stage, Rego compile: the rewrites besides negations that give regorus OPA's
//! meaning of terms that may be undefined, in the same passes ([`super::rewrite`]).
//!
//! Contract: a partial rule's head term that may be undefined (`deny contains f(x) if …`,
//! `tags[rc.address] := rc.change.after.tags if …`) moves to the end of each body as
//! `__planmark_N := TERM`, as OPA's compiler moves it: OPA then skips the elements for
//! which it is undefined, where regorus drops the values gathered so far (or fails "not an
//! object"). The collection of `some … in` is wrapped in a call that is undefined unless
//! it is an array, set or object: OPA makes `some v in null` undefined, regorus fails.

use regorus::unstable::{Expr, RuleBody, RuleHead};

use super::{closed, has_wildcard, one, Edit, Edits, Seg, LOCAL};

/// The extension [`super::super::builtins`] adds: its argument when it is an array, a
/// set or an object, else undefined.
pub(in crate::policy::rego) const ITERABLE: &str = "__planmark_iterable";

impl Edits {
    /// Moves the head terms of a partial rule that may be undefined into its bodies; true
    /// when it did (the rule's bodies then wait for the next pass, which reads the moved
    /// text).
    pub(super) fn head_terms(
        &mut self,
        head: &RuleHead,
        bodies: &[RuleBody],
        next: &mut usize,
    ) -> bool {
        let mut terms = Vec::new();
        match head {
            RuleHead::Set { refr, key, .. } => {
                indices(refr, &mut terms);
                terms.extend(key.iter().map(|k| k.as_ref()));
            }
            // An object rule (`m[k] := v`); a complete rule's value is its own.
            RuleHead::Compr { refr, assign, .. }
                if matches!(refr.as_ref(), Expr::RefBrack { .. }) =>
            {
                indices(refr, &mut terms);
                terms.extend(assign.iter().map(|a| a.value.as_ref()));
            }
            _ => return false,
        }
        terms.retain(|term| may_be_undefined(term));
        // A rule without a body gives one element at most: nothing is dropped.
        if terms.is_empty() || bodies.is_empty() || bodies.iter().any(|b| b.is_else) {
            return false;
        }
        let Some(ranges) = terms.into_iter().map(range).collect::<Option<Vec<_>>>() else {
            return false;
        };
        let mut assignments = Vec::new();
        for (s, e) in ranges {
            let name = format!("{LOCAL}{next}");
            *next += 1;
            self.list.push(Edit {
                start: s,
                end: e,
                segs: vec![Seg::Text(name.clone(), s)],
            });
            self.moved.push((s, e));
            assignments.push((name, s, e));
        }
        for body in bodies {
            let query = &body.query;
            let Some(last) = query.stmts.last() else {
                continue;
            };
            let braced = query.span.text().starts_with('{');
            let end = closed(&last.span);
            if !braced {
                self.insert(query.span.start as usize, "{ ");
            }
            let mut segs = Vec::new();
            for (name, s, e) in &assignments {
                segs.push(Seg::Text(format!("; {name} := "), *s));
                segs.push(Seg::Copy(*s, *e));
            }
            self.list.push(Edit {
                start: end,
                end,
                segs,
            });
            if !braced {
                self.insert(end, " }");
            }
        }
        true
    }

    /// `some … in COLLECTION` → `some … in __planmark_iterable(COLLECTION)`, unless the
    /// collection is written as one (or is wrapped already, or moves elsewhere).
    pub(super) fn some_in(&mut self, collection: &Expr) {
        let literal = matches!(
            collection,
            Expr::Array { .. }
                | Expr::Set { .. }
                | Expr::Object { .. }
                | Expr::ArrayCompr { .. }
                | Expr::SetCompr { .. }
                | Expr::ObjectCompr { .. }
        );
        let wrapped = matches!(collection, Expr::Call { fcn, .. } if fcn.span().text() == ITERABLE);
        let span = collection.span();
        let (s, e) = (span.start as usize, closed(span));
        let moving = self.moved.iter().any(|&(ms, me)| s < me && ms < e);
        if literal || wrapped || moving {
            return;
        }
        self.insert(s, &format!("{ITERABLE}("));
        self.insert(e, ")");
    }
}

/// Where a term is in the policy text. regorus starts an object's span at its last key
/// when it has several: the object starts at the `{` before its first key.
fn range(term: &Expr) -> Option<(usize, usize)> {
    let span = term.span();
    let start = match term {
        Expr::Object { fields, .. } if fields.len() > 1 => {
            let key = fields.first()?.1.span().start as usize;
            let before = span.source.contents().get(..key)?.trim_end();
            let before = before.strip_suffix(['"', '`']).unwrap_or(before).trim_end();
            before.strip_suffix('{')?.len()
        }
        _ => span.start as usize,
    };
    Some((start, closed(span)))
}

/// The indices of a head's reference (`deny[KEY]`, `m[K1][K2]`).
fn indices<'a>(refr: &'a Expr, terms: &mut Vec<&'a Expr>) {
    match refr {
        Expr::RefDot { refr, .. } => indices(refr, terms),
        Expr::RefBrack { refr, index, .. } => {
            indices(refr, terms);
            terms.push(index);
        }
        _ => {}
    }
}

/// Whether a head term may be undefined: it holds a reference, a call or an operation
/// (a variable is bound by the body, a literal always defined). One with `_` stays: OPA
/// refuses it in a head.
fn may_be_undefined(term: &Expr) -> bool {
    let mut found = Vec::new();
    one(term, &mut found);
    !found.is_empty() && !has_wildcard(term)
}
