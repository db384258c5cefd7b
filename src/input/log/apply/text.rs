//! Input stage, apply logs in plain text: the lines `terraform apply` prints for each
//! resource (`ADDR: Creating...`, `ADDR: Creation complete after 1s [id=…]`), its closing
//! `Apply complete! Resources: …` and `Outputs:`, read into the [`Recorder`] that the JSON
//! stream's reader fills too. Diagnostics are read by the plan log's reader beforehand;
//! here an error's `with ADDR,` line names the resource it concerns.
//!
//! Contract: a line is a resource's only when its address ends at the first `: ` outside
//! brackets and is followed by one of Terraform's phrases, so a provisioner's output
//! (`ADDR (local-exec): …`) never counts as one. `<sensitive>` outputs have no value.

use super::super::PlanLog;
use super::model::{Action, AppliedOutput, Counts, Hook, Recorder};

/// The phrases after `ADDR: `, the stage and the action they mean.
const PHRASES: [(&str, Hook, Action); 15] = [
    ("Creating...", Hook::Start, Action::Create),
    ("Modifying...", Hook::Start, Action::Update),
    ("Destroying...", Hook::Start, Action::Delete),
    ("Reading...", Hook::Start, Action::Read),
    ("Importing...", Hook::Start, Action::Import),
    ("Creation complete", Hook::Complete, Action::Create),
    ("Modifications complete", Hook::Complete, Action::Update),
    ("Destruction complete", Hook::Complete, Action::Delete),
    ("Read complete", Hook::Complete, Action::Read),
    ("Import complete", Hook::Complete, Action::Import),
    ("Creation errored", Hook::Errored, Action::Create),
    ("Modifications errored", Hook::Errored, Action::Update),
    ("Destruction errored", Hook::Errored, Action::Delete),
    ("Read errored", Hook::Errored, Action::Read),
    ("Import errored", Hook::Errored, Action::Import),
];

/// Reads the lines of a plain-text apply log into `recorder`, and names the resource of
/// each error in `log` that says `with ADDR,`.
pub(in crate::input::log) fn read(lines: &[String], log: &mut PlanLog, recorder: &mut Recorder) {
    let mut outputs_at = None;
    for (i, line) in lines.iter().enumerate() {
        if let Some((address, rest)) = resource_line(line) {
            if let Some((_, hook, action)) = PHRASES.iter().find(|(p, _, _)| rest.starts_with(p)) {
                recorder.hook(address, *hook, *action);
            }
            continue;
        }
        let trimmed = line.trim();
        if let Some((address, action)) = trimmed.strip_prefix("# ").and_then(planned) {
            recorder.planned(address, action);
        } else if let Some(counts) = trimmed
            .strip_prefix("Apply complete! Resources: ")
            .or_else(|| trimmed.strip_prefix("Destroy complete! Resources: "))
        {
            recorder.applying = true;
            recorder.finished = true;
            recorder.summary = Some(summary(counts));
        } else if trimmed == "Outputs:" && recorder.finished {
            outputs_at = Some(i + 1);
        } else if trimmed.starts_with("Plan: ") && trimmed.contains(" to add")
            || trimmed.starts_with("No changes.")
        {
            recorder.planned_only = true;
        }
    }
    if let Some(start) = outputs_at {
        recorder.outputs = Some(outputs(&lines[start..]));
    }
    for d in &mut log.diagnostics {
        if d.address.is_none() {
            d.address = d.text.as_deref().and_then(with_address);
        }
        // An unboxed block runs on to two blank lines: it must not take in what follows.
        if let Some(text) = &mut d.text {
            if let Some(n) = text.lines().position(ends_block) {
                let kept = text.lines().take(n).collect::<Vec<_>>().join("\n");
                *text = kept.trim_end().to_string();
            }
        }
        d.text = d.text.take().filter(|t| !t.is_empty());
    }
}

