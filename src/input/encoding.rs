//! Input stage: text files (plans, schemas, logs) in the encodings Windows tools write, turned
//! into UTF-8 before any parser sees them.
//!
//! Contract: [`to_utf8`] returns UTF-16 text (LE or BE, recognised only by its
//! byte-order mark, as Windows PowerShell's `>` writes it) as UTF-8 without the mark, and
//! any other bytes untouched, without copying them (the usual case costs two byte
//! compares); text that cannot be UTF-16 is an input error naming the file.

use crate::input::error::{InputError, Result};

/// `bytes` read from `path` as UTF-8 (see the module documentation).
pub(crate) fn to_utf8(path: &str, bytes: Vec<u8>) -> Result<Vec<u8>> {
    let unit: fn([u8; 2]) -> u16 = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => u16::from_le_bytes,
        Some([0xFE, 0xFF]) => u16::from_be_bytes,
        _ => return Ok(bytes),
    };
    let body = &bytes[2..];
    if !body.len().is_multiple_of(2) {
        return Err(InputError::input(
            path,
            "is UTF-16 text (it starts with a UTF-16 byte-order mark) with an odd number of bytes: it was cut short; write it again",
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
                        "is UTF-16 text (it starts with a UTF-16 byte-order mark) with an unpaired surrogate at byte {}; write it again as UTF-8",
                        2 + 2 * i
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
        for plain in [&b"{}"[..], b"\xEF\xBB\xBF{}", b"", b"\xFF"] {
            assert_eq!(to_utf8("p", plain.to_vec()).unwrap(), plain);
        }
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
