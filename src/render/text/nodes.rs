//! Text renderer: one [`Diff`] node as Terraform prints it (its `RenderHuman` rules:
//! symbols, alignment, `-> null`, `# forces replacement`, hidden-item counters).

use std::borrow::Cow;
use std::fmt::Write;

use super::out::Out;
use crate::diff::{Action, Block, Diff, Node};
use crate::differ::{go_quote, go_quote_into};

/// Rendering options. `force_replace`/`forbid_replace` apply to one level only: every
/// child gets a copy with them cleared ([`Opts::child`]), as in Terraform.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Opts {
    pub override_null_suffix: bool,
    pub show_unchanged: bool,
    pub force_replace: bool,
    pub forbid_replace: bool,
    /// Hide unchanged context (important attributes, list neighbours, unchanged heredoc
    /// lines, hidden-item counters): the Markdown renderer's first step under a size budget.
    pub compact: bool,
    /// Leave out the action symbols and their columns, as Terraform does for an action's
    /// config (a value shown, not a change) and OpenTofu for a forgotten resource's body.
    pub hide_symbols: bool,
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
fn spaces(out: &mut String, mut count: usize) {
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

fn null_suffix(out: &mut String, action: Action, opts: Opts) {
    if !opts.override_null_suffix && action == Action::Delete {
        out.push_str(" -> null");
    }
}

fn forces_replacement(out: &mut String, replace: bool, opts: Opts) {
    if (replace || opts.force_replace) && !opts.forbid_replace {
        out.push_str(" # forces replacement");
    }
}

fn unchanged(out: &mut Out, level: usize, keyword: &str, count: usize, opts: Opts) {
    if opts.compact {
        return;
    }
    indent(out, level);
    push_symbol(out, Action::NoOp, opts);
    let plural = if count == 1 { "" } else { "s" };
    let _ = writeln!(out, "# ({count} unchanged {keyword}{plural} hidden)");
}

/// Pads to `width` characters (Go's `%-*s` counts runes; widths come from byte lengths).
fn padded(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    spaces(out, width.saturating_sub(char_count(text)));
}

/// How many characters `text` has, counted only when it is not all ASCII (names and keys
/// nearly always are, and counting is a loop over bytes).
fn char_count(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// The length of `key` as [`go_quote`] writes it, without writing it when nothing in it
/// needs escaping (a map's keys nearly always).
fn quoted_len(key: &str) -> usize {
    if crate::value::printable_run_end(key.as_bytes(), 0) == key.len() {
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

/// Writes `[]`/`{}` (and returns true) for an empty collection, else the opening
/// bracket line.
fn open_collection(
    out: &mut Out,
    brackets: &str,
    empty: bool,
    diff: &Diff,
    replace: bool,
    opts: Opts,
) -> bool {
    if empty {
        out.push_str(brackets);
        null_suffix(out, diff.action, opts);
        forces_replacement(out, replace, opts);
        return true;
    }
    out.push_str(&brackets[..1]);
    forces_replacement(out, replace, opts);
    out.push('\n');
    false
}

fn close_collection(out: &mut Out, level: usize, bracket: char, diff: &Diff, opts: Opts) {
    indent(out, level);
    push_symbol(out, Action::NoOp, opts);
    out.push(bracket);
    null_suffix(out, diff.action, opts);
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

fn write_warnings(out: &mut Out, diff: &Diff, level: usize) {
    if let Some(text) = warnings(diff, level) {
        indent(out, level);
        out.push_str(&text);
        out.push('\n');
    }
}

fn render_list(
    out: &mut Out,
    diff: &Diff,
    elements: &[Diff],
    context: bool,
    level: usize,
    opts: Opts,
) {
    if open_collection(out, "[]", elements.is_empty(), diff, diff.replace, opts) {
        return;
    }
    let mut element_opts = opts.child();
    element_opts.override_null_suffix = true;
    let mut unchanged_opts = opts.child();
    unchanged_opts.show_unchanged = true;

    // Unchanged elements since the last shown one; with context, the last of them is
    // printed in full before the next change, and the element after a change is too.
    let mut pending: Vec<&Diff> = Vec::new();
    let mut render_next = false;
    for element in elements {
        if element.action == Action::NoOp && !render_next && !opts.show_unchanged {
            pending.push(element);
            continue;
        }
        render_next = false;
        let mut element_opts = element_opts;
        if context && !opts.compact {
            if pending.len() > 1 {
                unchanged(out, level + 1, "element", pending.len() - 1, opts);
            }
            if let Some(last) = pending.last() {
                indent(out, level + 1);
                push_symbol(out, last.action, opts);
                render(out, last, level + 1, unchanged_opts);
                out.push_str(",\n");
            }
            pending.clear();
            if element.action == Action::NoOp {
                element_opts = unchanged_opts;
            } else {
                render_next = true;
            }
        }
        write_warnings(out, element, level + 1);
        indent(out, level + 1);
        push_symbol(out, element.action, opts);
        render(out, element, level + 1, element_opts);
        out.push_str(",\n");
    }
    if !pending.is_empty() {
        unchanged(out, level + 1, "element", pending.len(), opts);
    }
    close_collection(out, level, ']', diff, opts);
}

fn render_set(
    out: &mut Out,
    diff: &Diff,
    elements: &[Diff],
    nested: bool,
    level: usize,
    opts: Opts,
) {
    // Nested sets push "forces replacement" down onto their elements.
    let replace_self = diff.replace && !nested;
    let replace_children = diff.replace && nested;
    if open_collection(out, "[]", elements.is_empty(), diff, replace_self, opts) {
        return;
    }
    let mut element_opts = opts.child();
    element_opts.override_null_suffix = true;
    element_opts.force_replace = replace_children;
    let mut hidden = 0;
    for element in elements {
        if element.action == Action::NoOp && !opts.show_unchanged {
            hidden += 1;
            continue;
        }
        write_warnings(out, element, level + 1);
        indent(out, level + 1);
        push_symbol(out, element.action, opts);
        render(out, element, level + 1, element_opts);
        out.push_str(",\n");
    }
    if hidden > 0 {
        unchanged(out, level + 1, "element", hidden, opts);
    }
    close_collection(out, level, ']', diff, opts);
}

fn render_map(
    out: &mut Out,
    diff: &Diff,
    entries: &[(String, Diff)],
    nested: bool,
    level: usize,
    opts: Opts,
) {
    let replace_self = diff.replace && !nested;
    let replace_children = diff.replace && nested;
    if open_collection(out, "{}", entries.is_empty(), diff, replace_self, opts) {
        return;
    }
    // Keys are quoted where they are written; the width needs only their lengths.
    let width = entries
        .iter()
        .map(|(k, _)| quoted_len(k))
        .max()
        .unwrap_or(0);
    let mut element_opts = opts.child();
    element_opts.override_null_suffix = diff.action == Action::Delete || nested;
    element_opts.force_replace = replace_children;
    let mut hidden = 0;
    for (key, element) in entries {
        if element.action == Action::NoOp && !opts.show_unchanged {
            hidden += 1;
            continue;
        }
        write_warnings(out, element, level + 1);
        indent(out, level + 1);
        push_symbol(out, element.action, opts);
        let start = out.len();
        go_quote_into(key, out);
        if !nested {
            let written = char_count(&out[start..]);
            spaces(out, width.saturating_sub(written));
        }
        out.push_str(" = ");
        render(out, element, level + 1, element_opts);
        // Only object values are followed by a comma.
        if matches!(element.node, Node::Object { .. }) {
            out.push(',');
        }
        out.push('\n');
    }
    if hidden > 0 {
        unchanged(out, level + 1, "element", hidden, opts);
    }
    close_collection(out, level, '}', diff, opts);
}

/// `id`, `name` and `tags` are always shown, with all their children.
fn is_important(name: &str) -> bool {
    matches!(name, "id" | "name" | "tags")
}

fn render_object(
    out: &mut Out,
    diff: &Diff,
    attributes: &[(String, Diff)],
    nested: bool,
    level: usize,
    opts: Opts,
) {
    if open_collection(out, "{}", attributes.is_empty(), diff, diff.replace, opts) {
        return;
    }
    let mut attribute_opts = opts.child();
    // Plain object types never show `-> null` on attributes; nested attributes do.
    attribute_opts.override_null_suffix = !nested;
    render_attributes(out, attributes, level, opts, attribute_opts);
    close_collection(out, level, '}', diff, opts);
}

/// Attribute lines of an object or block, aligned, with unchanged ones counted.
fn render_attributes(
    out: &mut Out,
    attributes: &[(String, Diff)],
    level: usize,
    opts: Opts,
    attribute_opts: Opts,
) -> usize {
    // Names are made again where they are written (borrowed, for identifiers) rather
    // than collected.
    let width = attributes
        .iter()
        .map(|(k, _)| attribute_name(k).len())
        .max()
        .unwrap_or(0);
    let mut hidden = 0;
    for (key, attribute) in attributes {
        let attr_opts = if is_important(key) && !opts.compact {
            let mut important = attribute_opts.child();
            important.show_unchanged = true;
            important
        } else if attribute.action == Action::NoOp && !opts.show_unchanged {
            hidden += 1;
            continue;
        } else {
            attribute_opts
        };
        write_warnings(out, attribute, level + 1);
        indent(out, level + 1);
        push_symbol(out, attribute.action, opts);
        padded(out, &attribute_name(key), width);
        out.push_str(" = ");
        render(out, attribute, level + 1, attr_opts);
        out.push('\n');
    }
    if hidden > 0 {
        unchanged(out, level + 1, "attribute", hidden, opts);
    }
    hidden
}

fn render_block(out: &mut Out, diff: &Diff, block: &Block, level: usize, opts: Opts) {
    if block.attributes.is_empty() && block.blocks.is_empty() {
        out.push_str("{}");
        forces_replacement(out, diff.replace, opts);
        return;
    }
    out.push('{');
    forces_replacement(out, diff.replace, opts);
    out.push('\n');
    render_attributes(out, &block.attributes, level, opts, opts.child());

    let mut hidden_blocks = 0;
    for group in &block.blocks {
        let mut started = false;
        let mut instances: Vec<(String, Cow<'_, Diff>)> = Vec::new();
        if group.unknown {
            // The whole group is unknown: one `name (known after apply)` line first.
            instances.push((
                String::new(),
                Cow::Owned(Diff {
                    action: diff.action,
                    replace: false,
                    node: Node::Unknown { before: None },
                }),
            ));
        }
        for (key, instance) in &group.instances {
            let label = key
                .as_deref()
                .map(|k| format!(" {}", go_quote(k)))
                .unwrap_or_default();
            instances.push((label, Cow::Borrowed(instance)));
        }
        for (label, instance) in &instances {
            if instance.action == Action::NoOp && !opts.show_unchanged {
                hidden_blocks += 1;
                continue;
            }
            if !started && !block.attributes.is_empty() {
                // A blank line between the attributes and each group of blocks.
                out.push('\n');
            }
            started = true;
            let mut block_opts = opts.child();
            block_opts.force_replace = group.replace;
            write_warnings(out, instance, level + 1);
            indent(out, level + 1);
            push_symbol(out, instance.action, opts);
            out.push_str(&attribute_name(&group.name));
            out.push_str(label);
            out.push(' ');
            render(out, instance, level + 1, block_opts);
            out.push('\n');
        }
    }
    if hidden_blocks > 0 && !opts.compact {
        out.push('\n');
        unchanged(out, level + 1, "block", hidden_blocks, opts);
    }
    indent(out, level);
    push_symbol(out, Action::NoOp, opts);
    out.push('}');
}
