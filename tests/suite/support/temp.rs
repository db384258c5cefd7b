//! Temporary directories for the tests: unique within the one test process, removed when
//! dropped.
//!
//! Every module runs in the same process, at the same time as the others, so a path made
//! of the process id and a name alone could be another test's; each directory here also
//! carries a count. `PLANMARK_KEEP_TEST_DIRS=1` keeps them to look at after a failure.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty directory `planmark-NAME-PID-N` under the system's temporary directory.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        let path = std::env::temp_dir().join(format!("planmark-{name}-{pid}-{n}"));
        // Left over from an earlier run whose process had the same id.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        // The real path (macOS's /var is a link to /private/var), as a shell's $PWD will be.
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("PLANMARK_KEEP_TEST_DIRS").is_some() {
            eprintln!("kept {}", self.path.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Copies the files under `from` into `to`, folders included.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
