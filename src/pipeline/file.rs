//! Pipeline stage, files: reads an input (a file, or standard input for `-`) within its
//! size limit, and parses the sizes `--max-input-size` takes.
//!
//! Contract: a file is refused by its size before anything is read, a pipe once the limit
//! has come; UTF-16 text (with its byte-order mark) comes back as UTF-8.

use std::io::Read;
use std::path::Path;

use super::error::{PipelineError, Result};

/// Reads a file, or standard input for `-`, of at most [`DEFAULT_MAX_INPUT_SIZE`].
pub(crate) fn read_input(path: &str) -> Result<Vec<u8>> {
    read_input_at_most(path, DEFAULT_MAX_INPUT_SIZE)
}

/// Reads a file, or standard input for `-`, refusing more than `max` bytes: a regular
/// file by its size before anything is read, a pipe once `max` bytes have come. UTF-16
/// text (with its byte-order mark) comes back as UTF-8.
pub(crate) fn read_input_at_most(path: &str, max: u64) -> Result<Vec<u8>> {
    let read_error = |source| PipelineError::read(path, source);
    let too_big = |size: Option<u64>| {
        let limit = human_size(max);
        let size = match size {
            Some(size) => format!("is {}; planmark reads at most {limit}", human_size(size)),
            None => format!("is more than {limit}, the most planmark reads"),
        };
        PipelineError::input(
            path,
            format!("{size} (raise the limit with --max-input-size)"),
        )
    };
    let mut bytes = Vec::new();
    if path == "-" {
        let stdin = std::io::stdin().lock();
        stdin.take(max.saturating_add(1)).read_to_end(&mut bytes)
    } else {
        let file = std::fs::File::open(path).map_err(read_error)?;
        let meta = file.metadata().map_err(read_error)?;
        if meta.is_dir() {
            return Err(PipelineError::input(path, "is a directory, not a file"));
        }
        if meta.is_file() && meta.len() > max {
            return Err(too_big(Some(meta.len())));
        }
        // Exactly the file's size (and a byte to see that it has not grown): reading into
        // a growing buffer would double it and copy, nearly tripling the peak memory.
        if meta.is_file() {
            bytes.reserve_exact(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
        }
        file.take(max.saturating_add(1)).read_to_end(&mut bytes)
    }
    .map_err(read_error)?;
    if bytes.len() as u64 > max {
        return Err(too_big(None));
    }
    // Windows PowerShell's `>` writes UTF-16: every input is read as UTF-8 from here on.
    Ok(crate::input::encoding::to_utf8(path, bytes)?)
}

/// The default largest input (`--max-input-size`): 1 GiB. Parsed, a plan takes several
/// times its size in memory, which a 1 GiB plan already asks of a 16 GB hosted runner.
pub const DEFAULT_MAX_INPUT_SIZE: u64 = 1 << 30;

const SIZE_UNITS: [(&str, u64); 3] = [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)];

/// Parses a size such as `1G`, `500M`, `64K` or a number of bytes (powers of 1024).
pub(crate) fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let upper = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, unit) = SIZE_UNITS
        .iter()
        .find_map(|(suffix, unit)| upper.strip_suffix(suffix).map(|d| (d, *unit)))
        .unwrap_or((upper, 1));
    match digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
    {
        Some(n) if n > 0 => Ok(n),
        _ => Err("expected a size such as 1G, 500M, 64K or a number of bytes".to_string()),
    }
}

/// `n` bytes for people: `2 GiB`, `1.5 MiB`, `300 bytes`.
fn human_size(n: u64) -> String {
    for (suffix, unit) in SIZE_UNITS {
        if n >= unit {
            return if n.is_multiple_of(unit) {
                format!("{} {suffix}iB", n / unit)
            } else {
                format!("{:.1} {suffix}iB", n as f64 / unit as f64)
            };
        }
    }
    format!("{n} bytes")
}

pub(super) fn read_text(path: &Path) -> Result<String> {
    let display = path.display().to_string();
    let bytes = read_input(&display)?;
    String::from_utf8(bytes).map_err(|_| PipelineError::input(&display, "is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print_in_powers_of_1024() {
        for (text, bytes) in [
            ("1G", 1 << 30),
            ("1GiB", 1 << 30),
            ("500m", 500 << 20),
            ("64KB", 64 << 10),
            ("1000", 1000),
        ] {
            assert_eq!(parse_size(text), Ok(bytes), "{text}");
        }
        for bad in ["", "0", "G", "1T", "-1K", "1.5G", "99999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad:?} should be refused");
        }
        assert_eq!(human_size(2 << 30), "2 GiB");
        assert_eq!(human_size(3 << 19), "1.5 MiB");
        assert_eq!(human_size(1023), "1023 bytes");
    }
}
