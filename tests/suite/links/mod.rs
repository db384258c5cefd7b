//! Links from each change to the block that declares it, end to end: the binary run from
//! a sub-directory of a checkout, as a workflow step runs it, on a real Terraform 1.0.3
//! plan of a root module, a local module and a nested local module
//! (`tests/fixtures/links/<behaviour>/`, its comment in `comment.md` beside it). Every link
//! is also checked against the files themselves (`verify`), so a golden blessed with a
//! wrong line still fails. The repository's root from `GITHUB_WORKSPACE` or from git; no
//! links, and at most one warning, when the repository or the commit is unknown.

use crate::support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pulldown_cmark::Options;
use support::golden;
use support::temp::{copy_tree, TempDir};

pub(crate) mod verify;

const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_GFM);

/// The pull request's head commit, which the links must name.
pub(crate) const HEAD: &str = "1111111111111111111111111111111111111111";
/// `GITHUB_SHA`: the merge commit of a `pull_request` run, which links must not name.
const MERGE: &str = "2222222222222222222222222222222222222222";
const SERVER: &str = "https://ghe.example.com";
const REPOSITORY: &str = "octo-org/infra";

fn case() -> PathBuf {
    support::fixtures_dir().join("links/root_local_nested")
}

/// `planmark ARGS` in `cwd` with no Actions environment but `env`, at a fixed time.
pub(crate) fn planmark(cwd: &Path, args: &[&OsStr], env: &[(&str, &OsStr)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(args).current_dir(cwd);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd.env("SOURCE_DATE_EPOCH", "1795341600")
        .env("NO_COLOR", "1");
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().expect("run planmark")
}

/// A `pull_request` event whose head is [`HEAD`], written in `dir`.
pub(crate) fn event(dir: &Path) -> PathBuf {
    let path = dir.join("event.json");
    let event =
        format!(r#"{{"number": 7, "pull_request": {{"number": 7, "head": {{"sha": "{HEAD}"}}}}}}"#);
    std::fs::write(&path, event).unwrap();
    path
}

fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

/// `render --format markdown` of the case's plan in `cwd` (plus `extra`), as in a
/// pull request's workflow with `env`.
fn comment(cwd: &Path, extra: &[&str], env: &[(&str, &OsStr)]) -> Output {
    let plan = case().join("plan.json");
    let mut args = vec![
        os("render"),
        os("--format"),
        os("markdown"),
        os("--key"),
        os("links"),
    ];
    args.extend(extra.iter().map(os));
    args.push(plan.as_os_str());
    planmark(cwd, &args, env)
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8(out.stdout.clone()).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

/// The changes that must link, and the file of their block; `null_resource.gone`'s block
/// was deleted, so it must not.
const LINKED: [(&str, &str); 9] = [
    ("null_resource.root[0]", "infra/main.tf"),
    ("null_resource.root[1]", "infra/main.tf"),
    (
        "module.app[\"blue\"].null_resource.app",
        "infra/modules/app/main.tf",
    ),
    (
        "module.app[\"green\"].null_resource.app",
        "infra/modules/app/main.tf",
    ),
    (
        "module.app[\"blue\"].module.db.null_resource.db[\"primary\"]",
        "infra/modules/db/db.tf",
    ),
    (
        "module.app[\"blue\"].module.db.null_resource.db[\"replica\"]",
        "infra/modules/db/db.tf",
    ),
    // The banner's three replacements link too.
    ("null_resource.root[0]", "infra/main.tf"),
    (
        "module.app[\"blue\"].null_resource.app",
        "infra/modules/app/main.tf",
    ),
    (
        "module.app[\"blue\"].module.db.null_resource.db[\"primary\"]",
        "infra/modules/db/db.tf",
    ),
];

/// Every link of `md` checked against `checkout`, and exactly the [`LINKED`] changes
/// linked (the green databases are grouped under the blue replica's line).
fn assert_links(md: &str, checkout: &Path) {
    let prefix = format!("{SERVER}/{REPOSITORY}/blob/{HEAD}/");
    let linked = verify::check(md, &prefix, checkout).unwrap_or_else(|e| panic!("{e}\n{md}"));
    let mut got: Vec<(String, PathBuf)> = linked
        .into_iter()
        .map(|l| {
            (
                l.address,
                l.file.strip_prefix(checkout).unwrap().to_path_buf(),
            )
        })
        .collect();
    let mut want: Vec<(String, PathBuf)> = LINKED
        .iter()
        .map(|(a, f)| (a.to_string(), PathBuf::from(f)))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{md}");
    for line in md.lines().filter(|l| l.contains("null_resource.gone")) {
        assert!(!line.contains("/blob/"), "a deleted block linked: {line}");
    }
}

#[test]
fn each_change_links_to_its_block_from_a_sub_directory() {
    let temp = TempDir::new("links-subdir");
    let repo = case().join("repo");
    let event = event(temp.path());
    let env = [
        ("GITHUB_WORKSPACE", repo.as_os_str()),
        ("GITHUB_REPOSITORY", os(REPOSITORY)),
        ("GITHUB_SERVER_URL", os(SERVER)),
        ("GITHUB_EVENT_PATH", event.as_os_str()),
        ("GITHUB_SHA", os(MERGE)),
    ];
    // The root module's directory, with the default --config-dir ...
    let infra = comment(&repo.join("infra"), &[], &env);
    // ... and a directory below it, naming the root module's.
    let modules = comment(&repo.join("infra/modules"), &["--config-dir", ".."], &env);
    for out in [&infra, &modules] {
        let (stdout, stderr) = text(out);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(stderr, "", "no warning expected");
        assert!(!stdout.contains(MERGE), "the merge commit is named");
        assert_links(&stdout, &repo);
    }
    let (stdout, _) = text(&infra);
    assert_eq!(stdout, text(&modules).0, "the two directories disagree");
    golden::check(&case().join("comment.md"), &stdout).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn without_a_workspace_the_root_comes_from_git() {
    let temp = TempDir::new("links-git");
    let checkout = temp.join("checkout");
    copy_tree(&case().join("repo"), &checkout);
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&checkout)
        .output();
    if !init.is_ok_and(|o| o.status.success()) {
        eprintln!("note: links::without_a_workspace_the_root_comes_from_git is skipped: no git");
        return;
    }
    let event = event(temp.path());
    let env = [
        ("GITHUB_REPOSITORY", os(REPOSITORY)),
        ("GITHUB_SERVER_URL", os(SERVER)),
        ("GITHUB_EVENT_PATH", event.as_os_str()),
    ];
    let out = comment(
        &checkout.join("infra/modules/app"),
        &["--config-dir", "../.."],
        &env,
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert_links(&stdout, &checkout);
    let golden = support::read_text(&case().join("comment.md"));
    assert_eq!(stdout, golden, "not the comment made with GITHUB_WORKSPACE");
}

/// Flags, environment, and the warning's subject (none: no warning).
type Case<'a> = (&'a [&'a str], Vec<(&'a str, &'a OsStr)>, Option<&'a str>);

#[test]
fn without_a_repository_or_commit_there_are_no_links() {
    let temp = TempDir::new("links-none");
    let repo = case().join("repo");
    let infra = repo.join("infra");
    let event = event(temp.path());
    let workspace = ("GITHUB_WORKSPACE", repo.as_os_str());
    let repository = ("GITHUB_REPOSITORY", os(REPOSITORY));
    let head = ("GITHUB_EVENT_PATH", event.as_os_str());
    let cases: [Case<'_>; 6] = [
        (&[], vec![workspace], None),
        (&[], vec![workspace, repository], None),
        (&[], vec![workspace, head], None),
        (
            &["--config-dir", "."],
            vec![workspace, head],
            Some("the repository"),
        ),
        (
            &["--config-dir", "."],
            vec![workspace, repository],
            Some("the commit"),
        ),
        (&["--commit", HEAD], vec![workspace], Some("the repository")),
    ];
    for (flags, env, warning) in cases {
        let out = comment(&infra, flags, &env);
        let (stdout, stderr) = text(&out);
        let at = format!("{flags:?} {env:?}");
        assert_eq!(out.status.code(), Some(0), "{at}: {stderr}");
        assert!(!stdout.contains("/blob/"), "{at}: a link\n{stdout}");
        assert_eq!(
            verify::urls(&stdout)
                .iter()
                .filter(|(_, u)| !u.starts_with('#'))
                .count(),
            0,
            "{at}"
        );
        match warning {
            None => assert_eq!(stderr, "", "{at}"),
            Some(subject) => {
                assert_eq!(stderr.lines().count(), 1, "{at}: {stderr}");
                assert!(
                    stderr.starts_with("planmark: warning: no links to the code: ")
                        && stderr.contains(subject),
                    "{at}: {stderr}"
                );
            }
        }
    }
}

#[test]
fn a_configuration_outside_the_root_is_named_and_not_linked() {
    let temp = TempDir::new("links-outside");
    let elsewhere = temp.join("elsewhere");
    copy_tree(&case().join("repo/infra"), &elsewhere);
    let event = event(temp.path());
    let repo = case().join("repo");
    let env = [
        ("GITHUB_WORKSPACE", repo.as_os_str()),
        ("GITHUB_REPOSITORY", os(REPOSITORY)),
        ("GITHUB_EVENT_PATH", event.as_os_str()),
    ];
    // Asked for with --config-dir: one warning naming it; by default: silence.
    for (flags, warned) in [(&["--config-dir", "."][..], true), (&[][..], false)] {
        let out = comment(&elsewhere, flags, &env);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(
            verify::urls(&stdout)
                .iter()
                .filter(|(_, u)| !u.starts_with('#'))
                .count(),
            0
        );
        if warned {
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.contains("elsewhere is outside the repository's root"),
                "{stderr}"
            );
        } else {
            assert_eq!(stderr, "");
        }
    }
}
