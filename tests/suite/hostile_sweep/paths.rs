//! Issue 39, hostile paths: file and directory names come from the pull request. A
//! checkout whose workspace, root module directory, local module source path and `.tf`
//! file are named with `)`, `]`, `#`, `?`, `%`, spaces, quotes, backticks, HTML, mentions,
//! `#123`, a link, a line break starting a heading and a workflow command, non-ASCII and a
//! bidi override, beside a `.tf` file that does not parse. The comment goes through the
//! sweep's checks and GitHub's parser; every link must be one planmark made, to the block's
//! line (`links::verify`), never one made from a plan value; a server URL that is not
//! `http(s)` makes none.

use super::*;
use crate::links::{event, planmark, verify, HEAD};

use serde_json::json;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStringExt;

/// What the names carry (no `evil` or `javascript`: the sweep flags links to those, and
/// planmark's own links keep a name's letters as they are).
const PAYLOAD: &str = ")]#?%20% \"q\" 'a' `b` <b>B<img src=x> &amp; @octocat #123 GH-1 \
    [PWN](mailto:a@b.example) www.x.example ~~~\n# HDG1 - LST\n::warning::WFCMD é\u{202E}fdp";

const SERVER: &str = "https://github.example.com";
const REPOSITORY: &str = "octo/infra";

/// The checkout `workspace` (a name under `temp`) and its root module's directory.
fn checkout(temp: &TempDir, workspace: &str) -> (PathBuf, PathBuf) {
    let workspace = temp.join(workspace);
    let root = workspace.join(format!("root {PAYLOAD}"));
    let module = root.join("mods").join(format!("app {PAYLOAD}"));
    std::fs::create_dir_all(&module).unwrap();
    let write = |path: PathBuf, text: &str| std::fs::write(path, text).unwrap();
    write(
        root.join("main.tf"),
        "resource \"null_resource\" \"root\" {}\n\nmodule \"app\" {\n  source = \"./mods/app ...\"\n}\n\
         module \"vpc\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\n",
    );
    write(
        root.join(format!("named {PAYLOAD}.tf")),
        "# a file named by the pull request\n\nresource \"null_resource\" \"named\" {}\n",
    );
    write(
        root.join("broken.tf"),
        "resource \"null_resource\" \"broken\" {\n  triggers = {\n",
    );
    // A name that is not UTF-8 (Latin-1 `é`), which Terraform reads all the same.
    let latin = std::ffi::OsString::from_vec(b"lat\xe9n.tf".to_vec());
    write(
        root.join(latin),
        "resource \"null_resource\" \"latin\" {}\n",
    );
    write(
        module.join("main.tf"),
        "\n\n\nresource \"null_resource\" \"app\" {}\n",
    );
    (workspace, root)
}

/// A plan of the checkout's resources; its values carry links to the repository, which
/// must stay text.
fn plan(dir: &Path) -> PathBuf {
    let forged = format!("[PWN]({SERVER}/{REPOSITORY}/blob/{HEAD}/main.tf#L1) {SERVER}/x#L1");
    let change = |address: &str, module: Option<&str>, type_: &str, name: &str, actions| {
        let mut c = json!({
            "address": address, "mode": "managed", "type": type_, "name": name,
            "provider_name": "registry.terraform.io/hashicorp/null",
            "change": {"actions": actions, "before": null,
                       "after": {"triggers": {"link": forged}},
                       "after_unknown": {"id": true}}
        });
        if let Some(m) = module {
            c["module_address"] = json!(m);
        }
        if actions == json!(["delete"]) {
            c["change"]["before"] = json!({"id": "1", "triggers": {"link": forged}});
            c["change"]["after"] = json!(null);
            c["change"]["after_unknown"] = json!({});
        }
        c
    };
    let plan = json!({
        "format_version": "1.2", "terraform_version": "1.9.0",
        "resource_changes": [
            change("null_resource.root", None, "null_resource", "root", json!(["delete", "create"])),
            change("null_resource.named", None, "null_resource", "named", json!(["create"])),
            change("null_resource.broken", None, "null_resource", "broken", json!(["create"])),
            change("null_resource.latin", None, "null_resource", "latin", json!(["create"])),
            change("module.app.null_resource.app", Some("module.app"), "null_resource", "app", json!(["delete"])),
            change("module.vpc.aws_vpc.this", Some("module.vpc"), "aws_vpc", "this", json!(["create"])),
        ],
        "configuration": {"root_module": {"module_calls": {
            "app": {"source": format!("./mods/app {PAYLOAD}"), "module": {}},
            "vpc": {"source": "terraform-aws-modules/vpc/aws", "module": {}}
        }}}
    });
    let path = dir.join("plan.json");
    std::fs::write(&path, serde_json::to_vec(&plan).unwrap()).unwrap();
    path
}

