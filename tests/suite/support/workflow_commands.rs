//! GitHub's runner reading a step's output for workflow commands, written from its rules
//! (actions/runner, `ActionCommand.TryParseV2` and `ActionCommandManager`) so that tests
//! see planmark's output as the runner does:
//!
//! - the output is split into lines at LF, CR LF and a lone CR (.NET's `ReadLine`);
//! - a line is a command when, with its leading whitespace trimmed, it starts `::` and has
//!   another `::` after that: `::NAME PROPERTIES::MESSAGE`, the name ending at the first
//!   space; the properties (trimmed) split at `,` (empty parts dropped), each at its first
//!   `=` (a part with an empty key or value is dropped);
//! - a property's value is unescaped by replacing, in this order, `%0D`, `%0A`, `%3A`,
//!   `%2C` and `%25`; the message likewise with `%0D`, `%0A` and `%25`;
//! - after `::stop-commands::TOKEN` no line is a command until one whose command name is
//!   TOKEN (compared without case), which resumes them.
//!
//! Any name counts as a command here (the runner ignores names it does not know), so a
//! test that finds no stray command is stricter than the runner.

/// One workflow command as the runner reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowCommand {
    /// The line's index among the runner's lines (see [`runner_lines`]).
    pub line: usize,
    pub name: String,
    /// In the line's order; a repeated key is kept twice (the runner keeps the last).
    pub properties: Vec<(String, String)>,
    pub message: String,
}

impl WorkflowCommand {
    /// The value of the property `key`, if given.
    pub fn property(&self, key: &str) -> Option<&str> {
        (self.properties.iter().rev())
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// What the runner made of a step's output.
#[derive(Debug, Default)]
pub struct Reading {
    /// Every command run, pauses and resumptions included, in order.
    pub commands: Vec<WorkflowCommand>,
    /// The lines read while commands were paused (indices among the runner's lines),
    /// the pausing and resuming lines not included.
    pub paused: Vec<usize>,
    /// The token of a pause never resumed, if any.
    pub unresumed: Option<String>,
}

impl Reading {
    /// The commands but `stop-commands` and resumptions.
    pub fn annotations(&self) -> Vec<&WorkflowCommand> {
        (self.commands.iter())
            .filter(|c| matches!(c.name.as_str(), "warning" | "error" | "notice"))
            .collect()
    }
}

/// `text` cut into lines as the runner reads a process's output.
pub fn runner_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['\r', '\n']) {
            Some(at) => {
                lines.push(&rest[..at]);
                let skip = if rest[at..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[at + skip..];
            }
            None => {
                lines.push(rest);
                rest = "";
            }
        }
    }
    lines
}

/// The command `line` is to the runner, when commands are not paused.
pub fn parse_command(line: &str, index: usize) -> Option<WorkflowCommand> {
    let line = line.trim_start();
    let after = line.strip_prefix("::")?;
    let end = after.find("::")?;
    let info = &after[..end];
    let (name, properties) = match info.find(' ') {
        Some(space) => (&info[..space], Some(&info[space + 1..])),
        None => (info, None),
    };
    if name.is_empty() {
        return None;
    }
    let properties = properties
        .map(|text| {
            (text.trim().split(','))
                .filter(|p| !p.is_empty())
                .filter_map(|p| p.split_once('='))
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .map(|(k, v)| (k.to_string(), unescape_property(v)))
                .collect()
        })
        .unwrap_or_default();
    Some(WorkflowCommand {
        line: index,
        name: name.to_string(),
        properties,
        message: unescape_data(&after[end + 2..]),
    })
}

/// Reads `output` (a step's standard output or error) as the runner does.
pub fn read(output: &str) -> Reading {
    let mut reading = Reading::default();
    for (index, line) in runner_lines(output).into_iter().enumerate() {
        let command = parse_command(line, index);
        if let Some(token) = &reading.unresumed {
            match command {
                Some(c) if c.name.eq_ignore_ascii_case(token) => {
                    reading.commands.push(c);
                    reading.unresumed = None;
                }
                _ => reading.paused.push(index),
            }
            continue;
        }
        if let Some(c) = command {
            if c.name.eq_ignore_ascii_case("stop-commands") {
                reading.unresumed = Some(c.message.clone());
            }
            reading.commands.push(c);
        }
    }
    reading
}

fn unescape_data(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%")
}

fn unescape_property(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}
