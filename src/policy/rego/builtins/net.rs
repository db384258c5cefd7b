//! Policy stage, OPA's `net.cidr_*` builtins that need no network (regorus's `net`
//! feature needs its `std` one, which planmark leaves off: see Cargo.toml).
//!
//! Contract: addresses and networks are read as Go's `net.ParseIP` and `net.ParseCIDR`
//! read them; an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is that IPv4 address, and
//! an IPv4 network never contains an IPv6 address (nor the reverse), as in OPA. Errors
//! never quote the text refused: it may come from the plan.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use anyhow::{bail, Result};
use regorus::Value;

use super::string_arg;

/// An address: IPv4 (32 bits) or IPv6 (128 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ip {
    V4(u32),
    V6(u128),
}

impl Ip {
    fn parse(text: &str) -> Option<Ip> {
        match text.parse::<IpAddr>().ok()? {
            IpAddr::V4(v4) => Some(Ip::V4(u32::from(v4))),
            IpAddr::V6(v6) => Some(match v6.to_ipv4_mapped() {
                Some(v4) => Ip::V4(u32::from(v4)),
                None => Ip::V6(u128::from(v6)),
            }),
        }
    }

    fn bits(self) -> u32 {
        match self {
            Ip::V4(_) => 32,
            Ip::V6(_) => 128,
        }
    }

    fn value(self) -> u128 {
        match self {
            Ip::V4(v) => u128::from(v),
            Ip::V6(v) => v,
        }
    }

    fn text(self) -> String {
        match self {
            Ip::V4(v) => Ipv4Addr::from(v).to_string(),
            Ip::V6(v) => Ipv6Addr::from(v).to_string(),
        }
    }

    /// The address of `self`'s version with the value `v` (which fits it).
    fn same_kind(self, v: u128) -> Ip {
        match self {
            Ip::V4(_) => Ip::V4(v as u32),
            Ip::V6(_) => Ip::V6(v),
        }
    }
}

/// A network: its first address and prefix length.
#[derive(Debug, Clone, Copy)]
struct Cidr {
    first: Ip,
    prefix: u32,
}

impl Cidr {
    fn parse(text: &str) -> Option<Cidr> {
        let (address, prefix) = text.split_once('/')?;
        if prefix.is_empty() || prefix.len() > 3 || !prefix.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let prefix: u32 = prefix.parse().ok()?;
        let ip = Ip::parse(address)?;
        let v6 = address.contains(':');
        let prefix = match ip {
            // Written as IPv6, read as IPv4: the mask's last 32 bits count.
            Ip::V4(_) if v6 => prefix
                .checked_sub(96)
                .filter(|_| prefix <= 128)
                .unwrap_or(0),
            _ if prefix > ip.bits() => return None,
            _ => prefix,
        };
        if v6 && prefix > 128 {
            return None;
        }
        let first = ip.same_kind(ip.value() & mask(ip.bits(), prefix));
        Some(Cidr { first, prefix })
    }

    fn contains(&self, ip: Ip) -> bool {
        let same = matches!(
            (self.first, ip),
            (Ip::V4(_), Ip::V4(_)) | (Ip::V6(_), Ip::V6(_))
        );
        same && ip.value() & mask(ip.bits(), self.prefix) == self.first.value()
    }

    fn last(&self) -> Ip {
        let host = !mask(self.first.bits(), self.prefix) & width_mask(self.first.bits());
        self.first.same_kind(self.first.value() | host)
    }

    /// Whether it holds the address or network `text`; `None` when `text` is neither.
    fn holds(&self, text: &str) -> Option<bool> {
        if let Some(ip) = Ip::parse(text) {
            return Some(self.contains(ip));
        }
        let inner = Cidr::parse(text)?;
        Some(self.contains(inner.first) && self.contains(inner.last()))
    }
}