/// `render --format FORMAT` in the root module's directory, as in a pull request's job.
fn render(
    root: &Path,
    plan: &Path,
    format: &str,
    server: &str,
    extra: &[&str],
    env: &[(&str, &OsStr)],
) -> Output {
    let head = ["render", "--format", format, "--key", "paths"];
    let mut args: Vec<&OsStr> = head.iter().chain(extra).map(OsStr::new).collect();
    args.push(plan.as_os_str());
    let mut all: Vec<(&str, &OsStr)> = vec![
        ("GITHUB_REPOSITORY", OsStr::new(REPOSITORY)),
        ("GITHUB_SERVER_URL", OsStr::new(server)),
    ];
    all.extend_from_slice(env);
    planmark(root, &args, &all)
}

/// The addresses that must link (the banner's two too); `null_resource.broken` is in the
/// file that does not parse.
const LINKED: [&str; 7] = [
    "module.app.null_resource.app",
    "module.app.null_resource.app",
    "module.vpc.aws_vpc.this",
    "null_resource.latin",
    "null_resource.named",
    "null_resource.root",
    "null_resource.root",
];

#[test]
fn hostile_file_names_make_safe_links_to_their_blocks() {
    let temp = TempDir::new("links-hostile");
    let (workspace, root) = checkout(&temp, &format!("ws {PAYLOAD}"));
    let plan = plan(temp.path());
    let event = event(temp.path());
    let env = [
        ("GITHUB_WORKSPACE", workspace.as_os_str()),
        ("GITHUB_EVENT_PATH", event.as_os_str()),
    ];
    let prefix = format!("{SERVER}/{REPOSITORY}/blob/{HEAD}/");
    let mut sweep = Sweep::default();
    // The whole comment, and one so small that changes are listed by address only.
    for extra in [&[][..], &["--max-chars", "5000"][..]] {
        let at = format!("hostile paths {extra:?}");
        let out = render(&root, &plan, "markdown", SERVER, extra, &env);
        let (md, stderr) = (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        );
        assert_eq!(out.status.code(), Some(0), "{at}: {stderr}");
        // The file that does not parse is named once, on one line; the others still link.
        assert_eq!(stderr.lines().count(), 1, "{at}: {stderr}");
        assert!(stderr.contains("broken.tf: not HCL"), "{at}: {stderr}");
        assert!(
            !stderr.contains('\u{202E}'),
            "{at}: a bidi override on stderr"
        );
        sweep.workflow_commands(&format!("{at}, stderr"), &stderr);
        sweep.workflow_commands(&at, &md);
        sweep.markdown(&at, &md);
        assert!(
            !md.contains('\u{202E}'),
            "{at}: a bidi override in the comment"
        );
        let linked =
            verify::check(&md, &prefix, &workspace).unwrap_or_else(|e| panic!("{at}: {e}\n{md}"));
        let addresses: Vec<&str> = linked.iter().map(|l| l.address.as_str()).collect();
        let distinct: BTreeSet<&str> = addresses.iter().copied().collect();
        assert!(!distinct.contains("null_resource.broken"), "{at}: {md}");
        if extra.is_empty() {
            let mut sorted = addresses.clone();
            sorted.sort();
            assert_eq!(sorted, LINKED, "{at}: {md}");
        } else {
            // Listed lines link too (the broken file's change aside).
            let listed = md.split("addresses only").nth(1).unwrap_or_default();
            let items: Vec<&str> = listed.lines().filter(|l| l.starts_with("- ")).collect();
            assert!(!items.is_empty(), "{at}: nothing listed\n{md}");
            for item in items.iter().filter(|l| !l.contains("broken")) {
                assert!(
                    item.contains("](<"),
                    "{at}: a listed change without its link: {item}"
                );
            }
        }
        // GitHub's parser sees exactly planmark's links.
        if let Some(html) = super::github_html::cmark_gfm(&md) {
            let made: BTreeSet<String> = verify::urls(&md).into_iter().map(|(_, u)| u).collect();
            for href in html.split("href=\"").skip(1) {
                let href = href.split('"').next().unwrap().replace("&amp;", "&");
                if !href.starts_with('#') && !made.contains(&href) {
                    sweep.push(
                        &at,
                        format!("cmark-gfm made a link planmark did not: {href:?}"),
                    );
                }
            }
        } else {
            eprintln!("note: the cmark-gfm part of hostile paths is skipped: not installed");
        }
    }
    let html = render(&root, &plan, "html", SERVER, &[], &env);
    sweep.html(
        "hostile paths, html",
        &String::from_utf8_lossy(&html.stdout),
    );
    assert!(sweep.0.is_empty(), "{}", sweep.0.join("\n"));
}

