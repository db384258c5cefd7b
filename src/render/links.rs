//! Render stage, links to the code: the URL of a file's line at the pull request's commit
//! (`{server}/{owner}/{repo}/blob/{sha}/{path}#L{line}`), for a change's block.
//!
//! Contract: a link is made only from a server URL that is `http(s)` with a plain host, a
//! repository `owner/name` of GitHub's characters and a hex commit: anything else makes no
//! links rather than a wrong one. Every path segment is percent-encoded byte by byte
//! (only RFC 3986's unreserved characters stay), so a file name from the pull request
//! cannot end the URL, add a query or a fragment, or leave the repository.

use std::path::{Component, Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::address::module_path;
use crate::diff::ResourceDiff;
use crate::input::config::{Declarations, Location};

/// A link to the block that declares a change or a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct SourceLink {
    /// The file's URL at the commit, with the line (`…/blob/SHA/infra/main.tf#L12`).
    pub(crate) url: String,
    /// The file, relative to the repository's root, `/`-separated.
    pub(crate) file: String,
    /// The line of the block's first keyword (1-based).
    pub(crate) line: usize,
}

/// Where one plan's changes are declared, and the repository to link them in.
#[derive(Debug)]
pub struct Links {
    /// The repository the links point into.
    pub(crate) repository: Repository,
    /// The repository's root on disk; files outside it get no link.
    pub(crate) root: PathBuf,
    /// The blocks to link, read from a directory under `root` (both absolute or both
    /// relative to the same place).
    pub(crate) declarations: Declarations,
}

impl Links {
    /// The block of a resource change (its `resource` or `data` block, or the call of the
    /// remote module holding it); `None` when it is not in the files read.
    pub(crate) fn resource(&self, r: &ResourceDiff) -> Option<SourceLink> {
        let modules = r
            .module_address
            .as_deref()
            .map(|m| module_path(m).0)
            .unwrap_or_default();
        let mode = if r.data_source { "data" } else { "managed" };
        let at = self.declarations.find(&modules, mode, &r.type_, &r.name)?;
        self.link(at)
    }

    /// The block of the resource at `address` (an instance address such as
    /// `module.a["x"].data.b.c[0]`), or the call of the remote module holding it.
    pub(crate) fn address(&self, address: &str) -> Option<SourceLink> {
        let (modules, rest) = module_path(address);
        let (keyword, rest) = ["data", "ephemeral"]
            .iter()
            .find_map(|k| Some((*k, rest.strip_prefix(k)?.strip_prefix('.')?)))
            .unwrap_or(("resource", rest));
        let (type_, name) = rest.split_once('.')?;
        let name = name.split('[').next().unwrap_or(name);
        let at = self
            .declarations
            .find_block(&modules, keyword, &[type_, name])?;
        self.link(at)
    }

    /// The block of a checked object (a plan's `checks`: `kind` `resource`, `check`,
    /// `output_value` or `var`; `address` its configuration address such as
    /// `module.net.check.up`).
    pub(crate) fn check(&self, kind: &str, address: &str) -> Option<SourceLink> {
        let (modules, rest) = module_path(address);
        let at = match kind {
            "check" => self.named(&modules, "check", rest.strip_prefix("check.")?),
            "output_value" => self.named(&modules, "output", rest.strip_prefix("output.")?),
            "var" => self.named(&modules, "variable", rest.strip_prefix("var.")?),
            "resource" => return self.address(address),
            _ => None,
        }?;
        self.link(at)
    }

    fn named(&self, modules: &[&str], keyword: &str, name: &str) -> Option<&Location> {
        let name = name.split('[').next().unwrap_or(name);
        self.declarations.find_block(modules, keyword, &[name])
    }

    fn link(&self, at: &Location) -> Option<SourceLink> {
        let file = at.file.strip_prefix(&self.root).ok()?;
        let url = self.repository.line_url(file, at.line)?;
        let parts: Vec<String> = file
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(SourceLink {
            url,
            file: parts.join("/"),
            line: at.line,
        })
    }
}

/// Where links point: a repository on a GitHub server, at one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repository {
    server: String,
    repository: String,
    commit: String,
}

impl Repository {
    /// `server` (`GITHUB_SERVER_URL`, GitHub Enterprise Server too), `repository`
    /// (`owner/name`) and `commit` (a full SHA), or `None` when one is not what it should be.
    pub(crate) fn new(server: &str, repository: &str, commit: &str) -> Option<Repository> {
        let server = server.trim_end_matches('/');
        let host = server
            .strip_prefix("https://")
            .or_else(|| server.strip_prefix("http://"))?;
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':');
        if host.is_empty() || !host.chars().all(plain) {
            return None;
        }
        let (owner, name) = repository.split_once('/')?;
        let named = |s: &str| {
            !s.is_empty()
                && s != "."
                && s != ".."
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        };
        (named(owner) && named(name) && is_full_sha(commit)).then(|| Repository {
            server: server.to_string(),
            repository: repository.to_string(),
            commit: commit.to_ascii_lowercase(),
        })
    }

    /// The URL of `line` in `file` (relative to the repository's root, `..`-free), or
    /// `None` for a path that is not such.
    pub(crate) fn line_url(&self, file: &Path, line: usize) -> Option<String> {
        let mut url = format!("{}/{}/blob/{}", self.server, self.repository, self.commit);
        let mut segments = 0;
        for component in file.components() {
            let Component::Normal(segment) = component else {
                return None;
            };
            url.push('/');
            push_encoded(&mut url, segment.as_encoded_bytes());
            segments += 1;
        }
        (segments > 0).then(|| format!("{url}#L{line}"))
    }
}

/// A full commit SHA (SHA-1 or SHA-256, 40 or 64 hex digits): the only commit a link names.
pub(crate) fn is_full_sha(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `bytes` percent-encoded, RFC 3986's unreserved characters aside.
fn push_encoded(url: &mut String, bytes: &[u8]) {
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn urls_encode_every_segment() {
        let repo =
            Repository::new("https://github.example.com/", "octo-org/infra.tf", SHA).unwrap();
        let url = repo
            .line_url(Path::new("mod ules/a)b]#?%/\"q\"\n\u{202e}é.tf"), 12)
            .unwrap();
        assert_eq!(
            url,
            format!("https://github.example.com/octo-org/infra.tf/blob/{SHA}/mod%20ules/a%29b%5D%23%3F%25/%22q%22%0A%E2%80%AE%C3%A9.tf#L12")
        );
        assert_eq!(repo.line_url(Path::new("../x.tf"), 1), None);
        assert_eq!(repo.line_url(Path::new("/etc/x.tf"), 1), None);
        assert_eq!(repo.line_url(Path::new(""), 1), None);
    }

    #[test]
    fn only_plain_servers_repositories_and_commits_make_links() {
        assert!(Repository::new("http://ghes.local:8080", "a/b", SHA).is_some());
        for (server, repository, commit) in [
            ("javascript:alert(1)//", "a/b", SHA),
            ("ftp://github.com", "a/b", SHA),
            ("https://github.com/x?y", "a/b", SHA),
            ("https://user@github.com", "a/b", SHA),
            ("https://github.com", "a/b/c", SHA),
            ("https://github.com", "../b", SHA),
            ("https://github.com", "a/b)", SHA),
            ("https://github.com", "a/b", "main"),
            ("https://github.com", "a/b", &SHA[1..]),
        ] {
            assert_eq!(
                Repository::new(server, repository, commit),
                None,
                "{server} {repository} {commit}"
            );
        }
    }
}
