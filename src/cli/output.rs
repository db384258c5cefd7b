//! Command line, `render -o FILE`: the output written to a file that appears whole or not
//! at all. It never reaches an Actions runner's log, so it is not wrapped in
//! `::stop-commands::` (which `render … | tee FILE` would capture into the file).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::error::{Error, Result};

/// A file being written beside `target` under a temporary name, renamed onto it by
/// [`Output::commit`]; dropped uncommitted (the render failed), it is removed.
pub(super) struct Output {
    target: PathBuf,
    temporary: PathBuf,
    file: Option<BufWriter<File>>,
}

impl Output {
    /// Starts writing `target`; fails (bad usage) when its folder cannot hold a new file.
    pub(super) fn create(target: &Path) -> Result<Self> {
        if target.is_dir() {
            return Err(Error::input(
                target.display(),
                "-o names a folder: give a file path (e.g. comment.md)",
            ));
        }
        let name = target
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        let temporary =
            target.with_file_name(format!(".{name}.planmark-{}.tmp", std::process::id()));
        let file = File::create(&temporary).map_err(|e| {
            Error::input(
                target.display(),
                format!(
                    "cannot create the -o file ({e}); check that its folder exists and is writable"
                ),
            )
        })?;
        Ok(Output {
            target: target.to_path_buf(),
            temporary,
            file: Some(BufWriter::new(file)),
        })
    }

    /// Where the output goes while it is written.
    pub(super) fn writer(&mut self) -> &mut dyn Write {
        self.file.as_mut().expect("written before commit")
    }

    /// Flushes the file and puts it in place of the target (the temporary file is removed
    /// when that fails).
    pub(super) fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("committed once");
        let placed = file
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&self.temporary, &self.target));
        if placed.is_err() {
            let _ = std::fs::remove_file(&self.temporary);
        }
        placed.map_err(Error::Write)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}
