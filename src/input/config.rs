//! Input stage, configuration files: where each resource, data source, module call, check,
//! output and variable is declared in the `.tf` files, so that a change or a check can
//! link to the block behind it.
//!
//! Contract: reads the root module's directory and each local module the plan's
//! `configuration` names (a `module_calls` entry whose `source` starts `./` or `../`,
//! nested), never the network; a registry or git module is located by its `module` block.
//! Instances (`count`, `for_each`) share their block. A file that does not parse, or that
//! is JSON configuration (no block positions), gives no locations and one warning; nothing
//! here fails the run. Paths are lexical (`dir` joined with the sources, `..` resolved
//! without touching the disk), so the caller can place them in its repository.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::json::Value;
use super::text::one_line;

/// Where a block is declared: its file and the line of its first token (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    /// The file: the directory given to [`Declarations::read`] joined with the module
    /// sources that lead to it, `..` resolved lexically.
    pub(crate) file: PathBuf,
    /// The line of the block's type keyword (`resource`, `data`, `module`).
    pub(crate) line: usize,
}

/// Where the configuration declares its resources, data sources and remote module calls.
#[derive(Debug, Default)]
pub(crate) struct Declarations {
    /// By module call names, mode, type and name ([`block_key`]).
    blocks: HashMap<String, Location>,
    /// The `module` blocks of modules not read (registry, git), by their call names.
    calls: HashMap<String, Location>,
    /// What could not be read, one line each, for the caller to print.
    pub(crate) warnings: Vec<String>,
    /// The directory read holds configuration files (else nothing was read, and the one
    /// warning says so).
    pub(crate) configured: bool,
}

/// The top-level blocks of one directory's `.tf` files: `(keyword, labels)` → its
/// location; the first declaration wins.
type Directory = HashMap<(String, Vec<String>), Location>;

impl Declarations {
    /// Reads the root module in `dir` and the local modules `configuration` (the plan's
    /// member, as JSON text) calls.
    pub(crate) fn read(dir: &Path, configuration: Option<&str>) -> Declarations {
        let config = configuration.and_then(|text| Value::parse(text).ok());
        let mut found = Declarations::default();
        if !has_configuration(dir) {
            // Not where `terraform plan` ran: its local modules would be looked for in the
            // wrong place too.
            found.warn(
                dir,
                "no .tf files here, so the changes get no links: pass --config-dir, the directory `terraform plan` ran in",
            );
            return found;
        }
        found.configured = true;
        let mut read: HashMap<PathBuf, Directory> = HashMap::new();
        let root = config.as_ref().and_then(|c| c.get("root_module"));
        found.add_module(&normal(dir), root, &mut Vec::new(), &mut read);
        found
    }

    /// Where the resource `type_.name` (`mode` `managed` or `data`) of the module reached
    /// through the calls `modules` is declared: its own block, or the `module` block of the
    /// remote module holding it. `None` when its block is not in the files (a destroyed
    /// resource whose block was deleted) or its file was not read.
    pub(crate) fn find(
        &self,
        modules: &[&str],
        mode: &str,
        type_: &str,
        name: &str,
    ) -> Option<&Location> {
        let keyword = if mode == "data" { "data" } else { "resource" };
        self.find_block(modules, keyword, &[type_, name])
    }

    /// Where the block `keyword "labels"…` (`check "health"`, `output "id"`, `variable
    /// "x"`, a resource's `resource "type" "name"`) of the module reached through
    /// `modules` is declared, or the `module` block of the remote module holding it.
    pub(crate) fn find_block(
        &self,
        modules: &[&str],
        keyword: &str,
        labels: &[&str],
    ) -> Option<&Location> {
        if let Some(found) = self.blocks.get(&block_key(modules, keyword, labels)) {
            return Some(found);
        }
        (1..=modules.len()).find_map(|depth| self.calls.get(&modules[..depth].join("\0")))
    }

