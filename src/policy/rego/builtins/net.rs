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
        let mask = mask(ip.bits(), prefix);
        let first = match ip {
            Ip::V4(v) => Ip::V4((u128::from(v) & mask) as u32),
            Ip::V6(v) => Ip::V6(v & mask),
        };
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
        match self.first {
            Ip::V4(v) => Ip::V4(v | host as u32),
            Ip::V6(v) => Ip::V6(v | host),
        }
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
pub(super) fn cidr_contains(args: Vec<Value>) -> Result<Value> {
    let name = "net.cidr_contains";
    let network = cidr(name, &args, 0)?;
    let other = string_arg(name, &args, 1)?;
    if let Some(ip) = Ip::parse(other) {
        return Ok(Value::from(network.contains(ip)));
    }
    let Some(inner) = Cidr::parse(other) else {
        bail!("{name}: operand 2 is not a valid IP address or CIDR");
    };
    Ok(Value::from(
        network.contains(inner.first) && network.contains(inner.last()),
    ))
}

/// `net.cidr_intersects(a, b)`: either holds the other's first address.
pub(super) fn cidr_intersects(args: Vec<Value>) -> Result<Value> {
    let name = "net.cidr_intersects";
    let a = cidr(name, &args, 0)?;
    let b = cidr(name, &args, 1)?;
    Ok(Value::from(a.contains(b.first) || b.contains(a.first)))
}

/// `net.cidr_is_valid(text)`.
pub(super) fn cidr_is_valid(args: Vec<Value>) -> Result<Value> {
    Ok(Value::from(match &args[0] {
        Value::String(s) => Cidr::parse(s).is_some(),
        _ => false,
    }))
}

/// The most addresses `net.cidr_expand` lists: a /16 of IPv4. OPA has no bound, but a
/// larger network would hold the run for minutes.
const MAX_EXPAND: u128 = 1 << 16;

/// `net.cidr_expand(cidr)`: every address of the network, as a set of strings.
pub(super) fn cidr_expand(args: Vec<Value>) -> Result<Value> {
    let name = "net.cidr_expand";
    let network = cidr(name, &args, 0)?;
    let count = network.last().value() - network.first.value() + 1;
    if count > MAX_EXPAND {
        bail!("{name}: the network has {count} addresses, over planmark's limit of {MAX_EXPAND}");
    }
    let mut set = std::collections::BTreeSet::new();
    for offset in 0..count {
        let v = network.first.value() + offset;
        let ip = match network.first {
            Ip::V4(_) => Ip::V4(v as u32),
            Ip::V6(_) => Ip::V6(v),
        };
        set.insert(Value::from(ip.text()));
    }
    Ok(Value::from(set))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contains(a: &str, b: &str) -> bool {
        let v = cidr_contains(vec![Value::from(a), Value::from(b)]).unwrap();
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
        assert!(cidr_contains(vec![Value::from("x"), Value::from("10.0.0.1")]).is_err());
    }
}
