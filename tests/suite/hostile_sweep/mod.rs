//! Issue 22 acceptance: a hostile sweep. Each case under `tests/fixtures/hostile-sweep/`
//! puts attacker-chosen strings (`generate.py` lists the payloads) in one place a plan, log
//! or command-line name reaches output. Every case is rendered in every format and posted
//! with `planmark comment` to the fake GitHub as in Actions, and everything it produced
//! (stdout, stderr, the comment, step summary and outputs) is checked by [`Sweep`]: the
//! project's own checkers, a pulldown-cmark parse as GitHub reads comments, and direct
//! rules. `the_checks_catch_every_payload_unescaped` shows each rule can fail.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::check::{check_markdown, live_references};
use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};
use support::fake_github::FakeGitHub;
use support::publishing::{assert_ok, command, fake, output, OWNER, REPO};
use support::temp::TempDir;

mod checks;
mod github;
mod github_html;
// Names with quotes, `?`, `<` and line breaks, and names that are not UTF-8.
#[cfg(unix)]
mod paths;
mod render;
mod self_test;
use checks::*;

/// GitHub's comment extensions plus math, which GitHub renders from `$`.
const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_GFM)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_MATH);

/// GitHub's comment size limit, in UTF-16 code units.
const MAX_CHARS: usize = 65_536;

/// Words the payloads carry inside block syntax: seen in a heading, list item, quote,
/// table or indented code block, they mean hostile text started that block.
const BLOCK_CANARIES: [&str; 14] = [
    "HDG1",
    "SETEXT",
    "LST",
    "OLST",
    "INDCODE",
    "TABIND",
    "QUOTEIND",
    "STAR",
    "PAREN",
    "PLUS",
    "TBLA",
    "ALRT",
    "FTNDEF",
    "Plan: 31337",
];

/// Tags planmark itself writes in a comment; any other tag came from a plan.
const COMMENT_TAGS: [&str; 12] = [
    "b", "code", "details", "summary", "sub", "sup", "br", "i", "em", "strong", "p", "div",
];

/// Tags of the HTML preview's own page and of what GitHub renders planmark's comment to.
const PREVIEW_TAGS: &str = "html head meta title style body main div span p h1 h2 h3 h4 h5 h6 \
    ul ol li table thead tbody tr th td details summary code pre b strong i em sub sup br hr \
    blockquote svg path del s";

fn sweep_dir() -> PathBuf {
    support::fixtures_dir().join("hostile-sweep")
}

/// One case: its arguments (with `{dir}` resolved) and the values that must appear nowhere.
struct Case {
    name: String,
    args: Vec<String>,
    secrets: Vec<String>,
}

fn cases() -> Vec<Case> {
    support::case_dirs(&sweep_dir())
        .into_iter()
        .map(|(name, dir)| {
            let args: Vec<String> =
                serde_json::from_str(&support::read_text(&dir.join("args.json"))).unwrap();
            let dir_arg = dir.display().to_string();
            Case {
                name,
                args: args.iter().map(|a| a.replace("{dir}", &dir_arg)).collect(),
                secrets: support::read_text(&dir.join("secrets.txt"))
                    .lines()
                    .map(str::to_owned)
                    .collect(),
            }
        })
        .collect()
}