    fn add_module(
        &mut self,
        dir: &Path,
        module: Option<&Value<'_>>,
        path: &mut Vec<String>,
        read: &mut HashMap<PathBuf, Directory>,
    ) {
        let directory = &*read
            .entry(dir.to_path_buf())
            .or_insert_with(|| self.read_dir(dir));
        let names: Vec<&str> = path.iter().map(String::as_str).collect();
        for ((keyword, labels), location) in directory {
            if keyword != "module" {
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                self.blocks
                    .insert(block_key(&names, keyword, &labels), location.clone());
            }
        }
        let Some(Value::Object(calls)) = module.and_then(|m| m.get("module_calls")) else {
            return;
        };
        // Cloned: the recursion below reads more directories into `read`.
        let module_blocks: HashMap<String, Location> = directory
            .iter()
            .filter(|((keyword, labels), _)| keyword == "module" && labels.len() == 1)
            .map(|((_, labels), location)| (labels[0].clone(), location.clone()))
            .collect();
        for (name, call) in calls {
            path.push(name.to_string());
            match call
                .get("source")
                .and_then(Value::as_str)
                .filter(|s| is_local(s))
            {
                Some(source) => {
                    let child = call.get("module");
                    self.add_module(&normal(&dir.join(source)), child, path, read);
                }
                None => {
                    if let Some(block) = module_blocks.get(name.as_ref()) {
                        self.calls.insert(path.join("\0"), block.clone());
                    }
                }
            }
            path.pop();
        }
    }

    /// The top-level blocks of `dir`'s `.tf` files (override files aside: they amend a
    /// block declared elsewhere), in name order so that the first declaration wins as it
    /// would for a reader.
    fn read_dir(&mut self, dir: &Path) -> Directory {
        let mut directory = Directory::default();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                self.warn(
                    dir,
                    &format!("cannot read the directory ({e}); its blocks get no links"),
                );
                return directory;
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            // Lossy: a name that is not UTF-8 is still a file Terraform reads.
            let Some(name) = file.file_name().map(|n| n.to_string_lossy()) else {
                continue;
            };
            if name.ends_with(".tf.json") {
                self.warn(
                    &file,
                    "JSON configuration is not read for links; its blocks get no links",
                );
                continue;
            }
            if !name.ends_with(".tf") || is_override(&name) {
                continue;
            }
            let text = match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(e) => {
                    self.warn(
                        &file,
                        &format!("cannot read ({e}); its blocks get no links"),
                    );
                    continue;
                }
            };
            match hcl_edit::parser::parse_body(&text) {
                Ok(body) => add_blocks(&mut directory, &file, &text, &body),
                Err(e) => {
                    let at = e.location();
                    let problem = format!(
                        "not HCL planmark can read (line {}, column {}); its blocks get no links",
                        at.line(),
                        at.column()
                    );
                    self.warn(&file, &problem);
                }
            }
        }
        directory
    }

    fn warn(&mut self, path: &Path, problem: &str) {
        // A file name comes from the pull request: one line whatever it holds.
        let path = one_line(&path.display().to_string()).into_owned();
        self.warnings.push(format!("{path}: {problem}"));
    }
}

/// The top-level blocks a change, a check or a module call is declared by.
const KEYWORDS: [&str; 7] = [
    "resource",
    "data",
    "ephemeral",
    "module",
    "check",
    "output",
    "variable",
];

/// Records the top-level blocks of `body` named in [`KEYWORDS`] (parsed from `text`, the
/// file `file`).
fn add_blocks(
    directory: &mut Directory,
    file: &Path,
    text: &str,
    body: &hcl_edit::structure::Body,
) {
    use hcl_edit::Span;
    for block in body.blocks() {
        let keyword = block.ident.as_str();
        if !KEYWORDS.contains(&keyword) {
            continue;
        }
        let Some(span) = block.ident.span().or_else(|| block.span()) else {
            continue;
        };
        let line = 1 + text.as_bytes()[..span.start.min(text.len())]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        let labels = block
            .labels
            .iter()
            .map(|l| l.as_str().to_string())
            .collect();
        directory
            .entry((keyword.to_string(), labels))
            .or_insert(Location {
                file: file.to_path_buf(),
                line,
            });
    }
}

/// `dir` holds configuration files (`.tf`, `.tf.json`).
fn has_configuration(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".tf") || name.ends_with(".tf.json")
        })
    })
}

/// Terraform's override files (`override.tf`, `*_override.tf`).
fn is_override(name: &str) -> bool {
    name == "override.tf" || name.ends_with("_override.tf")
}

/// A module source that is a path in the same repository.
fn is_local(source: &str) -> bool {
    source.starts_with("./") || source.starts_with("../")
}

fn block_key(modules: &[&str], keyword: &str, labels: &[&str]) -> String {
    let mut key = modules.join("\0");
    for part in std::iter::once(&keyword).chain(labels) {
        key.push('\u{1}');
        key.push_str(part);
    }
    key
}

