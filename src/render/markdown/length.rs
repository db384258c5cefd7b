//! Markdown renderer, length: a comment's length as GitHub counts it, and the share of the
//! limit the log's diagnostics may take. Every part that sizes itself asks here.

/// Length as GitHub counts it (UTF-16 code units).
pub fn measure(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Characters the log's diagnostics may take (`--failed`, `--log`): a third of the limit,
/// a tenth in the counts-only form, so that they never crowd out the plan's own verdict.
/// What does not fit is counted, errors before warnings (see `problems.rs`).
pub(crate) fn diagnostics_room(max_chars: usize, tight: bool) -> usize {
    max_chars / if tight { 10 } else { 3 }
}

/// Characters the apply's resource table and outputs may take (`--applied`): a quarter of
/// the limit, a twentieth in the counts-only form (the diagnostics have their own share).
/// What does not fit is counted, failed resources listed first (see `applied.rs`).
pub(crate) fn applied_room(max_chars: usize, tight: bool) -> usize {
    max_chars / if tight { 20 } else { 4 }
}