fn width_mask(bits: u32) -> u128 {
    if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

fn mask(bits: u32, prefix: u32) -> u128 {
    if prefix == 0 {
        return 0;
    }
    width_mask(bits) & !(width_mask(bits - prefix.min(bits)))
}

fn cidr(name: &str, args: &[Value], i: usize) -> Result<Cidr> {
    let text = string_arg(name, args, i)?;
    match Cidr::parse(text) {
        Some(c) => Ok(c),
        None => bail!("{name}: operand {} is not a valid CIDR address", i + 1),
    }
}

/// `net.cidr_contains(cidr, cidr_or_ip)`: the address, or both ends of the network, in it.
pub(super) fn cidr_contains(name: &str, args: Vec<Value>) -> Result<Value> {
    let network = cidr(name, &args, 0)?;
    let Some(inside) = network.holds(string_arg(name, &args, 1)?) else {
        bail!("{name}: operand 2 is not a valid IP address or CIDR");
    };
    Ok(Value::from(inside))
}

/// `net.cidr_contains_matches(cidrs, cidrs_or_ips)`: the pairs of keys `[k1, k2]` whose
/// network of the first holds the network or address of the second. Each operand is a
/// string (its own key), or an array (keys: indices), set (keys: elements) or object
/// (keys: keys) of strings or of arrays starting with one.
pub(super) fn cidr_contains_matches(name: &str, args: Vec<Value>) -> Result<Value> {
    let networks = keyed(name, &args[0], 1)?;
    let others = keyed(name, &args[1], 2)?;
    let mut pairs = std::collections::BTreeSet::new();
    for (k1, text) in &networks {
        let Some(network) = Cidr::parse(text) else {
            bail!("{name}: operand 1 holds an invalid CIDR address");
        };
        for (k2, other) in &others {
            let Some(inside) = network.holds(other) else {
                bail!("{name}: operand 2 holds an invalid IP address or CIDR");
            };
            if inside {
                pairs.insert(Value::from(vec![k1.clone(), k2.clone()]));
            }
        }
    }
    Ok(Value::from(pairs))
}

/// The keyed texts of an operand of `net.cidr_contains_matches`.
fn keyed<'a>(name: &str, value: &'a Value, i: usize) -> Result<Vec<(Value, &'a str)>> {
    let text = |item: &'a Value| -> Result<&'a str> {
        match item {
            Value::String(s) => Ok(s),
            Value::Array(a) => match a.first() {
                Some(Value::String(s)) => Ok(s),
                _ => bail!("{name}: operand {i}: an array element must start with a string"),
            },
            _ => bail!("{name}: operand {i}: each element must be a string or an array"),
        }
    };
    Ok(match value {
        Value::String(s) => vec![(value.clone(), s.as_ref())],
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(k, item)| Ok((Value::from(k), text(item)?)))
            .collect::<Result<_>>()?,
        Value::Set(items) => items
            .iter()
            .map(|item| Ok((item.clone(), text(item)?)))
            .collect::<Result<_>>()?,
        Value::Object(fields) => fields
            .iter()
            .map(|(k, item)| Ok((k.clone(), text(item)?)))
            .collect::<Result<_>>()?,
        _ => bail!("{name}: operand {i} must be a string, an array, a set or an object"),
    })
}

/// `net.cidr_intersects(a, b)`: either holds the other's first address.
pub(super) fn cidr_intersects(name: &str, args: Vec<Value>) -> Result<Value> {
    let a = cidr(name, &args, 0)?;
    let b = cidr(name, &args, 1)?;
    Ok(Value::from(a.contains(b.first) || b.contains(a.first)))
}

/// `net.cidr_is_valid(text)`.
pub(super) fn cidr_is_valid(_: &str, args: Vec<Value>) -> Result<Value> {
    Ok(Value::from(match &args[0] {
        Value::String(s) => Cidr::parse(s).is_some(),
        _ => false,
    }))
}

/// The most addresses `net.cidr_expand` lists: a /16 of IPv4. OPA has no bound, but a
/// larger network would hold the run for minutes.
const MAX_EXPAND: u128 = 1 << 16;

