//! Input stage, identity: the SHA-256 of a plan (or log) file, recorded in the comment's
//! marker so that a later run or a reader can tell which plan a comment shows.

use sha2::{Digest, Sha256};

/// SHA-256 (lowercase hex) of the file's bytes: `terraform show -json` writes the same
/// bytes for the same plan, so the raw bytes identify it.
pub fn plan_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_the_bytes_as_they_are() {
        assert_eq!(
            plan_sha256(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(plan_sha256(b"{\"a\":1}"), plan_sha256(b"{ \"a\": 1 }"));
    }
}
