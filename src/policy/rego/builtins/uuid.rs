//! Policy stage, OPA's `uuid.parse` (regorus's names the variant of a UUID whose variant
//! bits are `0xx` "NCS", and gives v6 and v7 UUIDs a `time`, where OPA does neither).
//!
//! Contract: the forms Go's UUID parser reads (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`,
//! braced, `urn:uuid:`-prefixed, 32 hex digits) → `version` and `variant` (`RFC4122`,
//! `Microsoft`, `Future`, else `Reserved`), and for versions 1 and 2 the time (Unix
//! nanoseconds), clock sequence, node and its MAC kind, and for version 2 the id and its
//! domain. Any other text is undefined, as in OPA.

use std::collections::BTreeMap;

use anyhow::Result;
use regorus::Value;

use super::string_arg;

/// 100-nanosecond intervals from the Gregorian calendar's start (1582-10-15) to 1970.
const GREGORIAN_TO_UNIX: i64 = 0x01B2_1DD2_1381_4000;

/// `uuid.parse(text)`.
pub(super) fn parse(name: &str, args: Vec<Value>) -> Result<Value> {
    let text = string_arg(name, &args, 0)?;
    let Some(b) = bytes(text) else {
        return Ok(Value::Undefined);
    };
    let version = b[6] >> 4;
    let variant = match b[8] {
        v if v & 0xc0 == 0x80 => "RFC4122",
        v if v & 0xe0 == 0xc0 => "Microsoft",
        v if v & 0xe0 == 0xe0 => "Future",
        _ => "Reserved",
    };
    let mut out = BTreeMap::new();
    let mut put = |key: &str, value: Value| out.insert(Value::from(key), value);
    put("version", Value::from(u64::from(version)));
    put("variant", Value::from(variant));
    if version == 1 || version == 2 {
        let ticks = (u64::from(b[6] & 0x0f) << 56)
            | (u64::from(b[7]) << 48)
            | (u64::from(b[4]) << 40)
            | (u64::from(b[5]) << 32)
            | u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        // Go's int64 arithmetic, wrapping as it does for times far past 2262.
        let since = (ticks as i64).wrapping_sub(GREGORIAN_TO_UNIX);
        let nanos = (since / 10_000_000)
            .wrapping_mul(1_000_000_000)
            .wrapping_add((since % 10_000_000) * 100);
        put("time", Value::from(nanos));
        let node: Vec<String> = b[10..].iter().map(|x| format!("{x:02x}")).collect();
        put("nodeid", Value::from(node.join("-")));
        let mac = match b[10] & 0b11 {
            0b11 => "local:multicast",
            0b01 => "global:multicast",
            0b10 => "local:unicast",
            _ => "global:unicast",
        };
        put("macvariables", Value::from(mac));
        let clock = u16::from_be_bytes([b[8], b[9]]) & 0x3fff;
        put("clocksequence", Value::from(u64::from(clock)));
        if version == 2 {
            let id = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            put("id", Value::from(u64::from(id)));
            let domain = match b[9] {
                0 => "Person".to_string(),
                1 => "Group".to_string(),
                2 => "Org".to_string(),
                n => format!("Domain{n}"),
            };
            put("domain", Value::from(domain));
        }
    }
    Ok(Value::from(out))
}

/// The 16 bytes of a UUID in one of the forms Go reads.
fn bytes(text: &str) -> Option<[u8; 16]> {
    let hyphenated = match text.len() {
        32 => return hex(text),
        36 => text,
        38 => text.strip_prefix('{')?.strip_suffix('}')?,
        45 => {
            let (urn, rest) = text.split_at_checked(9)?;
            urn.eq_ignore_ascii_case("urn:uuid:").then_some(rest)?
        }
        _ => return None,
    };
    let dashes = [8, 13, 18, 23];
    if dashes.iter().any(|&i| hyphenated.as_bytes()[i] != b'-') {
        return None;
    }
    let digits: String = hyphenated.chars().filter(|&c| c != '-').collect();
    match digits.len() {
        32 => hex(&digits),
        _ => None,
    }
}

fn hex(digits: &str) -> Option<[u8; 16]> {
    let mut out = [0u8; 16];
    for (i, pair) in digits.as_bytes().chunks(2).enumerate() {
        let pair = std::str::from_utf8(pair).ok()?;
        *out.get_mut(i)? = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> String {
        serde_json::to_string(&parse("uuid.parse", vec![Value::from(text)]).unwrap()).unwrap()
    }

    /// Each as OPA answers it (tests/fixtures/policy-oracle/sets/builtin-uuid-jwt).
    #[test]
    fn fields_are_opas() {
        assert_eq!(
            parsed("00000000-0000-0000-0000-000000000000"),
            r#"{"variant":"Reserved","version":0}"#
        );
        assert_eq!(
            parsed("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
            r#"{"clocksequence":180,"macvariables":"global:unicast","nodeid":"00-c0-4f-d4-30-c8","time":886630433151182400,"variant":"RFC4122","version":1}"#
        );
        assert_eq!(
            parsed("000003e8-9dad-21d1-8100-00c04fd430c8"),
            r#"{"clocksequence":256,"domain":"Person","id":1000,"macvariables":"global:unicast","nodeid":"00-c0-4f-d4-30-c8","time":886630252535908000,"variant":"RFC4122","version":2}"#
        );
        assert_eq!(
            parsed("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
            r#"{"variant":"RFC4122","version":7}"#
        );
        assert_eq!(
            parsed("123e4567-e89b-12d3-e456-426614174000"),
            r#"{"clocksequence":9302,"macvariables":"local:unicast","nodeid":"42-66-14-17-40-00","time":8156923288545008700,"variant":"Future","version":1}"#
        );
        for same in [
            "{f47ac10b-58cc-4372-a567-0e02b2c3d479}",
            "URN:uuid:f47ac10b-58cc-4372-a567-0e02b2c3d479",
            "F47AC10B58CC4372A5670E02B2C3D479",
        ] {
            assert_eq!(parsed(same), r#"{"variant":"RFC4122","version":4}"#);
        }
        assert_eq!(
            parsed("f47ac10b-58cc-4372-a567-0e02b2c3d47"),
            r#""<undefined>""#
        );
        assert_eq!(
            parsed("f47ac10b+58cc-4372-a567-0e02b2c3d479"),
            r#""<undefined>""#
        );
    }
}