/// `net.cidr_expand(cidr)`: every address of the network, as a set of strings.
pub(super) fn cidr_expand(name: &str, args: Vec<Value>) -> Result<Value> {
    let network = cidr(name, &args, 0)?;
    let count = network.last().value() - network.first.value() + 1;
    if count > MAX_EXPAND {
        bail!("{name}: the network has {count} addresses, over planmark's limit of {MAX_EXPAND}");
    }
    let mut set = std::collections::BTreeSet::new();
    for offset in 0..count {
        let ip = network.first.same_kind(network.first.value() + offset);
        set.insert(Value::from(ip.text()));
    }
    Ok(Value::from(set))
}

/// One network of `net.cidr_merge`: its address as written (a bare address keeps its
/// host bits, as OPA prints it unmerged), prefix and first address.
#[derive(Debug, Clone, Copy)]
struct Block {
    address: Ip,
    prefix: u32,
    first: u128,
}

impl Block {
    fn read(text: &str) -> Option<Result<Block>> {
        if let Some(cidr) = Cidr::parse(text) {
            let first = cidr.first.value();
            return Some(Ok(Block {
                address: cidr.first,
                prefix: cidr.prefix,
                first,
            }));
        }
        let address = Ip::parse(text)?;
        // OPA gives a bare IPv4 address its class's mask (Go's `DefaultMask`, /24 past
        // class B) and refuses a bare IPv6 one.
        let Ip::V4(v) = address else {
            return Some(Err(anyhow::anyhow!(
                "net.cidr_merge: an IPv6 address needs a prefix length"
            )));
        };
        let prefix = match v >> 24 {
            0..=127 => 8,
            128..=191 => 16,
            _ => 24,
        };
        let first = u128::from(v) & mask(32, prefix);
        Some(Ok(Block {
            address,
            prefix,
            first,
        }))
    }

    fn v6(&self) -> bool {
        matches!(self.address, Ip::V6(_))
    }

    fn size(&self) -> u128 {
        (width_mask(self.address.bits()) >> self.prefix) + 1
    }

    fn contains(&self, other: &Block) -> bool {
        self.v6() == other.v6()
            && other.prefix >= self.prefix
            && other.first & mask(self.address.bits(), self.prefix) == self.first
    }

    /// The network holding exactly `self` and `next`, when they are its two halves.
    fn parent(&self, next: &Block) -> Option<Block> {
        if self.v6() != next.v6() || self.prefix != next.prefix || self.prefix == 0 {
            return None;
        }
        let prefix = self.prefix - 1;
        let bits = self.address.bits();
        let aligned = self.first & mask(bits, prefix) == self.first;
        if !aligned || next.first != self.first + self.size() {
            return None;
        }
        Some(Block {
            address: self.address.same_kind(self.first),
            prefix,
            first: self.first,
        })
    }

    fn text(&self) -> String {
        format!("{}/{}", self.address.text(), self.prefix)
    }
}