/// `path` with `.` dropped and `..` taking back a name where one precedes it (lexically:
/// a module's path is where its source says, whatever links lie on the way).
pub(crate) fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("planmark-config-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const CONFIGURATION: &str = r#"{"root_module": {"module_calls": {
        "net": {"source": "./modules/net", "module": {"module_calls": {
            "sub": {"source": "../sub", "module": {}}}}},
        "vpc": {"source": "terraform-aws-modules/vpc/aws", "module": {}}}}}"#;

    #[test]
    fn finds_blocks_through_local_modules_and_remote_calls() {
        let dir = scratch("modules");
        write(
            &dir,
            "main.tf",
            "# a comment\nresource \"null_resource\" \"a\" {\n  count = 2\n}\n\ndata \"x\" \"y\" {}\nmodule \"net\" {\n  source = \"./modules/net\"\n}\nmodule \"vpc\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\n",
        );
        write(
            &dir,
            "modules/net/net.tf",
            "\n\nresource \"null_resource\" \"n\" {}\nmodule \"sub\" { source = \"../sub\" }\ncheck \"up\" {\n}\n",
        );
        write(
            &dir,
            "modules/sub/x.tf",
            "resource \"null_resource\" \"s\" {}\n",
        );
        let found = Declarations::read(&dir, Some(CONFIGURATION));
        assert!(found.warnings.is_empty(), "{:?}", found.warnings);
        let at = |modules: &[&str], mode, t, n| {
            found
                .find(modules, mode, t, n)
                .map(|l| (l.file.strip_prefix(&dir).unwrap().to_path_buf(), l.line))
        };
        assert_eq!(
            at(&[], "managed", "null_resource", "a"),
            Some(("main.tf".into(), 2))
        );
        assert_eq!(at(&[], "data", "x", "y"), Some(("main.tf".into(), 6)));
        assert_eq!(at(&[], "managed", "x", "y"), None);
        assert_eq!(
            at(&["net"], "managed", "null_resource", "n"),
            Some(("modules/net/net.tf".into(), 3))
        );
        assert_eq!(
            at(&["net", "sub"], "managed", "null_resource", "s"),
            Some(("modules/sub/x.tf".into(), 1))
        );
        // A remote module's resources link to its call.
        assert_eq!(
            at(&["vpc"], "managed", "aws_vpc", "this"),
            Some(("main.tf".into(), 10))
        );
        assert_eq!(
            found.find_block(&["net"], "check", &["up"]).map(|l| l.line),
            Some(5)
        );
        // A deleted block: no link, not the module's call.
        assert_eq!(at(&["net"], "managed", "null_resource", "gone"), None);
    }

    #[test]
    fn a_file_that_does_not_parse_is_named_once_and_gives_no_links() {
        let dir = scratch("broken");
        write(&dir, "bad.tf", "resource \"a\" \"b\" {\n");
        write(&dir, "good.tf", "resource \"c\" \"d\" {}\n");
        write(&dir, "x.tf.json", "{}");
        write(&dir, "override.tf", "resource \"c\" \"d\" {}\n");
        let found = Declarations::read(&dir, None);
        assert_eq!(found.warnings.len(), 2, "{:?}", found.warnings);
        assert!(found.warnings[0].contains("bad.tf: not HCL"));
        assert!(found.warnings[1].contains("x.tf.json: JSON configuration"));
        assert_eq!(found.find(&[], "managed", "a", "b"), None);
        let d = found.find(&[], "managed", "c", "d").unwrap();
        assert!(d.file.ends_with("good.tf"));
    }

    #[test]
    fn a_directory_without_configuration_is_named_once() {
        let dir = scratch("empty");
        write(&dir, "README.md", "not configuration");
        let found = Declarations::read(&dir, Some(CONFIGURATION));
        assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
        assert!(
            found.warnings[0].contains("no .tf files here")
                && found.warnings[0].contains("--config-dir"),
            "{:?}",
            found.warnings
        );
        assert_eq!(found.find(&["net"], "managed", "null_resource", "n"), None);
    }

    #[test]
    fn paths_are_lexical() {
        assert_eq!(normal(Path::new("a/./b/../c")), PathBuf::from("a/c"));
        assert_eq!(normal(Path::new("a/../../c")), PathBuf::from("../c"));
        assert_eq!(normal(Path::new("/a/../../c")), PathBuf::from("/c"));
    }
}
