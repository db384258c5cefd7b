//! Command line, GitHub Actions workflow commands: in Actions, a line of standard output
//! that starts with `::` is a command to the runner (`::add-mask::`, `::error::`,
//! `::stop-commands::`, …), so text holding plan strings is printed between
//! `::stop-commands::TOKEN` and `::TOKEN::`, GitHub's documented way to print untrusted
//! text: the runner runs no command in between. TOKEN comes from the operating system's
//! random source, so nothing in a plan can foresee it to end the pause early.
//!
//! Output redirected to a regular file (`planmark render > comment.md`) or to `/dev/null`
//! never reaches the runner's log and is left as it is; annotations then go to standard
//! error.

use std::io::{self, Write};

use crate::render::annotations::Annotation;

/// Whether standard output goes to the runner's log of a GitHub Actions job:
/// `GITHUB_ACTIONS=true` and standard output is not a regular file.
pub(super) fn stdout_reaches_runner() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") && !stdout_is_file()
}

/// Standard output goes to a regular file, or (unix) to a device that is not a terminal
/// such as `/dev/null`: nothing written there reaches the runner's log.
#[cfg(unix)]
fn stdout_is_file() -> bool {
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else {
        return false;
    };
    let device =
        |m: &std::fs::Metadata| m.file_type().is_char_device() && !io::stdout().is_terminal();
    std::fs::File::from(fd)
        .metadata()
        .is_ok_and(|m| m.is_file() || device(&m))
}

#[cfg(windows)]
fn stdout_is_file() -> bool {
    use std::os::windows::io::AsHandle;
    let Ok(handle) = io::stdout().as_handle().try_clone_to_owned() else {
        return false;
    };
    std::fs::File::from(handle)
        .metadata()
        .is_ok_and(|m| m.is_file())
}

#[cfg(not(any(unix, windows)))]
fn stdout_is_file() -> bool {
    false
}

/// Prints `annotations` as workflow commands where the runner reads them: on standard
/// output (`out`), after anything paused there has resumed, unless it is a file (the
/// output redirected), then on standard error.
pub(super) fn annotate(annotations: &[Annotation], out: &mut dyn Write) -> io::Result<()> {
    if annotations.is_empty() {
        return Ok(());
    }
    let text = crate::render::annotations::lines(annotations);
    match stdout_is_file() {
        true => io::stderr().lock().write_all(text.as_bytes()),
        false => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
    }
}

/// A fresh token for `::stop-commands::`: 128 bits from the operating system, in hex.
pub(super) fn token() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A writer that pauses workflow commands around everything written through it: the
/// `::stop-commands::` line goes out before the first byte, the resuming line at
/// [`StopCommands::finish`] (on a line of its own). Nothing written, nothing added.
pub(super) struct StopCommands<'w> {
    inner: &'w mut dyn Write,
    token: String,
    started: bool,
    at_line_start: bool,
}

impl<'w> StopCommands<'w> {
    pub(super) fn new(inner: &'w mut dyn Write, token: String) -> Self {
        StopCommands {
            inner,
            token,
            started: false,
            at_line_start: true,
        }
    }

    /// Resumes workflow commands, if they were paused.
    pub(super) fn finish(self) -> io::Result<()> {
        if self.started {
            if !self.at_line_start {
                self.inner.write_all(b"\n")?;
            }
            writeln!(self.inner, "::{}::", self.token)?;
        }
        self.inner.flush()
    }
}

impl Write for StopCommands<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if !self.started {
            writeln!(self.inner, "::stop-commands::{}", self.token)?;
            self.started = true;
        }
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.at_line_start = buf[n - 1] == b'\n';
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_hex() {
        let (a, b) = (token().unwrap(), token().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn written_text_is_paused_and_resumed_on_its_own_line() {
        let mut out = Vec::new();
        let mut w = StopCommands::new(&mut out, "t0k".into());
        w.write_all(b"a\n::error::x").unwrap();
        w.finish().unwrap();
        assert_eq!(out, b"::stop-commands::t0k\na\n::error::x\n::t0k::\n");
        let mut out = Vec::new();
        StopCommands::new(&mut out, "t".into()).finish().unwrap();
        assert!(out.is_empty(), "nothing written, nothing added");
    }
}
