//! Text renderer, collections: lists, sets, maps, objects and blocks as Terraform prints
//! them (its `RenderHuman` rules for them): one line per changed item, aligned names,
//! unchanged items counted in `# (N unchanged … hidden)` lines.

use std::borrow::Cow;

use super::{
    attribute_name, char_count, forces_replacement, indent, null_suffix, padded, push_symbol,
    quoted_len, render, spaces, unchanged, write_warnings, Opts,
};
use crate::diff::quote::{go_quote, go_quote_into};
use crate::diff::{Action, Block, Diff, Node};
use crate::render::text::out::Out;

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

pub(super) fn render_list(
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
        start_item(out, element, level, opts);
        render(out, element, level + 1, element_opts);
        out.push_str(",\n");
    }
    if !pending.is_empty() {
        unchanged(out, level + 1, "element", pending.len(), opts);
    }
    close_collection(out, level, ']', diff, opts);
}

pub(super) fn render_set(
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
        start_item(out, element, level, opts);
        render(out, element, level + 1, element_opts);
        out.push_str(",\n");
    }
    if hidden > 0 {
        unchanged(out, level + 1, "element", hidden, opts);
    }
    close_collection(out, level, ']', diff, opts);
}

pub(super) fn render_map(
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
        start_item(out, element, level, opts);
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

pub(super) fn render_object(
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
) {
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
        start_item(out, attribute, level, opts);
        padded(out, &attribute_name(key), width);
        out.push_str(" = ");
        render(out, attribute, level + 1, attr_opts);
        out.push('\n');
    }
    if hidden > 0 {
        unchanged(out, level + 1, "attribute", hidden, opts);
    }
}

pub(super) fn render_block(out: &mut Out, diff: &Diff, block: &Block, level: usize, opts: Opts) {
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
            start_item(out, instance, level, opts);
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

/// Starts an item's line one level in: its sensitivity warning lines, indent and symbol.
fn start_item(out: &mut Out, item: &Diff, level: usize, opts: Opts) {
    write_warnings(out, item, level + 1);
    indent(out, level + 1);
    push_symbol(out, item.action, opts);
}
