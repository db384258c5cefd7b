//! Golden files: an output compared with the file stored beside its input, or written
//! there when `PLANMARK_BLESS` is set (then review the change with `git diff`).

use std::path::Path;

use super::{compact_diff, manifest_dir};

/// `PLANMARK_BLESS=1`: goldens are written, not compared.
pub fn blessing() -> bool {
    std::env::var_os("PLANMARK_BLESS").is_some()
}

/// The path as the repository names it (`tests/fixtures/...`), for reports.
pub fn shown(path: &Path) -> String {
    let path = path.strip_prefix(manifest_dir()).unwrap_or(path);
    path.display().to_string()
}

/// `actual` must equal the file at `path`; when blessing, it is written there instead.
/// The error says what differs, in a compact line diff.
pub fn check(path: &Path, actual: &str) -> Result<(), String> {
    if blessing() {
        return std::fs::write(path, actual)
            .map_err(|e| format!("{}: cannot write: {e}", shown(path)));
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => Ok(()),
        Ok(expected) => Err(format!(
            "{} differs (if the change is right: PLANMARK_BLESS=1, then review the diff)\n{}",
            shown(path),
            compact_diff(&expected, actual, 30)
        )),
        Err(e) => Err(format!(
            "{}: {e} (a new case? PLANMARK_BLESS=1 writes it, then review it)",
            shown(path)
        )),
    }
}
