//! Policy stage, OPA's hashing builtins regorus lacks: `crypto.md5`, `crypto.sha1`,
//! `crypto.sha256` and `crypto.hmac.*`, through the RustCrypto crates.
//!
//! Contract: each returns the lowercase hexadecimal digest of the string's UTF-8 bytes,
//! as OPA does; `crypto.hmac.equal` compares two digests in constant time.

use anyhow::Result;
use hmac::{Hmac, Mac};
use regorus::Value;
use sha2::Digest;

use super::string_arg;

/// Lowercase hexadecimal, as OPA writes digests and signatures.
pub(super) fn hex(bytes: &[u8]) -> Value {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    Value::from(out)
}

fn digest<D: Digest>(name: &str, args: &[Value]) -> Result<Value> {
    let text = string_arg(name, args, 0)?;
    Ok(hex(&D::digest(text.as_bytes())))
}

pub(super) fn md5(args: Vec<Value>) -> Result<Value> {
    digest::<md5::Md5>("crypto.md5", &args)
}

pub(super) fn sha1(args: Vec<Value>) -> Result<Value> {
    digest::<sha1::Sha1>("crypto.sha1", &args)
}

pub(super) fn sha256(args: Vec<Value>) -> Result<Value> {
    digest::<sha2::Sha256>("crypto.sha256", &args)
}

/// `crypto.hmac.NAME(message, key)`.
fn hmac<M: Mac + hmac::digest::KeyInit>(name: &str, args: &[Value]) -> Result<Value> {
    let message = string_arg(name, args, 0)?;
    let key = string_arg(name, args, 1)?;
    let mut mac = <M as hmac::digest::KeyInit>::new_from_slice(key.as_bytes())
        .map_err(|_| anyhow::anyhow!("{name}: the key cannot be used"))?;
    mac.update(message.as_bytes());
    Ok(hex(&mac.finalize().into_bytes()))
}

pub(super) fn hmac_md5(args: Vec<Value>) -> Result<Value> {
    hmac::<Hmac<md5::Md5>>("crypto.hmac.md5", &args)
}

pub(super) fn hmac_sha1(args: Vec<Value>) -> Result<Value> {
    hmac::<Hmac<sha1::Sha1>>("crypto.hmac.sha1", &args)
}

pub(super) fn hmac_sha256(args: Vec<Value>) -> Result<Value> {
    hmac::<Hmac<sha2::Sha256>>("crypto.hmac.sha256", &args)
}

pub(super) fn hmac_sha512(args: Vec<Value>) -> Result<Value> {
    hmac::<Hmac<sha2::Sha512>>("crypto.hmac.sha512", &args)
}

/// `crypto.hmac.equal(a, b)`: whether two MACs are equal, in time independent of where
/// they differ.
pub(super) fn hmac_equal(args: Vec<Value>) -> Result<Value> {
    let name = "crypto.hmac.equal";
    let a = string_arg(name, &args, 0)?.as_bytes();
    let b = string_arg(name, &args, 1)?.as_bytes();
    let differ = a.len() != b.len() || a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) != 0;
    Ok(Value::from(!differ))
}

/// HMAC-SHA-`bits` (256, 384, 512), for `io.jwt.verify_hs*`.
pub(super) fn hmac_sha(bits: u32, key: &[u8], message: &[u8]) -> Vec<u8> {
    fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], message: &[u8]) -> Vec<u8> {
        match <M as hmac::digest::KeyInit>::new_from_slice(key) {
            Ok(mut mac) => {
                mac.update(message);
                mac.finalize().into_bytes().to_vec()
            }
            Err(_) => Vec::new(),
        }
    }
    match bits {
        384 => run::<Hmac<sha2::Sha384>>(key, message),
        512 => run::<Hmac<sha2::Sha512>>(key, message),
        _ => run::<Hmac<sha2::Sha256>>(key, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(Vec<Value>) -> Result<Value>, args: &[&str]) -> String {
        let args = args.iter().map(|a| Value::from(*a)).collect();
        f(args).unwrap().as_string().unwrap().to_string()
    }

    #[test]
    fn digests_are_opas() {
        // Recorded from OPA: crypto.sha256("abc"), crypto.hmac.sha256("msg", "key"), ...
        assert_eq!(
            call(sha256, &["abc"]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(call(md5, &["abc"]), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            call(sha1, &["abc"]),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            call(hmac_sha256, &["msg", "key"]),
            "2d93cbc1be167bcb1637a4a23cbff01a7878f0c50ee833954ea5221bb1b8c628"
        );
        assert_eq!(
            call(hmac_md5, &["msg", "key"]),
            "18e3548c59ad40dd03907b7aeee71d67"
        );
        assert_eq!(
            call(hmac_sha1, &["msg", "key"]),
            "102900b72b7bf1031eec76b4804b66052376896b"
        );
    }
}
