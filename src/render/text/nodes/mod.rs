//! Text renderer: one [`Diff`] node as Terraform prints it (its `RenderHuman` rules:
//! symbols, alignment, `-> null`, `# forces replacement`, hidden-item counters). Values
//! are here; lists, sets, maps, objects and blocks in `collections.rs`.

use std::borrow::Cow;
use std::fmt::Write;

use super::out::Out;
use crate::diff::quote::{go_quote, go_quote_into};
use crate::diff::{Action, Diff, Node};

mod collections;

use collections::{render_block, render_list, render_map, render_object, render_set};

/// Rendering options. `force_replace`/`forbid_replace` apply to one level only: every
/// child gets a copy with them cleared ([`Opts::child`]), as in Terraform.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Opts {
    pub(crate) override_null_suffix: bool,
    pub(crate) show_unchanged: bool,
    pub(crate) force_replace: bool,
    pub(crate) forbid_replace: bool,
    /// Hide unchanged context (important attributes, list neighbours, unchanged heredoc
    /// lines, hidden-item counters): the Markdown renderer's first step under a size budget.
    pub(crate) compact: bool,
    /// Leave out the action symbols and their columns, as Terraform does for an action's
    /// config (a value shown, not a change) and OpenTofu for a forgotten resource's body.
    pub(crate) hide_symbols: bool,
}

impl Opts {
    pub(crate) fn child(self) -> Opts {
        Opts {
            force_replace: false,
            forbid_replace: false,
            ..self
        }
    }
}

/// Four spaces per level.
pub(crate) fn indent(out: &mut String, level: usize) {
    spaces(out, 4 * level);
}

/// `count` spaces, pushed a run at a time rather than one by one.
pub(super) fn spaces(out: &mut String, mut count: usize) {
    const RUN: &str = "                                ";
    while count > RUN.len() {
        out.push_str(RUN);
        count -= RUN.len();
    }
    out.push_str(&RUN[..count]);
}

/// Writes the nested action symbol (4 columns), marking it for the Markdown renderer;
/// nothing when `opts` hides symbols (OpenTofu's forget, an action's config).
pub(crate) fn push_symbol(out: &mut Out, action: Action, opts: Opts) {
    if opts.hide_symbols {
        return;
    }
    out.mark_ahead(2, action);
    out.push_str(symbol(action));
}

/// The nested action symbol plus its trailing space (4 columns).
pub(crate) fn symbol(action: Action) -> &'static str {
    match action {
        Action::Create => "  + ",
        Action::Delete => "  - ",
        Action::Update => "  ~ ",
        Action::NoOp => "    ",
    }
}

pub(super) fn null_suffix(out: &mut String, action: Action, opts: Opts) {
    if !opts.override_null_suffix && action == Action::Delete {
        out.push_str(" -> null");
    }
}

pub(super) fn forces_replacement(out: &mut String, replace: bool, opts: Opts) {
    if (replace || opts.force_replace) && !opts.forbid_replace {
        out.push_str(" # forces replacement");
    }
}

pub(super) fn unchanged(out: &mut Out, level: usize, keyword: &str, count: usize, opts: Opts) {
    if opts.compact {
        return;
    }
    indent(out, level);
    push_symbol(out, Action::NoOp, opts);
    let plural = if count == 1 { "" } else { "s" };
    let _ = writeln!(out, "# ({count} unchanged {keyword}{plural} hidden)");
}

/// Pads to `width` characters (Go's `%-*s` counts runes; widths come from byte lengths).
pub(super) fn padded(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    spaces(out, width.saturating_sub(char_count(text)));
}