#[test]
fn a_server_that_is_not_http_makes_no_links() {
    let temp = TempDir::new("links-servers");
    let (workspace, root) = checkout(&temp, &format!("ws {PAYLOAD}"));
    let plan = plan(temp.path());
    let event = event(temp.path());
    let env = [
        ("GITHUB_WORKSPACE", workspace.as_os_str()),
        ("GITHUB_EVENT_PATH", event.as_os_str()),
    ];
    for server in [
        "javascript:alert(1)//github.com",
        "JavaScript://github.com/%0aalert(1)",
        "ftp://github.com",
        "data:text/html,<b>x</b>",
        "https://github.com\"><img src=x onerror=alert(1)>",
        "https://github.com/<b>",
        "https://user@github.com",
        "https://github.com/x?y#z",
    ] {
        let out = render(&root, &plan, "markdown", server, &[], &env);
        let (md, stderr) = (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        );
        assert_eq!(out.status.code(), Some(0), "{server}: {stderr}");
        let links: Vec<String> = verify::urls(&md)
            .into_iter()
            .map(|(_, u)| u)
            .filter(|u| !u.starts_with('#'))
            .collect();
        assert!(links.is_empty(), "{server}: links {links:?}");
        assert_eq!(stderr.lines().count(), 1, "{server}: {stderr}");
        assert!(
            stderr.contains("no links to the code"),
            "{server}: {stderr}"
        );
        let mut sweep = Sweep::default();
        sweep.markdown(server, &md);
        assert!(sweep.0.is_empty(), "{}", sweep.0.join("\n"));
    }
}

#[test]
fn without_a_workspace_git_finds_a_hostile_root() {
    let temp = TempDir::new("links-hostile-git");
    // Git prints the root and one line break: this name ends with another.
    let (workspace, root) = checkout(&temp, &format!("git {PAYLOAD}\n"));
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&workspace)
        .output();
    if !init.is_ok_and(|o| o.status.success()) {
        eprintln!("note: hostile_sweep::paths' git case is skipped: no git");
        return;
    }
    let plan = plan(temp.path());
    let event = event(temp.path());
    let out = render(
        &root,
        &plan,
        "markdown",
        SERVER,
        &["--config-dir", "."],
        &[("GITHUB_EVENT_PATH", event.as_os_str())],
    );
    let (md, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("broken.tf: not HCL"), "{stderr}");
    let prefix = format!("{SERVER}/{REPOSITORY}/blob/{HEAD}/");
    let linked = verify::check(&md, &prefix, &workspace).unwrap_or_else(|e| panic!("{e}\n{md}"));
    let mut addresses: Vec<&str> = linked.iter().map(|l| l.address.as_str()).collect();
    addresses.sort();
    assert_eq!(addresses, LINKED, "{md}");
}

/// `planmark comment` as in a pull request's job, against the fake GitHub: the comment
/// posted and the step summary pass the same checks, and the broken file is named once.
#[tokio::test(flavor = "multi_thread")]
async fn hostile_file_names_post_safely() {
    let temp = TempDir::new("links-hostile-post");
    let (workspace, root) = checkout(&temp, &format!("ws {PAYLOAD}"));
    let plan = plan(temp.path());
    let event = event(temp.path());
    let summary = temp.join("summary.md");
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, 7, HEAD, "f", "open");
    let args = ["--key", "paths", "--annotations", "false"].map(String::from);
    let mut cmd = command(&gh, 7, 20, &args);
    cmd.arg(&plan)
        .current_dir(&root)
        .env("GITHUB_WORKSPACE", &workspace)
        .env("GITHUB_SERVER_URL", SERVER)
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_ACTIONS", "true");
    let out = output(cmd).await;
    assert_ok("comment", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut sweep = Sweep::default();
    sweep.workflow_commands("comment, stdout", &String::from_utf8_lossy(&out.stdout));
    sweep.workflow_commands("comment, stderr", &stderr);
    assert_eq!(stderr.matches("broken.tf").count(), 1, "{stderr}");
    assert!(
        !stderr.contains('\u{202E}'),
        "a bidi override on stderr: {stderr}"
    );
    let posted = support::publishing::ours(&gh, 7);
    assert_eq!(posted.len(), 1);
    let body = &posted[0].body;
    sweep.markdown("comment", body);
    let summary = std::fs::read_to_string(&summary).unwrap();
    sweep.markdown_within("step summary", &summary, 1 << 20);
    assert!(sweep.0.is_empty(), "{}", sweep.0.join("\n"));
    let prefix = format!("{SERVER}/{REPOSITORY}/blob/{HEAD}/");
    for (what, md) in [("comment", body), ("step summary", &summary)] {
        let linked =
            verify::check(md, &prefix, &workspace).unwrap_or_else(|e| panic!("{what}: {e}\n{md}"));
        let mut addresses: Vec<&str> = linked.iter().map(|l| l.address.as_str()).collect();
        addresses.sort();
        assert_eq!(addresses, LINKED, "{what}: {md}");
    }
}
