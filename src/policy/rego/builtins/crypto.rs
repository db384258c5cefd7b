//! Policy stage, OPA's hashing builtins regorus lacks: `crypto.md5`, `crypto.sha1`,
//! `crypto.sha256` and `crypto.hmac.*`, through the RustCrypto crates.
//!
//! Contract: each returns the lowercase hexadecimal digest of the string's UTF-8 bytes,
//! as OPA does; `crypto.hmac.equal` compares two digests in constant time.

use anyhow::Result;
use hmac::digest::KeyInit;
use hmac::Mac;
use regorus::Value;
use sha2::Digest;

use super::string_arg;

/// Lowercase hexadecimal, as OPA writes digests and signatures.
pub(super) fn hex(bytes: &[u8]) -> Value {
    Value::from(bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// `crypto.md5(text)`, `crypto.sha1(text)`, `crypto.sha256(text)`.
pub(super) fn digest<D: Digest>(name: &str, args: Vec<Value>) -> Result<Value> {
    let text = string_arg(name, &args, 0)?;
    Ok(hex(&D::digest(text.as_bytes())))
}

/// `crypto.hmac.NAME(message, key)`.
pub(super) fn hmac<M: Mac + KeyInit>(name: &str, args: Vec<Value>) -> Result<Value> {
    let message = string_arg(name, &args, 0)?;
    let key = string_arg(name, &args, 1)?;
    let mac = mac::<M>(name, key.as_bytes(), message.as_bytes())?;
    Ok(hex(&mac.finalize().into_bytes()))
}

/// The MAC of `message` under `key`, for `crypto.hmac.*` and `io.jwt.verify_hs*`.
pub(super) fn mac<M: Mac + KeyInit>(name: &str, key: &[u8], message: &[u8]) -> Result<M> {
    let mut mac = <M as KeyInit>::new_from_slice(key)
        .map_err(|_| anyhow::anyhow!("{name}: the key cannot be used"))?;
    mac.update(message);
    Ok(mac)
}

/// `crypto.hmac.equal(a, b)`: whether two MACs are equal, in time independent of where
/// they differ.
pub(super) fn hmac_equal(name: &str, args: Vec<Value>) -> Result<Value> {
    let a = string_arg(name, &args, 0)?.as_bytes();
    let b = string_arg(name, &args, 1)?.as_bytes();
    let differ = a.len() != b.len() || a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) != 0;
    Ok(Value::from(!differ))
}

#[cfg(test)]
mod tests {
    use hmac::Hmac;

    use super::*;

    fn call(f: super::super::Builtin, args: &[&str]) -> String {
        let args = args.iter().map(|a| Value::from(*a)).collect();
        f("crypto", args).unwrap().as_string().unwrap().to_string()
    }

    #[test]
    fn digests_are_opas() {
        // Recorded from OPA: crypto.sha256("abc"), crypto.hmac.sha256("msg", "key"), ...
        assert_eq!(
            call(digest::<sha2::Sha256>, &["abc"]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            call(digest::<md5::Md5>, &["abc"]),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            call(digest::<sha1::Sha1>, &["abc"]),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            call(hmac::<Hmac<sha2::Sha256>>, &["msg", "key"]),
            "2d93cbc1be167bcb1637a4a23cbff01a7878f0c50ee833954ea5221bb1b8c628"
        );
        assert_eq!(
            call(hmac::<Hmac<md5::Md5>>, &["msg", "key"]),
            "18e3548c59ad40dd03907b7aeee71d67"
        );
        assert_eq!(
            call(hmac::<Hmac<sha1::Sha1>>, &["msg", "key"]),
            "102900b72b7bf1031eec76b4804b66052376896b"
        );
    }
}
