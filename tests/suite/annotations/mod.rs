//! Annotations under GitHub Actions: `planmark render` and `comment` print a workflow
//! command (`::warning`/`::error`) for each destroy, replacement, Rego finding, broken
//! gate and failed check, placed at its block. Every test reads the output as the runner
//! does ([`crate::support::workflow_commands`]): the annotations must be commands outside
//! any `::stop-commands::` pause, one per item up to GitHub's cap of ten per level, each
//! at the right file and line, with hostile names read back exactly and never a second
//! command; and none where the runner would not read them or they were not asked for.
//!
//! - `runner_model`: the test's reading of the runner's rules, checked on its own.
//! - `placement`: one annotation per item, at its block; the cap and its summary.
//! - `hostile`: addresses, messages, plan names and directories holding `::`, `%`, `,`,
//!   `:`, CR, LF, `%0A`, `::stop-commands::` and a forged resuming line.
//! - `streams`: `--annotations false`, outside Actions, standard output in a file,
//!   `render -o FILE`, `comment --dry-run`.

use crate::support::bin::{command, crate_dir};
use crate::support::temp::TempDir;
use crate::support::workflow_commands::{self, Reading, WorkflowCommand};

use std::path::{Path, PathBuf};
use std::process::Stdio;

mod hostile;
mod placement;
mod runner_model;
mod streams;

/// The real plan with destroys and replacements, and the repository it was made from.
const CASE: &str = "tests/fixtures/annotations/destroys-and-replacements";

/// The commit links point at (`--commit`).
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn case() -> PathBuf {
    crate_dir().join(CASE)
}

/// Where planmark's standard output goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stdout {
    /// A pipe, as the runner reads a step's output.
    Pipe,
    /// A regular file (`planmark render > comment.md`).
    File,
    /// Nowhere (`planmark render > /dev/null`): a device, not a terminal.
    Null,
}

/// One run of the binary.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn describe(&self) -> String {
        format!(
            "exit {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `planmark ARGS` with only the GitHub variables of `env` (those of the test's own
/// environment removed, as it may run in Actions itself).
fn planmark(args: &[&str], env: &[(&str, &str)], stdout: Stdout) -> Ran {
    planmark_in(&crate_dir(), args, env, stdout)
}

/// [`planmark`] run in the directory `cwd`.
fn planmark_in(cwd: &Path, args: &[&str], env: &[(&str, &str)], stdout: Stdout) -> Ran {
    let mut cmd = command(args);
    cmd.current_dir(cwd);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(name);
        }
    }
    cmd.env_remove("PLANMARK_GITHUB_TOKEN");
    for (name, value) in env {
        cmd.env(name, value);
    }
    let temp = TempDir::new("annotations-stdout");
    let file = temp.join("stdout");
    cmd.stdin(Stdio::null()).stderr(Stdio::piped());
    match stdout {
        Stdout::Pipe => cmd.stdout(Stdio::piped()),
        Stdout::File => cmd.stdout(std::fs::File::create(&file).unwrap()),
        Stdout::Null => cmd.stdout(Stdio::null()),
    };
    let output = cmd.output().expect("run planmark");
    let printed = match stdout {
        Stdout::Pipe => output.stdout,
        Stdout::File => std::fs::read(&file).unwrap(),
        Stdout::Null => Vec::new(),
    };
    Ran {
        code: output.status.code(),
        stdout: String::from_utf8(printed).expect("UTF-8 output"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 output"),
    }
}

/// The environment of a pull request's job: Actions, the repository checked out at
/// `workspace`.
fn actions_env(workspace: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("GITHUB_ACTIONS", "true".into()),
        ("GITHUB_WORKSPACE", workspace.display().to_string()),
        ("GITHUB_REPOSITORY", "octo/infra".into()),
        ("GITHUB_SERVER_URL", "https://github.com".into()),
    ]
}

/// `planmark ARGS` in a job whose checkout is the case's `repo/`, with `--config-dir` at
/// its `infra/` and `--commit`.
fn in_actions(args: &[&str], stdout: Stdout) -> Ran {
    let repo = case().join("repo");
    let config = repo.join("infra");
    let mut all: Vec<&str> = args.to_vec();
    let config = config.to_str().unwrap();
    all.extend(["--config-dir", config, "--commit", COMMIT]);
    let env = actions_env(&repo);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    planmark(&all, &env, stdout)
}

/// What an annotation says, as the runner read it: level, file and line, title, message.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Seen {
    level: String,
    place: Option<(String, usize)>,
    title: String,
    message: String,
}

impl Seen {
    fn new(level: &str, place: Option<(&str, usize)>, title: &str, message: &str) -> Seen {
        Seen {
            level: level.into(),
            place: place.map(|(f, l)| (f.to_string(), l)),
            title: title.into(),
            message: message.into(),
        }
    }

    fn of(command: &WorkflowCommand) -> Seen {
        let keys: Vec<&str> = command.properties.iter().map(|(k, _)| k.as_str()).collect();
        assert!(
            keys.iter().all(|k| ["file", "line", "title"].contains(k)),
            "unexpected properties: {command:?}"
        );
        let mut sorted = keys.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len(), "a repeated property: {command:?}");
        let place = match (command.property("file"), command.property("line")) {
            (Some(file), Some(line)) => Some((file.to_string(), line.parse().unwrap())),
            (None, None) => None,
            _ => panic!("a file without its line or a line without its file: {command:?}"),
        };
        Seen {
            level: command.name.clone(),
            place,
            title: command.property("title").unwrap_or_default().to_string(),
            message: command.message.clone(),
        }
    }
}

/// Reads `output` as the runner does and checks what every annotated output must hold:
/// every pause resumed, and every command but the pauses an annotation printed after
/// the last of them. Returns the annotations, sorted.
fn annotations(output: &str) -> Vec<Seen> {
    let reading: Reading = workflow_commands::read(output);
    assert_eq!(reading.unresumed, None, "a pause never resumed:\n{output}");
    let last_pause_end = (reading.commands.iter())
        .filter(|c| !matches!(c.name.as_str(), "warning" | "error"))
        .map(|c| c.line)
        .max();
    let mut seen = Vec::new();
    let mut tokens = Vec::new();
    for c in &reading.commands {
        match c.name.as_str() {
            "warning" | "error" => {
                assert!(
                    last_pause_end.is_none_or(|end| c.line > end),
                    "an annotation before the output's last pause ends: {c:?}\n{output}"
                );
                seen.push(Seen::of(c));
            }
            "stop-commands" => tokens.push(c.message.to_ascii_lowercase()),
            // The resumption names the token of the pause before it.
            name => assert!(
                tokens.contains(&name.to_ascii_lowercase()),
                "a command that is neither a pause nor an annotation: {c:?}\n{output}"
            ),
        }
    }
    seen.sort();
    seen
}

/// The 1-based line of the first line of `file` (under the case's `repo/`) that starts
/// with `block`: where an annotation of that block must point.
fn line_of(file: &str, block: &str) -> (String, usize) {
    let text = std::fs::read_to_string(case().join("repo").join(file)).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with(block))
        .unwrap_or_else(|| panic!("{file} has no line starting {block:?}"));
    (file.to_string(), line + 1)
}