/// How many characters `text` has, counted only when it is not all ASCII (names and keys
/// nearly always are, and counting is a loop over bytes).
pub(super) fn char_count(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// The length of `key` as [`go_quote`] writes it, without writing it when nothing in it
/// needs escaping (a map's keys nearly always).
pub(super) fn quoted_len(key: &str) -> usize {
    if crate::input::json::printable_run_end(key.as_bytes(), 0) == key.len() {
        key.len() + 2
    } else {
        go_quote(key).len()
    }
}

/// An attribute name as HCL would accept it, quoted when it is not an identifier.
pub(crate) fn attribute_name(name: &str) -> Cow<'_, str> {
    // An ASCII identifier (nearly every name) is told byte by byte.
    let bytes = name.as_bytes();
    if let Some((first, rest)) = bytes.split_first() {
        let ident = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
        if (first.is_ascii_alphabetic() || *first == b'_') && rest.iter().all(ident) {
            return Cow::Borrowed(name);
        }
    }
    let mut chars = name.chars();
    let valid = match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {
            chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        }
        _ => false,
    };
    if valid {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(go_quote(name))
    }
}

/// Renders `diff` at nesting `level` into `out` (no trailing newline).
pub(crate) fn render(out: &mut Out, diff: &Diff, level: usize, opts: Opts) {
    match &diff.node {
        Node::Primitive { before, after } => {
            let before = before.as_deref().unwrap_or("null");
            let after = after.as_deref().unwrap_or("null");
            match diff.action {
                Action::Create => out.push_str(after),
                Action::Delete => {
                    out.push_str(before);
                    null_suffix(out, diff.action, opts);
                }
                Action::NoOp => out.push_str(before),
                Action::Update => {
                    let _ = write!(out, "{before} -> {after}");
                }
            }
            forces_replacement(out, diff.replace, opts);
        }
        Node::Text { before, after } => render_text(out, diff, before, after, opts),
        Node::Heredoc { lines } => {
            out.push_str("<<-EOT");
            forces_replacement(out, diff.replace, opts);
            out.push('\n');
            for line in lines {
                if opts.compact && diff.action == Action::Update && line.action == Action::NoOp {
                    continue;
                }
                indent(out, level + 1);
                push_symbol(out, line.action, opts);
                out.push_str(&line.text);
                out.push('\n');
            }
            indent(out, level);
            push_symbol(out, Action::NoOp, opts);
            out.push_str("EOT");
            null_suffix(out, diff.action, opts);
        }
        Node::Json {
            inner,
            whitespace_only,
        } => render_json(out, diff, inner, *whitespace_only, level, opts),
        Node::TypeChange { before, after } => {
            // Not a clone: the one-level replacement flags carry over to both sides.
            let sides = Opts {
                override_null_suffix: true,
                ..opts
            };
            render(out, before, level, sides);
            out.push_str(" -> ");
            render(out, after, level, sides);
        }
        Node::Unknown { before } => match before {
            Some(before) if diff.action != Action::Create => {
                let mut before_opts = opts.child();
                before_opts.override_null_suffix = true;
                before_opts.forbid_replace = diff.replace;
                render(out, before, level, before_opts);
                out.push_str(" -> (known after apply)");
                forces_replacement(out, diff.replace, opts);
            }
            _ => {
                out.push_str("(known after apply)");
                forces_replacement(out, diff.replace, opts);
            }
        },
        Node::Sensitive { .. } => {
            out.push_str("(sensitive value)");
            null_suffix(out, diff.action, opts);
            forces_replacement(out, diff.replace, opts);
        }
        Node::SensitiveBlock { .. } => {
            out.push('{');
            forces_replacement(out, diff.replace, opts);
            out.push('\n');
            for text in [
                "  # At least one attribute in this block is (or was) sensitive,\n",
                "  # so its contents will not be displayed.\n",
            ] {
                indent(out, level);
                push_symbol(out, Action::NoOp, opts);
                out.push_str(text);
            }
            indent(out, level);
            push_symbol(out, Action::NoOp, opts);
            out.push('}');
        }
        Node::WriteOnly { sensitive } => {
            out.push_str(if *sensitive {
                "(sensitive, write-only attribute)"
            } else {
                "(write-only attribute)"
            });
            null_suffix(out, diff.action, opts);
            forces_replacement(out, diff.replace, opts);
        }
        Node::List { elements, context } => render_list(out, diff, elements, *context, level, opts),
        Node::Set { elements, nested } => render_set(out, diff, elements, *nested, level, opts),
        Node::Map { entries, nested } => render_map(out, diff, entries, *nested, level, opts),
        Node::Object { attributes, nested } => {
            render_object(out, diff, attributes, *nested, level, opts)
        }
        Node::Block(block) => render_block(out, diff, block, level, opts),
    }
}