/// A line of the apply itself, which no diagnostic block holds.
fn ends_block(line: &str) -> bool {
    let trimmed = line.trim();
    resource_line(line).is_some()
        || trimmed.starts_with("Apply complete! ")
        || trimmed.starts_with("Destroy complete! ")
        || trimmed == "Outputs:"
}

/// The characters of `text` outside the quoted keys of instance addresses
/// (`["a \"b\""]`, escapes included), each with its byte offset and the bracket depth
/// before it.
fn unquoted(text: &str) -> impl Iterator<Item = (usize, char, usize)> + '_ {
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    text.char_indices().filter_map(move |(i, c)| {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => {}
            }
            return None;
        }
        let before = depth;
        match c {
            '"' if depth > 0 => quoted = true,
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        Some((i, c, before))
    })
}

/// `ADDR: rest` (or `ADDR (deposed object KEY): rest`): the address and the rest, when
/// the line is a resource's.
fn resource_line(line: &str) -> Option<(&str, &str)> {
    let mut end = None;
    // Where the first space outside brackets is (`ADDR (deposed object …)`, `ADDR (local-exec)`).
    let mut space = None;
    for (i, c, depth) in unquoted(line) {
        match c {
            ' ' if depth == 0 => {
                space.get_or_insert(i);
            }
            // A bracket closed that was never opened: no address.
            ']' if depth == 0 => return None,
            ':' if depth == 0 && line[i + 1..].starts_with(' ') => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let head = &line[..end];
    let address = match space {
        None => head,
        Some(at) if head[at..].starts_with(" (deposed object ") && head.ends_with(')') => {
            &head[..at]
        }
        Some(_) => return None,
    };
    let plain = address.starts_with(|c: char| c.is_ascii_alphabetic()) && address.contains('.');
    // `ADDR (local-exec): …` is a provisioner's output: the address holds a space.
    plain.then(|| (address, &line[end + 2..]))
}

/// What the plan printed before an apply without a plan file says of a resource
/// (`# ADDR will be created`, `# ADDR (deposed object KEY) will be destroyed`, `# ADDR is
/// tainted, so must be replaced`, `# OLD has moved to ADDR`): its address and action.
fn planned(text: &str) -> Option<(&str, Action)> {
    const ENDINGS: [(&str, Action); 7] = [
        (" will be created", Action::Create),
        (" will be destroyed", Action::Delete),
        (" will be updated in-place", Action::Update),
        (" must be replaced", Action::Replace),
        (" will be read during apply", Action::Read),
        (" will be imported", Action::Import),
        (" will no longer be managed by Terraform", Action::Forget),
    ];
    if let Some((_, to)) = text.split_once(" has moved to ") {
        return plain_address(to).map(|a| (a, Action::Move));
    }
    let (_, action) = ENDINGS.iter().find(|(end, _)| text.ends_with(end))?;
    // The address ends at its first space outside brackets.
    let end = unquoted(text)
        .find(|&(_, c, depth)| c == ' ' && depth == 0)
        .map_or(text.len(), |(i, ..)| i);
    plain_address(&text[..end]).map(|a| (a, *action))
}

/// `text` when it can be an address: a letter first, a dot, no space outside brackets.
fn plain_address(text: &str) -> Option<&str> {
    let outside = &text[..text.find('[').unwrap_or(text.len())];
    let plain = text.starts_with(|c: char| c.is_ascii_alphabetic())
        && outside.contains('.')
        && !outside.contains(' ');
    plain.then_some(text)
}

/// `1 imported, 3 added, 0 changed, 2 destroyed.`
fn summary(text: &str) -> Counts {
    let mut counts = Counts::default();
    for part in text.trim_end_matches('.').split(", ") {
        let Some((n, word)) = part.split_once(' ') else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else {
            continue;
        };
        match word {
            "added" => counts.add = n,
            "changed" => counts.change = n,
            "destroyed" => counts.destroy = n,
            "imported" => counts.import = n,
            _ => {}
        }
    }
    counts
}

/// `NAME = VALUE` entries (a value may continue on the lines after, up to a blank line or
/// the next entry).
fn outputs(lines: &[String]) -> Vec<AppliedOutput> {
    let mut outputs: Vec<AppliedOutput> = Vec::new();
    let mut open = false;
    for line in lines {
        if let Some((name, value)) = output_start(line) {
            let sensitive = value.trim() == "<sensitive>";
            outputs.push(AppliedOutput {
                name: name.to_string(),
                sensitive,
                value: (!sensitive).then(|| value.to_string()),
            });
            open = !sensitive;
        } else if line.trim().is_empty() {
            open = false;
        } else if open {
            if let Some(value) = outputs.last_mut().and_then(|o| o.value.as_mut()) {
                value.push('\n');
                value.push_str(line);
            }
        }
    }
    outputs
}

fn output_start(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once(" = ")?;
    let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    identifier.then_some((name, value))
}

/// `with ADDR,` in an error block's text.
fn with_address(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let address = l.trim().strip_prefix("with ")?.strip_suffix(',')?;
        let plain = address.starts_with(|c: char| c.is_ascii_alphabetic())
            && !address[..address.find('[').unwrap_or(address.len())].contains(' ');
        plain.then(|| address.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_lines_and_provisioner_output_are_told_apart() {
        assert_eq!(
            resource_line("null_resource.web[\"a: b\"]: Creating..."),
            Some(("null_resource.web[\"a: b\"]", "Creating..."))
        );
        assert_eq!(
            resource_line("null_resource.db (deposed object dc43beb8): Destroying... [id=1]"),
            Some(("null_resource.db", "Destroying... [id=1]"))
        );
        assert_eq!(
            resource_line("null_resource.x (local-exec): null_resource.y: Creating..."),
            None
        );
        assert_eq!(
            resource_line("null_resource.web[\"a\\\"]: b\"]: Creating..."),
            Some(("null_resource.web[\"a\\\"]: b\"]", "Creating..."))
        );
        assert_eq!(resource_line("Error: bad"), None);
        assert_eq!(resource_line("x] y.z: w"), None);
    }

    #[test]
    fn summaries_and_outputs_are_read() {
        let c = summary("1 imported, 3 added, 0 changed, 2 destroyed.");
        assert_eq!((c.import, c.add, c.change, c.destroy), (1, 3, 0, 2));
        let lines: Vec<String> = ["", "a = <sensitive>", "b = [", "  \"x\",", "]", "", "c = 1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = outputs(&lines);
        assert_eq!(o.len(), 3);
        assert_eq!((o[0].sensitive, o[0].value.as_deref()), (true, None));
        assert_eq!(o[1].value.as_deref(), Some("[\n  \"x\",\n]"));
        assert_eq!(
            with_address("  with a.b,\n  on main.tf"),
            Some("a.b".into())
        );
    }

    #[test]
    fn the_plan_printed_before_an_apply_names_what_was_planned() {
        assert_eq!(
            planned("null_resource.web[\"a b\"] will be created"),
            Some(("null_resource.web[\"a b\"]", Action::Create))
        );
        assert_eq!(
            planned("null_resource.db (deposed object 1a2b) will be destroyed"),
            Some(("null_resource.db", Action::Delete))
        );
        assert_eq!(
            planned("aws_x.y is tainted, so must be replaced"),
            Some(("aws_x.y", Action::Replace))
        );
        assert_eq!(
            planned("aws_x.old has moved to aws_x.new"),
            Some(("aws_x.new", Action::Move))
        );
        // An escaped quote does not end the key, nor does a space after it.
        assert_eq!(
            planned("null_resource.web[\"a\\\"] b\"] will be created"),
            Some(("null_resource.web[\"a\\\"] b\"]", Action::Create))
        );
        assert_eq!(planned("aws_x.y has changed"), None);
        assert_eq!(planned("no address will be created"), None);
    }
}
