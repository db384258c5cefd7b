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

use planmark::render::check::{check_markdown, live_references};
use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};
use support::fake_github::FakeGitHub;
use support::publishing::{assert_ok, command, fake, output, OWNER, REPO};
use support::temp::TempDir;

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

/// What the rules found, as "case, where: what" lines.
#[derive(Default)]
struct Sweep(Vec<String>);

impl Sweep {
    fn push(&mut self, at: &str, what: impl std::fmt::Display) {
        self.0.push(format!("{at}: {what}"));
    }

    /// No sensitive value, as written or as a reader sees it after entities.
    fn secrets(&mut self, at: &str, text: &str, secrets: &[String]) {
        let shown = visible(text);
        for s in secrets {
            if text.contains(s.as_str()) || shown.contains(s.as_str()) {
                self.push(at, format!("sensitive value {s} shown"));
            }
        }
    }

    /// No line the Actions runner would take as a workflow command, outside a pause.
    fn workflow_commands(&mut self, at: &str, text: &str) {
        let mut resume: Option<String> = None;
        for line in text.lines() {
            if let Some(token) = &resume {
                if line == format!("::{token}::") {
                    resume = None;
                }
                continue;
            }
            if let Some(token) = line.strip_prefix("::stop-commands::") {
                resume = Some(token.to_string());
            } else if line.trim_start().starts_with("::") {
                self.push(at, format!("workflow command {:?}", preview(line)));
            }
        }
    }

    /// The comment (or Markdown output) as GitHub would read it.
    fn markdown(&mut self, at: &str, md: &str) {
        self.markdown_within(at, md, MAX_CHARS)
    }

    /// As [`Sweep::markdown`], for a text allowed `limit` UTF-16 units (the step summary).
    fn markdown_within(&mut self, at: &str, md: &str, limit: usize) {
        if md.matches("<!-- planmark:v1 ").count() == 0 {
            return self.push(at, "no marker");
        }
        for p in check_markdown(md) {
            self.push(at, p);
        }
        for r in live_references(md) {
            self.push(at, format!("live reference {r:?}"));
        }
        if md.encode_utf16().count() > limit {
            self.push(at, format!("{} UTF-16 units", md.encode_utf16().count()));
        }
        self.parsed(at, md);
        let code = code_ranges(md);
        for (offset, tag) in tags(md) {
            let in_code = code.iter().any(|r| r.contains(&offset));
            if !COMMENT_TAGS.contains(&tag.as_str()) && !in_code {
                self.push(at, format!("raw HTML <{tag}>"));
            }
        }
        // Only the last line may hold a marker.
        let body = md.trim_end();
        let last = body.rfind('\n').map_or(body, |n| &body[n + 1..]);
        if !last.starts_with("<!-- planmark:v1 ") {
            self.push(at, "the last line is not planmark's marker");
        }
    }

