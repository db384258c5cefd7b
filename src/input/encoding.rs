//! Input stage: text files (plans, schemas, logs) in the encodings Windows tools write, turned
//! into UTF-8 before any parser sees them.
//!
//! Contract: [`to_utf8`] returns UTF-16 text (LE or BE, recognised by its byte-order mark,
//! as Windows PowerShell's `>` writes it, or without one by a zero byte beside its first
//! character) as UTF-8 without the mark, and any other bytes untouched, without copying
//! them (the usual case costs two byte compares); text that cannot be UTF-16 is an input
//! error naming the file.

use crate::input::error::{InputError, Result};

/// How UTF-16 text was recognised, as the errors say it.
const MARKED: &str = "it starts with a UTF-16 byte-order mark";
const UNMARKED: &str = "every other byte is zero, with no byte-order mark";

/// `bytes` read from `path` as UTF-8 (see the module documentation).
pub(crate) fn to_utf8(path: &str, bytes: Vec<u8>) -> Result<Vec<u8>> {
    // How the encoding is known, the bytes it skips, how a pair of bytes is a unit.
    type Unit = fn([u8; 2]) -> u16;
    let (known, skip, unit): (&str, usize, Unit) = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => (MARKED, 2, u16::from_le_bytes),
        Some([0xFE, 0xFF]) => (MARKED, 2, u16::from_be_bytes),
        // Text planmark reads starts with an ASCII character, which UTF-16 writes beside a
        // zero byte and UTF-8 never does (as .NET's `Out-File -Encoding Unicode` without
        // its mark, or `iconv -t UTF-16LE`, write it).
        Some([a, 0]) if *a != 0 => (UNMARKED, 0, u16::from_le_bytes),
        Some([0, b]) if *b != 0 => (UNMARKED, 0, u16::from_be_bytes),
        _ => return Ok(bytes),
    };
    let body = &bytes[skip..];
    if !body.len().is_multiple_of(2) {
        return Err(InputError::input(
            path,
            format!("is UTF-16 text ({known}) with an odd number of bytes: it was cut short; write it again"),
        ));
    }
    let units = body.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    let mut text = String::with_capacity(body.len() / 2 + body.len() / 8);
    for (i, c) in char::decode_utf16(units).enumerate() {
        match c {
            Ok(c) => text.push(c),
            Err(_) => {
                return Err(InputError::input(
                    path,
                    format!(
                        "is UTF-16 text ({known}) with an unpaired surrogate at byte {}; write it again as UTF-8",
                        skip + 2 * i
                    ),
                ))
            }
        }
    }
    Ok(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, le: bool) -> Vec<u8> {
        "\u{FEFF}"
            .encode_utf16()
            .chain(text.encode_utf16())
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    }

    #[test]
    fn utf16_with_a_mark_becomes_utf8_and_the_rest_stays() {
        let text = "{\"k\":\"é 🙂\"}";
        for le in [true, false] {
            assert_eq!(to_utf8("p", utf16(text, le)).unwrap(), text.as_bytes());
        }
        // No mark: untouched, UTF-8 mark included (the parsers skip it).
        for plain in [&b"{}"[..], b"\xEF\xBB\xBF{}", b"", b"\xFF", b"\0\0"] {
            assert_eq!(to_utf8("p", plain.to_vec()).unwrap(), plain);
        }
    }

    #[test]
    fn utf16_without_a_mark_is_told_by_its_zero_bytes() {
        let text = "{\"k\":\"é 🙂\"}";
        for le in [true, false] {
            let bytes = utf16(text, le)[2..].to_vec();
            assert_eq!(to_utf8("p", bytes).unwrap(), text.as_bytes());
        }
        let mut odd = utf16("{}", true)[2..].to_vec();
        odd.pop();
        let err = to_utf8("p", odd).unwrap_err().to_string();
        assert!(
            err.contains("no byte-order mark") && err.contains("cut short"),
            "{err}"
        );
    }

    #[test]
    fn broken_utf16_is_an_error() {
        let mut odd = utf16("{}", true);
        odd.pop();
        assert!(to_utf8("p", odd)
            .unwrap_err()
            .to_string()
            .contains("cut short"));
        let lone = [0xFF, 0xFE, 0x00, 0xD8, b'{', 0];
        let err = to_utf8("p", lone.to_vec()).unwrap_err().to_string();
        assert!(err.contains("unpaired surrogate at byte 2"), "{err}");
    }
}