/// `net.cidr_merge(addresses)`: the fewest networks covering the networks and addresses
/// given (an array or set of strings), as a set.
pub(super) fn cidr_merge(name: &str, args: Vec<Value>) -> Result<Value> {
    let items: Vec<&Value> = match &args[0] {
        Value::Array(items) => items.iter().collect(),
        Value::Set(items) => items.iter().collect(),
        _ => bail!("{name}: operand 1 must be an array or a set of strings"),
    };
    let mut blocks = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(text) = item else {
            bail!("{name}: each element must be a string");
        };
        match Block::read(text) {
            Some(block) => blocks.push(block?),
            None => bail!("{name}: an element is not a valid CIDR address"),
        }
    }
    blocks.sort_by_key(|b| (b.v6(), b.first, b.prefix, b.address.value()));
    let mut merged: Vec<Block> = Vec::with_capacity(blocks.len());
    for block in blocks {
        if merged.last().is_some_and(|last| last.contains(&block)) {
            continue;
        }
        merged.push(block);
        // Two halves make their network, which may be the other half of a larger one.
        while merged.len() >= 2 {
            let (a, b) = (merged[merged.len() - 2], merged[merged.len() - 1]);
            let Some(parent) = a.parent(&b) else {
                break;
            };
            merged.truncate(merged.len() - 2);
            merged.push(parent);
        }
    }
    let set: std::collections::BTreeSet<Value> =
        merged.iter().map(|b| Value::from(b.text())).collect();
    Ok(Value::from(set))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contains(a: &str, b: &str) -> bool {
        let v = cidr_contains("net.cidr_contains", vec![Value::from(a), Value::from(b)]).unwrap();
        v == Value::from(true)
    }

    #[test]
    fn containment_is_gos() {
        assert!(contains("10.0.0.0/8", "10.1.2.3"));
        assert!(contains("10.0.0.0/8", "10.1.0.0/16"));
        assert!(!contains("10.0.0.0/8", "11.0.0.0/7"));
        assert!(contains("2001:db8::/32", "2001:db8::1"));
        assert!(contains("::ffff:10.0.0.0/104", "10.0.0.1"));
        assert!(contains("10.0.0.0/8", "::ffff:10.0.0.1"));
        assert!(!contains("::/0", "10.0.0.1"));
        assert!(contains("0.0.0.0/0", "255.255.255.255"));
        assert!(Cidr::parse("10.0.0.0/33").is_none());
        assert!(Cidr::parse("10.0.0.1").is_none());
        assert!(cidr_contains(
            "net.cidr_contains",
            vec![Value::from("x"), Value::from("10.0.0.1")]
        )
        .is_err());
    }

    fn merge(items: &[&str]) -> Result<Vec<String>> {
        let items: Vec<Value> = items.iter().map(|i| Value::from(*i)).collect();
        let merged = cidr_merge("net.cidr_merge", vec![Value::from(items)])?;
        Ok(merged
            .as_set()?
            .iter()
            .map(|v| v.as_string().unwrap().to_string())
            .collect())
    }

    /// Each case as OPA answers it (tests/fixtures/policy/cidr-merge-as-opa).
    #[test]
    fn merging_is_opas() {
        assert_eq!(
            merge(&["10.0.0.0/24", "10.0.1.0/24"]).unwrap(),
            ["10.0.0.0/23"]
        );
        assert_eq!(
            merge(&["10.0.1.0/24", "10.0.2.0/24"]).unwrap(),
            ["10.0.1.0/24", "10.0.2.0/24"]
        );
        assert_eq!(merge(&["10.0.0.1", "10.0.0.0"]).unwrap(), ["10.0.0.0/8"]);
        assert_eq!(merge(&["192.168.1.5"]).unwrap(), ["192.168.1.5/24"]);
        assert_eq!(
            merge(&["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/23"]).unwrap(),
            ["10.0.0.0/22"]
        );
        assert_eq!(
            merge(&[
                "2001:db8::/33",
                "2001:db8:8000::/33",
                "10.0.0.0/25",
                "10.0.0.128/25"
            ])
            .unwrap(),
            ["10.0.0.0/24", "2001:db8::/32"]
        );
        assert_eq!(merge(&["0.0.0.0/0", "1.2.3.4"]).unwrap(), ["0.0.0.0/0"]);
        assert!(merge(&["::1"]).is_err());
        assert!(merge(&["10.0.0.0/33"]).is_err());
    }

    #[test]
    fn contains_matches_pairs_the_keys() {
        let v = |json: &str| Value::from_json_str(json).unwrap();
        let matches =
            |a: &str, b: &str| cidr_contains_matches("net.cidr_contains_matches", vec![v(a), v(b)]);
        let pairs = matches(
            r#"["10.0.0.0/8", "192.168.0.0/16"]"#,
            r#"["10.1.1.1", "8.8.8.8"]"#,
        );
        assert_eq!(serde_json::to_string(&pairs.unwrap()).unwrap(), "[[0,0]]");
        let keyed = matches(
            r#"{"a": "10.0.0.0/8", "b": ["192.168.0.0/16", "x"]}"#,
            r#""10.0.0.1""#,
        );
        assert_eq!(
            serde_json::to_string(&keyed.unwrap()).unwrap(),
            r#"[["a","10.0.0.1"]]"#
        );
        assert!(matches(r#""10.0.0.0/8""#, r#""x""#).is_err());
    }
}
