//! Policy stage, `io.jwt.decode` and `io.jwt.verify_hs256/384/512`: a JSON Web Token
//! (JWS compact form) read without the network, as OPA reads it.
//!
//! Contract: `decode` gives `[header, payload, signature]`, the signature in lowercase
//! hexadecimal, a nested token (`"cty": "JWT"`) decoded through to its claims; the HMAC
//! checks say whether the signature is the secret's. Other algorithms are refused by
//! name (see [`super::refused`]). Errors never quote the token.

use anyhow::{bail, Result};
use hmac::digest::KeyInit;
use hmac::Mac;
use regorus::Value;

use super::crypto::{hex, mac};
use super::string_arg;

/// The three parts of a compact JWS.
struct Token<'a> {
    header: &'a str,
    payload: &'a str,
    signature: &'a str,
}

fn split<'a>(name: &str, text: &'a str) -> Result<Token<'a>> {
    let parts: Vec<&str> = text.split('.').collect();
    match parts[..] {
        [_] => bail!("{name}: the token has no period separators"),
        [header, payload, signature] => Ok(Token {
            header,
            payload,
            signature,
        }),
        _ => bail!(
            "{name}: the token has {} sections, a JWS has 3 (JWE is not supported)",
            parts.len()
        ),
    }
}

/// Base64url, with or without its padding.
fn base64url(name: &str, what: &str, text: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => bail!("{name}: the {what} is not base64url"),
        };
        buffer = (buffer << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

fn json_object(name: &str, what: &str, bytes: &[u8]) -> Result<Value> {
    let text = std::str::from_utf8(bytes).ok();
    match text.and_then(|t| Value::from_json_str(t).ok()) {
        Some(value @ Value::Object(_)) => Ok(value),
        _ => bail!("{name}: the {what} is not a JSON object"),
    }
}

/// `io.jwt.decode(token)`.
pub(super) fn decode(name: &str, args: Vec<Value>) -> Result<Value> {
    let mut text = string_arg(name, &args, 0)?.to_string();
    // A nested token's payload is the next token; a chain this deep is not a real one.
    for _ in 0..16 {
        let token = split(name, &text)?;
        let header = json_object(name, "header", &base64url(name, "header", token.header)?)?;
        let payload = base64url(name, "payload", token.payload)?;
        let nested = header["cty"] == Value::from("JWT");
        if nested {
            text = String::from_utf8(payload)
                .map_err(|_| anyhow::anyhow!("{name}: the nested token is not text"))?;
            continue;
        }
        let payload = json_object(name, "payload", &payload)?;
        let signature = hex(&base64url(name, "signature", token.signature)?);
        return Ok(Value::from(vec![header, payload, signature]));
    }
    bail!("{name}: the token nests more than 16 tokens")
}

/// `io.jwt.verify_hsBITS(token, secret)`, `M` the HMAC of that SHA-2.
pub(super) fn verify<M: Mac + KeyInit>(name: &str, args: Vec<Value>) -> Result<Value> {
    let text = string_arg(name, &args, 0)?;
    let secret = string_arg(name, &args, 1)?;
    let token = split(name, text)?;
    let signature = base64url(name, "signature", token.signature)?;
    let signed = &text[..token.header.len() + 1 + token.payload.len()];
    let mac = mac::<M>(name, secret.as_bytes(), signed.as_bytes())?;
    // In time independent of where they differ.
    Ok(Value::from(mac.verify_slice(&signature).is_ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    #[test]
    fn a_token_decodes_as_in_opa() {
        let decoded = decode("io.jwt.decode", vec![Value::from(TOKEN)]).unwrap();
        assert_eq!(decoded[0]["alg"], Value::from("HS256"));
        assert_eq!(decoded[1]["name"], Value::from("John Doe"));
        assert_eq!(
            decoded[2],
            Value::from("49f94ac7044948c78a285d904f87f0a4c7897f7e8f3a4eb2255fda750b2cc397")
        );
        let verified = |secret: &str| {
            let args = vec![Value::from(TOKEN), Value::from(secret)];
            verify::<hmac::Hmac<sha2::Sha256>>("io.jwt.verify_hs256", args)
        };
        assert_eq!(verified("your-256-bit-secret").unwrap(), Value::from(true));
        assert_eq!(verified("another").unwrap(), Value::from(false));
        assert!(decode("io.jwt.decode", vec![Value::from("abc")]).is_err());
    }
}