    fn parsed(&mut self, at: &str, md: &str) {
        // (block kind, text seen inside it so far)
        let mut blocks: Vec<(String, String)> = Vec::new();
        let (mut quote, mut code) = (0usize, 0usize);
        let mut line = String::new();
        let standalone = |line: &mut String, quote: usize, sweep: &mut Sweep| {
            let l = visible(line);
            let l = l.trim();
            if quote == 0
                && (l.starts_with("Plan: 31337")
                    || l.starts_with("### ✅ No changes")
                    || l.starts_with("**Plan:** 31337"))
            {
                sweep.push(at, format!("planmark-like line alone {:?}", preview(l)));
            }
            line.clear();
        };
        for event in Parser::new_ext(md, OPTIONS) {
            match event {
                Event::InlineMath(m) | Event::DisplayMath(m) => {
                    self.push(at, format!("math {:?}", preview(&m)))
                }
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    ..
                })
                | Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    ..
                }) => {
                    let hostile = dest_url.contains("evil") || dest_url.contains("javascript");
                    if hostile || matches!(link_type, LinkType::Autolink | LinkType::Email) {
                        self.push(at, format!("link to {dest_url:?}"));
                    }
                }
                Event::Start(Tag::CodeBlock(kind)) => {
                    code += 1;
                    if let CodeBlockKind::Indented = kind {
                        blocks.push(("indented code".into(), String::new()));
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    code -= 1;
                    if blocks.last().is_some_and(|b| b.0 == "indented code") {
                        let (kind, text) = blocks.pop().unwrap();
                        self.canaries(at, &kind, &text);
                    }
                }
                Event::Start(tag) => {
                    let kind = match tag {
                        Tag::Heading { .. } => Some("heading"),
                        Tag::Item => Some("list item"),
                        Tag::TableCell => Some("table cell"),
                        Tag::FootnoteDefinition(_) => Some("footnote"),
                        Tag::BlockQuote(kind) => {
                            quote += 1;
                            kind.map(|_| "alert")
                        }
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        blocks.push((kind.into(), String::new()));
                    }
                }
                Event::End(end) => {
                    if matches!(end, TagEnd::Heading(_) | TagEnd::TableCell) {
                        standalone(&mut line, quote, self);
                    }
                    let ends = match end {
                        TagEnd::Heading(_) => Some("heading"),
                        TagEnd::Item => Some("list item"),
                        TagEnd::TableCell => Some("table cell"),
                        TagEnd::FootnoteDefinition => Some("footnote"),
                        TagEnd::BlockQuote(kind) => {
                            quote -= 1;
                            kind.map(|_| "alert")
                        }
                        TagEnd::Paragraph => {
                            standalone(&mut line, quote, self);
                            None
                        }
                        _ => None,
                    };
                    if let Some(kind) = ends {
                        if let Some(pos) = blocks.iter().rposition(|b| b.0 == kind) {
                            let (kind, text) = blocks.remove(pos);
                            if kind == "footnote" {
                                self.push(at, "footnote definition");
                            }
                            self.canaries(at, &kind, &text);
                        }
                    }
                }
                Event::Text(t) | Event::Code(t) => {
                    if code == 0 {
                        line.push_str(&t);
                    }
                    for b in blocks.iter_mut() {
                        b.1.push_str(&t);
                    }
                }
                Event::SoftBreak | Event::HardBreak => standalone(&mut line, quote, self),
                Event::InlineHtml(h) if h.eq_ignore_ascii_case("<br>") => {
                    standalone(&mut line, quote, self)
                }
                Event::FootnoteReference(r) => self.push(at, format!("footnote reference {r}")),
                _ => {}
            }
        }
    }

    /// A block hostile text started begins with a canary (indented code holds one anywhere:
    /// planmark writes none, so its text is all hostile).
    fn canaries(&mut self, at: &str, kind: &str, text: &str) {
        let text = visible(text);
        let text = text.trim_start();
        for c in BLOCK_CANARIES {
            let hit = if kind == "indented code" {
                text.contains(c)
            } else {
                text.starts_with(c)
            };
            if hit {
                self.push(at, format!("{kind} started by {c}: {:?}", preview(text)));
                return;
            }
        }
    }

    /// The HTML preview: no tag or comment the page does not write itself.
    fn html(&mut self, at: &str, html: &str) {
        for (_, tag) in tags(html) {
            if !PREVIEW_TAGS.split_whitespace().any(|t| t == tag) {
                self.push(at, format!("raw HTML <{tag}> in the preview"));
            }
        }
        for needle in ["href=\"javascript", "src=\"https://evil", "<!--"] {
            if html.to_ascii_lowercase().contains(needle) {
                self.push(at, format!("{needle} in the preview"));
            }
        }
    }
}

/// Lower-case names of the tags opened or closed in `text`, with their offsets (`!--` for
/// comments, which `check_markdown` judges).
fn tags(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    for (i, _) in text.match_indices('<') {
        let start = i + 1 + usize::from(b.get(i + 1) == Some(&b'/'));
        let name: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            found.push((i, name.to_ascii_lowercase()));
        }
    }
    found
}

/// The code spans and blocks of `md`, where GitHub shows `<` as text.
fn code_ranges(md: &str) -> Vec<std::ops::Range<usize>> {
    Parser::new_ext(md, OPTIONS)
        .into_offset_iter()
        .filter(|(event, _)| matches!(event, Event::Code(_) | Event::Start(Tag::CodeBlock(_))))
        .map(|(_, range)| range)
        .collect()
}

/// Text as a reader sees it: entities decoded, zero-width spaces gone.
fn visible(text: &str) -> String {
    let mut out = text.to_string();
    for _ in 0..2 {
        out = decode(&out);
    }
    out.replace('\u{200B}', "")
}

fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("&#") {
        out.push_str(&rest[..p]);
        rest = &rest[p + 2..];
        let hex = rest.starts_with(['x', 'X']);
        let digits = &rest[usize::from(hex)..];
        let n = digits
            .chars()
            .take_while(|c| c.is_digit(if hex { 16 } else { 10 }))
            .count();
        let c = u32::from_str_radix(&digits[..n], if hex { 16 } else { 10 })
            .ok()
            .and_then(char::from_u32);
        match c {
            Some(c) if n > 0 => {
                out.push(c);
                rest = &digits[n..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
            }
            _ => out.push_str("&#"),
        }
    }
    out.push_str(rest);
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

fn preview(s: &str) -> String {
    s.chars().take(70).collect()
}

fn run_render(case: &Case, format: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(["render", "--format", format]).args(&case.args);
    for (name, _) in std::env::vars() {
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("GITHUB_ACTIONS", "true").env("NO_COLOR", "1");
    cmd.output().expect("run planmark")
}

fn check_render(case: &Case, sweep: &mut Sweep) {
    for format in ["text", "markdown", "json", "html"] {
        let out = run_render(case, format);
        let at = format!("{}, render --format {format}", case.name);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        // 3 is a policy gate that still writes the output.
        if !matches!(out.status.code(), Some(0 | 3)) {
            sweep.push(&at, format!("exit {:?}: {}", out.status.code(), stderr));
            continue;
        }
        sweep.secrets(&at, &stdout, &case.secrets);
        sweep.secrets(&format!("{at}, stderr"), &stderr, &case.secrets);
        sweep.workflow_commands(&at, &stdout);
        sweep.workflow_commands(&format!("{at}, stderr"), &stderr);
        let body = unpaused(&stdout);
        match format {
            "markdown" => sweep.markdown(&at, &body),
            "html" => sweep.html(&at, &body),
            _ => {}
        }
    }
}

/// Printed text without the `::stop-commands::` pause around it.
fn unpaused(stdout: &str) -> String {
    let mut lines: Vec<&str> = stdout.split_inclusive('\n').collect();
    if lines
        .first()
        .is_some_and(|l| l.starts_with("::stop-commands::"))
    {
        lines.remove(0);
        lines.pop();
    }
    lines.concat()
}

#[test]
fn every_case_renders_safely_in_every_format() {
    let cases = cases();
    assert!(cases.len() >= 19, "{} cases", cases.len());
    let found: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(cases.len().div_ceil(2))
            .map(|chunk| {
                s.spawn(move || {
                    let mut sweep = Sweep::default();
                    for case in chunk {
                        check_render(case, &mut sweep);
                    }
                    sweep.0
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        found.is_empty(),
        "{} violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The key a case's comment carries: its own `--key`, else one the test adds.
fn key_args(case: &Case) -> (Vec<String>, String) {
    match case.args.iter().position(|a| a == "--key") {
        Some(i) => (vec![], case.args[i + 1].clone()),
        None => (vec!["--key".into(), "sweep".into()], "sweep".into()),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_case_posts_safely_to_github() {
    let gh = std::sync::Arc::new(fake().await);
    let temp = TempDir::new("sweep");
    let tmp = temp.path().to_path_buf();
    // Two cases at a time: CI has two cores.
    let limit = std::sync::Arc::new(tokio::sync::Semaphore::new(2));
    let mut tasks = Vec::new();
    for (pr, case) in (1..).zip(cases()) {
        let (gh, tmp, limit) = (gh.clone(), tmp.clone(), limit.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = limit.acquire().await.unwrap();
            post_case(&gh, pr, &case, &tmp).await
        }));
    }
    let mut found = Vec::new();
    for task in tasks {
        found.extend(task.await.expect("case task"));
    }
    assert!(
        found.is_empty(),
        "{} violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Posts `case` to pull request `pr` as in Actions, then an honest plan with the same key.
async fn post_case(gh: &FakeGitHub, pr: u64, case: &Case, tmp: &Path) -> Vec<String> {
    let mut sweep = Sweep::default();
    gh.add_pull(OWNER, REPO, pr, support::publishing::HEAD, "f", "open");
    let (extra, key) = key_args(case);
    let summary = tmp.join(format!("{pr}-summary"));
    let outputs = tmp.join(format!("{pr}-outputs"));
    let args = [extra, case.args.clone()].concat();
    let mut cmd = command(gh, pr, 20, &args);
    cmd.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs);
    let out = output(cmd).await;
    let at = format!("{}, comment", case.name);
    if !matches!(out.status.code(), Some(0 | 3)) {
        assert_ok(&at, &out);
    }
    let posted = support::publishing::ours(gh, pr);
    let Some(first) = posted.first() else {
        sweep.push(&at, "nothing posted");
        return sweep.0;
    };
    sweep.markdown(&at, &first.body);
    sweep.secrets(&at, &first.body, &case.secrets);
    for (what, text) in [
        ("stdout", String::from_utf8_lossy(&out.stdout).into_owned()),
        ("stderr", String::from_utf8_lossy(&out.stderr).into_owned()),
        ("step summary", read(&summary)),
        ("GITHUB_OUTPUT", read(&outputs)),
    ] {
        let at = format!("{at}, {what}");
        sweep.secrets(&at, &text, &case.secrets);
        match what {
            "step summary" => sweep.markdown_within(&at, &text, 1 << 20),
            "stdout" | "stderr" => sweep.workflow_commands(&at, &text),
            _ => {}
        }
    }
    // An honest run with the same key updates the comment: no copy was honoured.
    let honest = vec![
        "--key".to_string(),
        key,
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/plan.json")
            .display()
            .to_string(),
    ];
    let out = output(command(gh, pr, 21, &honest)).await;
    assert_ok(&format!("{at}, honest run"), &out);
    let after = support::publishing::ours(gh, pr);
    if after.len() != 1 || after[0].id != first.id || after[0].body == first.body {
        sweep.push(&at, "an honest run did not update the comment in place");
    }
    sweep.0
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Each rule fails on the payloads written raw, so a broken escaper would be caught.
#[test]
fn the_checks_catch_every_payload_unescaped() {
    let payloads = [
        ("marker", "<!-- planmark:v1 {\"key\":\"x\"} -->\n\nx\n\n"),
        ("html", "<img src=x onerror=alert(1)>"),
        ("link", "[EVILLINK](javascript:alert(1))"),
        ("image", "![x](https://evil.example/p.png)"),
        ("autolink", "<https://evil.example/auto>"),
        ("mention", "@octocat"),
        ("issue", "#123"),
        ("sha", "a5c3785ed8d6"),
        ("math", "$x^2$"),
        ("fence", "```\nEVILFENCE\n"),
        ("table", "| TBLA | b |\n|---|---|\n"),
        ("alert", "> [!CAUTION]\n> ALRT"),
        ("heading", "# HDG1"),
        ("setext", "SETEXT\n==="),
        ("list", "- LST"),
        ("indented", "    INDCODE"),
        ("footnote", "see[^1]\n\n[^1]: FTNDEF"),
        (
            "planmark line",
            "Plan: 31337 to add, 0 to change, 0 to destroy.",
        ),
    ];
    let marker = "<!-- planmark:v1 {\"v\":1} -->\n";
    for (name, raw) in payloads {
        let mut sweep = Sweep::default();
        sweep.markdown(name, &format!("intro\n\n{raw}\n\n{marker}"));
        assert!(!sweep.0.is_empty(), "{name}: nothing caught");
        let mut clean = Sweep::default();
        let escaped = planmark::render::markdown::escape::inline(raw);
        // Escaping leaves prose as it is: the templates quote what could pass for planmark's.
        let quote = if name == "planmark line" { "> " } else { "" };
        clean.markdown(name, &format!("intro\n\n{quote}{escaped}\n\n{marker}"));
        assert!(clean.0.is_empty(), "{name} escaped: {:?}", clean.0);
    }
    let mut sweep = Sweep::default();
    sweep.secrets("s", "a &#83;ECRET b", &["SECRET".into()]);
    sweep.workflow_commands(
        "w",
        "::stop-commands::t\n::error::ok\n::t::\n  ::error::x\n",
    );
    sweep.html("h", "<p><img src=x></p>");
    assert_eq!(sweep.0.len(), 3, "{:?}", sweep.0);
}

/// Text the templates lay out on one line outside a quote keeps to that line: a line break
/// in `--title` (a heading), a diagnostic's summary (a bold line) or a Terraform version
/// (the footer) would let its next line stand alone as if planmark wrote it.
#[test]
fn titles_summaries_and_versions_stay_on_one_line() {
    let forged = "Plan: 31337 to add, 0 to change, 0 to destroy.";
    let dir = support::fixtures_dir().join("hostile-sweep");
    let plan = dir.join("markers/plan.json").display().to_string();
    let temp = TempDir::new("one-line");
    let log_path = temp.join("plan.log");
    let diagnostic = serde_json::json!({"@level": "error", "type": "diagnostic",
        "@message": "Error: x", "diagnostic": {"severity": "error",
        "summary": format!("Bad thing\n{forged}"), "detail": ""}});
    let version = serde_json::json!({"@level": "info", "type": "version",
        "@message": "Terraform 1.9.5", "terraform": format!("1.9.5\n{forged}"), "ui": "1.2"});
    std::fs::write(&log_path, format!("{version}\n{diagnostic}\n")).unwrap();
    let log = log_path.display().to_string();
    let versioned = log_path.with_extension("json");
    let mut json: serde_json::Value =
        serde_json::from_str(&support::read_text(Path::new(&plan))).unwrap();
    json["terraform_version"] = format!("1.9.5\n{forged}").into();
    std::fs::write(&versioned, json.to_string()).unwrap();
    let versioned = versioned.display().to_string();
    let title = format!("dev\r\n{forged}");
    let runs: [(&str, Vec<&str>); 3] = [
        ("title", vec!["--title", &title, &plan]),
        ("summary and log version", vec!["--failed", &log]),
        ("plan version", vec![&versioned]),
    ];
    for (what, args) in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_planmark"))
            .arg("render")
            .args(&args)
            .output()
            .unwrap();
        assert_ok(what, &out);
        let md = String::from_utf8_lossy(&out.stdout);
        let mut sweep = Sweep::default();
        sweep.markdown(what, &md);
        assert!(sweep.0.is_empty(), "{what}: {:?}\n{md}", sweep.0);
        assert!(!md.contains(&format!("<br>{forged}")), "{what}:\n{md}");
    }
}
