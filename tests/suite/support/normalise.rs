//! Terraform 1.0.3 (old renderer) to newest renderer normalisation of the expected side,
//! rules N1 to N7, each documented at its function.

use super::*;

/// What the 1.0.3 normalisation needs to know from `plan.json`.
pub struct PlanFacts {
    /// `resource_changes[].address`, in JSON order.
    pub change_addresses: Vec<String>,
    /// Addresses whose change carries an `action_reason`.
    pub with_reason: HashSet<String>,
    /// Every key of `output_changes`, no-op ones included.
    pub output_names: Vec<String>,
}

pub fn plan_facts(plan_json: &str) -> PlanFacts {
    let v: serde_json::Value = serde_json::from_str(plan_json).expect("plan.json is JSON");
    let changes = v["resource_changes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let change_addresses = changes
        .iter()
        .filter_map(|c| c["address"].as_str().map(str::to_owned))
        .collect();
    let with_reason = changes
        .iter()
        .filter(|c| c.get("action_reason").is_some_and(|r| !r.is_null()))
        .filter_map(|c| c["address"].as_str().map(str::to_owned))
        .collect();
    let output_names = v["output_changes"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    PlanFacts {
        change_addresses,
        with_reason,
        output_names,
    }
}

/// Rewrites a Terraform 1.0.3 `terraform show` text (old renderer, v0.12–v1.3)
/// into what the newest renderer prints for the same `plan.json`. Applied to
/// the **expected** text only. Each rule is a wording or layout difference
/// documented in `docs/terraform-renderer.md` or visible in the newest Go
/// renderer; anything else is left alone so that real differences still count.
pub fn normalise_tf_1_0_3(text: &str, facts: &PlanFacts) -> String {
    let mut lines: Vec<String> = split_lines(text).into_iter().map(str::to_owned).collect();
    lines = drop_read_reason_without_json_reason(lines, facts);
    for line in &mut lines {
        data_header_single_space(line);
        sensitive_value_wording(line);
    }
    lines = json_order_of_changes(lines, &facts.change_addresses);
    let outputs_start = lines.iter().position(|l| l == "Changes to Outputs:");
    if let Some(start) = outputs_start {
        lines = drop_output_sensitivity_warnings(lines, start);
    }
    json_object_hidden_counter_noun(&mut lines, outputs_start);
    if let Some(start) = outputs_start {
        let width = facts
            .output_names
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0);
        for line in &mut lines[start + 1..] {
            repad_output_name(line, width);
        }
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// N1. 1.0.3 printed two spaces before `{` on `<= data` headers:
/// ` <= data "null_data_source" "lookup"  {` → ` <= data "null_data_source" "lookup" {`.
fn data_header_single_space(line: &mut String) {
    if is_declaration(line) && line.ends_with("\"  {") {
        let keep = line.len() - "  {".len();
        line.truncate(keep);
        line.push_str(" {");
    }
}

/// N2. The old renderer printed sensitive collection elements as
/// `(sensitive)`; the newest always prints `(sensitive value)`:
/// `~ "key"      = (sensitive)` → `~ "key"      = (sensitive value)`.
/// Only a whole value token is rewritten: after `=`, `->` or an action
/// symbol, and followed by the end of the line, `,` or a space; the word
/// inside longer text (a heredoc line, a string) is left alone.
fn sensitive_value_wording(line: &mut String) {
    const OLD: &str = "(sensitive)";
    let mut from = 0;
    while let Some(off) = line[from..].find(OLD) {
        let at = from + off;
        let before = line[..at].trim_end_matches(' ');
        let after = &line[at + OLD.len()..];
        let value_position = before.ends_with('=')
            || before.ends_with("->")
            || before.ends_with(['+', '-', '~'])
            || before.is_empty();
        let value_end = after.is_empty() || after.starts_with(',') || after.starts_with(' ');
        if value_position && value_end {
            line.replace_range(at..at + OLD.len(), "(sensitive value)");
            from = at + "(sensitive value)".len();
        } else {
            from = at + OLD.len();
        }
    }
}

/// N3. 1.0.3 printed a sensitivity warning above a sensitive output
/// (`  # Warning: this attribute value will be marked as sensitive and will not`
/// / `  # display in UI output after applying this change.`), even when both
/// sides were sensitive. The newest renderer never prints warnings in the
/// outputs section (`renderHumanDiffOutputs` does not call `WarningsHuman`).
fn drop_output_sensitivity_warnings(lines: Vec<String>, start: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut skip_continuation = false;
    for (i, line) in lines.into_iter().enumerate() {
        let t = line.trim_start();
        if skip_continuation && t.starts_with("# ") {
            skip_continuation = false;
            continue;
        }
        skip_continuation = false;
        if i > start && t.starts_with("# Warning: this attribute value will ") {
            skip_continuation = true;
            continue;
        }
        out.push(line);
    }
    out
}

/// N4. Inside `jsonencode(…)` and in the outputs section values are rendered
/// from JSON; the newest renderer counts hidden keys of a JSON object as
/// attributes, 1.0.3 called them elements:
/// `# (1 unchanged element hidden)` → `# (1 unchanged attribute hidden)` when
/// the enclosing bracket is `{`. Lists (`[`) and `map(...)` attributes of a
/// resource keep "element".
fn json_object_hidden_counter_noun(lines: &mut [String], outputs_start: Option<usize>) {
    for i in 0..lines.len() {
        let t = lines[i].trim_start();
        if !(t.starts_with("# (") && t.contains(" unchanged element")) {
            continue;
        }
        let Some(open) = opener_of(lines, i) else {
            continue;
        };
        if !ends_with_open_brace(&lines[open]) {
            continue;
        }
        if outputs_start.is_some_and(|s| i > s) || inside_jsonencode(lines, open) {
            lines[i] = lines[i]
                .replace("unchanged elements hidden", "unchanged attributes hidden")
                .replace("unchanged element hidden", "unchanged attribute hidden");
        }
    }
}

/// Column where a line's content starts, after the indentation and the
/// action symbol (`+ `, `~ `, `-/+ `, …). A hidden-counter comment sits in
/// the content column of its siblings; its container's opening line has its
/// content 4 columns to the left. `None` for blank lines.
fn content_column(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches(' ');
    if rest.is_empty() {
        return None;
    }
    let indent = line.len() - rest.len();
    let symbol = ["-/+ ", "+/- ", "<= ", "+ ", "- ", "~ "]
        .iter()
        .find(|s| rest.starts_with(**s));
    Some(indent + symbol.map_or(0, |s| s.len()))
}

/// Index of the line that opens the container holding line `idx`.
fn opener_of(lines: &[String], idx: usize) -> Option<usize> {
    let target = content_column(&lines[idx])?.checked_sub(4)?;
    for k in (0..idx).rev() {
        match content_column(&lines[k]) {
            None => continue,
            Some(c) if c > target => continue,
            Some(c) if c == target => return Some(k),
            Some(_) => return None,
        }
    }
    None
}

fn ends_with_open_brace(line: &str) -> bool {
    let t = line.trim_end();
    t.strip_suffix(" # forces replacement")
        .unwrap_or(t)
        .ends_with('{')
}

fn inside_jsonencode(lines: &[String], mut k: usize) -> bool {
    loop {
        let l = lines[k].trim_end();
        if l.ends_with("jsonencode(") || l.contains("jsonencode( #") {
            return true;
        }
        match opener_of(lines, k) {
            Some(p) => k = p,
            None => return false,
        }
    }
}

/// N5. The newest renderer pads output names to the longest name among
/// **all** `output_changes`, no-op ones included; 1.0.3 only counted the
/// outputs it showed. With a no-op output `fresh`:
/// `  ~ list = [` → `  ~ list  = [`.
fn repad_output_name(line: &mut String, width: usize) {
    let Some(body) = line.strip_prefix("  ") else {
        return;
    };
    let Some(symbol) = body.get(..2).filter(|s| matches!(*s, "+ " | "- " | "~ ")) else {
        return;
    };
    let rest = &body[2..];
    let Some(name_end) = rest.find(' ') else {
        return;
    };
    let name = &rest[..name_end];
    let is_ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let Some(value) = rest[name_end..].trim_start_matches(' ').strip_prefix("= ") else {
        return;
    };
    if is_ident {
        *line = format!("  {symbol}{name:<width$} = {value}");
    }
}

/// N6. The newest renderer prints resource changes in `plan.json` order
/// (sorted by address string: `module.app["green"].module.db.…` before
/// `module.app["green"].null_resource.svc`); 1.0.3 sorted them with
/// `AbsResourceInstance.Less`, shallower modules first. Reorders the blocks of
/// "Terraform will perform the following actions:" into JSON order. If a
/// block's address is not found the text is left as it is.
fn json_order_of_changes(lines: Vec<String>, addresses: &[String]) -> Vec<String> {
    let Some(h) = lines
        .iter()
        .position(|l| l == "Terraform will perform the following actions:")
    else {
        return lines;
    };
    let Some(plan) = lines[h..]
        .iter()
        .position(|l| l.starts_with("Plan: "))
        .map(|p| p + h)
    else {
        return lines;
    };
    // The region is "", block, "", block, …, "" (each change is printed as
    // "\n" + diff + "\n"). A block starts at a top-level comment after a blank line.
    let region = &lines[h + 1..plan];
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for (i, line) in region.iter().enumerate() {
        if is_resource_comment(line) && i > 0 && region[i - 1].is_empty() {
            blocks.push(Vec::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push(line.clone());
        }
    }
    let mut keyed = Vec::new();
    for mut block in blocks {
        while block.last().is_some_and(|l| l.is_empty()) {
            block.pop();
        }
        let first = block[0].trim_start();
        let found = addresses
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                first
                    .strip_prefix("# ")
                    .is_some_and(|r| r.starts_with(&format!("{a} ")))
            })
            .max_by_key(|(_, a)| a.len());
        let Some((index, _)) = found else {
            return lines;
        };
        keyed.push((index, block));
    }
    keyed.sort_by_key(|(index, _)| *index);
    let mut out: Vec<String> = lines[..=h].to_vec();
    for (_, block) in keyed {
        out.push(String::new());
        out.extend(block);
    }
    out.push(String::new());
    out.extend_from_slice(&lines[plan..]);
    out
}

/// N7. 1.0.3's JSON has no `action_reason` for reads (added in 1.2), but its
/// text still printed the reason line; the newest renderer prints it only
/// from `action_reason`. Drops
/// `  # (config refers to values not yet known)` /
/// `  # (depends on a resource or a module with changes pending)` under
/// `  # <addr> will be read during apply` when that change has no reason in
/// `plan.json`.
fn drop_read_reason_without_json_reason(lines: Vec<String>, facts: &PlanFacts) -> Vec<String> {
    let reasons: HashMap<&str, bool> = facts
        .change_addresses
        .iter()
        .map(|a| (a.as_str(), facts.with_reason.contains(a)))
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for line in lines {
        let drop = matches!(
            line.as_str(),
            "  # (config refers to values not yet known)"
                | "  # (depends on a resource or a module with changes pending)"
        ) && out.last().is_some_and(|prev| {
            prev.strip_prefix("  # ")
                .and_then(|p| p.strip_suffix(" will be read during apply"))
                .is_some_and(|addr| reasons.get(addr) == Some(&false))
        });
        if !drop {
            out.push(line);
        }
    }
    out
}