fn push_quoted_or_null(out: &mut String, value: &Option<String>) {
    match value {
        Some(text) => go_quote_into(text, out),
        None => out.push_str("null"),
    }
}

fn render_text(
    out: &mut Out,
    diff: &Diff,
    before: &Option<String>,
    after: &Option<String>,
    opts: Opts,
) {
    match diff.action {
        Action::Create | Action::NoOp => push_quoted_or_null(out, after),
        Action::Delete => {
            push_quoted_or_null(out, before);
            // "null -> null" would read oddly, so a null old value gets no suffix.
            if before.is_some() {
                null_suffix(out, diff.action, opts);
            }
        }
        Action::Update => {
            push_quoted_or_null(out, before);
            out.push_str(" -> ");
            push_quoted_or_null(out, after);
        }
    }
    forces_replacement(out, diff.replace, opts);
}

fn render_json(
    out: &mut Out,
    diff: &Diff,
    inner: &Diff,
    whitespace_only: bool,
    level: usize,
    opts: Opts,
) {
    let mut json_opts = opts.child();
    json_opts.override_null_suffix = true;
    let mut action = diff.action;
    let mut whitespace = "";
    let mut replace = String::new();
    if whitespace_only {
        whitespace = if diff.replace {
            " # whitespace changes force replacement"
        } else {
            " # whitespace changes"
        };
        json_opts.show_unchanged = true;
        action = Action::NoOp;
    } else {
        forces_replacement(&mut replace, diff.replace, opts);
    }
    let mut rendered = out.sibling();
    render(&mut rendered, inner, level + 1, json_opts);
    if matches!(diff.action, Action::Create | Action::Delete) {
        // The inner lines carry the + or -; the opening line shows none.
        action = Action::NoOp;
    }
    if rendered.contains('\n') {
        out.push_str("jsonencode(");
        out.push_str(whitespace);
        out.push('\n');
        indent(out, level + 1);
        push_symbol(out, action, opts);
        out.append(rendered);
        out.push_str(&replace);
        out.push('\n');
        indent(out, level);
        push_symbol(out, Action::NoOp, opts);
        out.push(')');
        null_suffix(out, diff.action, opts);
    } else {
        let _ = write!(out, "jsonencode({}){whitespace}{replace}", *rendered);
    }
}

/// Warning lines shown above an item whose sensitivity changes.
pub(crate) fn warnings(diff: &Diff, level: usize) -> Option<String> {
    let (before, after, inner, noun) = match &diff.node {
        Node::Sensitive {
            before_sensitive,
            after_sensitive,
            inner_action,
        } => (
            *before_sensitive,
            *after_sensitive,
            *inner_action,
            "attribute value",
        ),
        Node::SensitiveBlock {
            before_sensitive,
            after_sensitive,
            inner_action,
            ..
        } => (*before_sensitive, *after_sensitive, *inner_action, "block"),
        _ => return None,
    };
    if before == after || matches!(inner, Action::Create | Action::Delete) {
        return None;
    }
    let mut text = String::new();
    if before {
        let _ = writeln!(
            text,
            "  # Warning: this {noun} will no longer be marked as sensitive"
        );
        indent(&mut text, level);
        text.push_str("  # after applying this change.");
    } else {
        let _ = writeln!(
            text,
            "  # Warning: this {noun} will be marked as sensitive and will not"
        );
        indent(&mut text, level);
        text.push_str("  # display in UI output after applying this change.");
    }
    if noun == "attribute value" && inner == Action::NoOp {
        text.push_str(" The value is unchanged.");
    }
    Some(text)
}

pub(super) fn write_warnings(out: &mut Out, diff: &Diff, level: usize) {
    if let Some(text) = warnings(diff, level) {
        indent(out, level);
        out.push_str(&text);
        out.push('\n');
    }
}
