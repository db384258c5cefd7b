//! Policy stage, OPA builtins planmark refuses, each by name and with its reason, rather
//! than regorus's "could not find function": those that need the network, and those
//! planmark does not provide (listed in docs/policy.md).
//!
//! Contract: calling one fails the rule with an error naming the builtin; none is ever
//! evaluated.

use anyhow::{bail, Result};
use regorus::Value;

/// Why a group of builtins is refused.
const NETWORK: &str = "policies run without the network";
const CERTIFICATES: &str = "planmark reads no certificates or keys in policies";
const SIGNATURES: &str =
    "planmark checks only HMAC signatures (io.jwt.verify_hs256, _hs384, _hs512)";
const NOT_PROVIDED: &str = "planmark does not provide it (see docs/policy.md)";

/// Each refused builtin: its name, how many arguments it takes, why.
pub(super) const REFUSED: &[(&str, u8, &str)] = &[
    ("http.send", 1, NETWORK),
    ("net.lookup_ip_addr", 1, NETWORK),
    ("rego.parse_module", 2, NOT_PROVIDED),
    ("rego.metadata.chain", 0, NOT_PROVIDED),
    ("rego.metadata.rule", 0, NOT_PROVIDED),
    ("regex.globs_match", 2, NOT_PROVIDED),
    (
        "rand.intn",
        2,
        "a policy's verdict must not change from run to run",
    ),
    ("io.jwt.decode_verify", 2, SIGNATURES),
    ("io.jwt.verify_rs256", 2, SIGNATURES),
    ("io.jwt.verify_rs384", 2, SIGNATURES),
    ("io.jwt.verify_rs512", 2, SIGNATURES),
    ("io.jwt.verify_ps256", 2, SIGNATURES),
    ("io.jwt.verify_ps384", 2, SIGNATURES),
    ("io.jwt.verify_ps512", 2, SIGNATURES),
    ("io.jwt.verify_es256", 2, SIGNATURES),
    ("io.jwt.verify_es384", 2, SIGNATURES),
    ("io.jwt.verify_es512", 2, SIGNATURES),
    ("io.jwt.verify_eddsa", 2, SIGNATURES),
    ("io.jwt.encode_sign", 3, SIGNATURES),
    ("io.jwt.encode_sign_raw", 3, SIGNATURES),
    ("crypto.x509.parse_certificates", 1, CERTIFICATES),
    ("crypto.x509.parse_and_verify_certificates", 1, CERTIFICATES),
    (
        "crypto.x509.parse_and_verify_certificates_with_options",
        2,
        CERTIFICATES,
    ),
    ("crypto.x509.parse_certificate_request", 1, CERTIFICATES),
    ("crypto.x509.parse_keypair", 2, CERTIFICATES),
    ("crypto.x509.parse_rsa_private_key", 1, CERTIFICATES),
    ("crypto.parse_private_keys", 1, CERTIFICATES),
];

/// The extension standing for the refused builtin `name`.
pub(super) fn refusal(
    name: &'static str,
    why: &'static str,
) -> impl Fn(Vec<Value>) -> Result<Value> + Clone + Send + Sync {
    move |_| bail!("`{name}` is not supported by planmark: {why}")
}
