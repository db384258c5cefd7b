//! Command line, links to the code: where the pull request's files are (`--config-dir`;
//! the repository's root from `GITHUB_WORKSPACE`, else git) and where GitHub shows them
//! (`GITHUB_SERVER_URL`, the repository, the commit), for the comment's links and the
//! annotations. This is the edge: the pipeline reads no environment.
//!
//! Contract: links are made only when the repository, the commit and the root are all
//! known; when the flags asked for them (`--config-dir`, `--commit`) and one is missing,
//! one warning says which, and a `--config-dir` outside the repository's root is named.
//! A `--config-dir` that is not a directory is an error.

use std::path::{Path, PathBuf};

use super::error::{Error, Result};
use crate::input::text::one_line;
use crate::pipeline::{CodeSite, RunInfo};
use crate::render::links::is_full_sha;

/// Where the configuration is, and the commit its links point at.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct CodeArgs {
    /// The Terraform configuration's directory (the plan's root module), for links from
    /// each change to the block that declares it and for annotations (default: the
    /// current directory). Repeat it once per plan, in the plans' order, when they come
    /// from different directories.
    #[arg(long, value_name = "DIR")]
    pub(crate) config_dir: Vec<PathBuf>,
    /// The commit the links point at (default: the pull request's head commit from the
    /// Actions event, else `GITHUB_SHA`); also the commit the footer names.
    #[arg(long, value_name = "SHA")]
    pub(crate) commit: Option<String>,
    /// Under GitHub Actions (`GITHUB_ACTIONS=true`), print workflow-command annotations
    /// for destroys, replacements, policy findings and failed checks, beside their blocks
    /// in the pull request's "Files changed": `true` or `false`.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) annotations: bool,
}

type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

impl CodeArgs {
    /// Where links point for `plans` plan arguments, from these flags, `repository`
    /// (`--repo`, else `GITHUB_REPOSITORY`) and the run's commit (which `--commit`
    /// replaces); `None` when one of them is unknown.
    pub(crate) fn site(
        &self,
        plans: usize,
        repository: Option<String>,
        run: &mut RunInfo,
        env: Env<'_>,
    ) -> Result<Option<CodeSite>> {
        if let Some(commit) = &self.commit {
            if !is_full_sha(commit) {
                return Err(Error::input(
                    "--commit",
                    "expected a full commit SHA (40 or 64 hex digits), e.g. from `git rev-parse HEAD`",
                ));
            }
            run.commit = Some(commit.to_ascii_lowercase());
        }
        if self.config_dir.len() > 1 && self.config_dir.len() != plans {
            return Err(Error::input(
                "--config-dir",
                format!(
                    "given {} times for {plans} plans: give it once for every plan, or once per plan in the plans' order",
                    self.config_dir.len()
                ),
            ));
        }
        let mut dirs = Vec::with_capacity(self.config_dir.len().max(1));
        for dir in &self.config_dir {
            dirs.push(config_dir(dir)?);
        }
        let asked = !self.config_dir.is_empty() || self.commit.is_some();
        if dirs.is_empty() {
            match std::env::current_dir().and_then(std::fs::canonicalize) {
                Ok(cwd) => dirs.push(cwd),
                Err(_) => return Ok(None),
            }
        }
        let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let repository = repository.or_else(|| get("GITHUB_REPOSITORY"));
        let missing = match (repository, run.commit.clone()) {
            (None, _) => "the repository (pass --repo OWNER/NAME, or set GITHUB_REPOSITORY)",
            (_, None) => "the commit (pass --commit SHA)",
            (Some(repository), Some(commit)) => {
                let root = get("GITHUB_WORKSPACE")
                    .and_then(|w| std::fs::canonicalize(w).ok())
                    .or_else(|| git_root(&dirs[0]));
                match root {
                    Some(root) => {
                        let outside = dirs.iter().filter(|d| asked && !d.starts_with(&root));
                        for dir in outside {
                            eprintln!(
                                "planmark: warning: {} is outside the repository's root {}: its changes get no links to the code",
                                one_line(&dir.display().to_string()),
                                one_line(&root.display().to_string())
                            );
                        }
                        return Ok(Some(CodeSite {
                            config_dirs: dirs,
                            dirs_given: !self.config_dir.is_empty(),
                            root,
                            server: get("GITHUB_SERVER_URL")
                                .unwrap_or_else(|| "https://github.com".to_string()),
                            repository,
                            commit,
                        }));
                    }
                    None => {
                        "the repository's root (set GITHUB_WORKSPACE, or run in a git checkout)"
                    }
                }
            }
        };
        if asked {
            eprintln!("planmark: warning: no links to the code: {missing} is not known");
        }
        Ok(None)
    }

    /// Annotations are printed: asked for (the default) and in a GitHub Actions job.
    pub(crate) fn annotates(&self, env: Env<'_>) -> bool {
        self.annotations && env("GITHUB_ACTIONS").as_deref() == Some("true")
    }
}

/// `--config-dir` made absolute, symbolic links resolved as the repository's root is.
fn config_dir(dir: &Path) -> Result<PathBuf> {
    match std::fs::canonicalize(dir) {
        Ok(path) if path.is_dir() => Ok(path),
        Ok(_) => Err(Error::input(
            dir.display(),
            "--config-dir names a file: give the directory of the configuration's .tf files",
        )),
        Err(e) => Err(Error::input(
            dir.display(),
            format!("--config-dir cannot be read ({e}): give the directory of the configuration's .tf files"),
        )),
    }
}

/// The root of the git checkout holding `dir`, if git is there to say.
fn git_root(dir: &Path) -> Option<PathBuf> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-toplevel"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    // Git prints the path as it is, then one line break: a name may end with another.
    let root = output.stdout.strip_suffix(b"\n")?;
    if root.is_empty() {
        return None;
    }
    std::fs::canonicalize(path_from_bytes(root.to_vec())?).ok()
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(bytes).into())
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    Some(text.strip_suffix('\r').unwrap_or(&text).into())
}
