//! The diff tree, facts about addresses that every renderer reads the same way: the
//! natural order of addresses (`web[2]` before `web[10]`) in which the comment lists
//! them, and the module path an address belongs to (instance keys set aside).
//!
//! Contract: [`natural_cmp`] is a total order consistent with equality, for any text
//! (nothing is assumed of an address's shape); [`module_names`] reads any text without
//! panicking. Terraform's own order (its text) is the plan's, not this one.

use std::cmp::Ordering;

use super::ResourceChanges;

/// Compares two addresses as a reviewer reads them: runs of ASCII digits as numbers
/// (wherever they are: `[10]`, `["web10"]`, `module.a2`), everything else byte by byte.
/// Numbers equal in value order by their written length (`1` before `01`), so only equal
/// texts compare equal.
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Addresses in one list share long prefixes: skip the common one, backing up to the
    // start of a run of digits it ends in (so that the run is compared whole); before
    // that both texts are the same tokens.
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while start > 0 && a[start - 1].is_ascii_digit() {
        start -= 1;
    }
    let (mut i, mut j) = (start, start);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.is_ascii_digit() && y.is_ascii_digit() {
            let (end_a, end_b) = (digits_end(a, i), digits_end(b, j));
            let order = compare_numbers(&a[i..end_a], &b[j..end_b]);
            if order != Ordering::Equal {
                return order;
            }
            (i, j) = (end_a, end_b);
        } else if x != y {
            return x.cmp(&y);
        } else {
            (i, j) = (i + 1, j + 1);
        }
    }
    // One is a prefix of the other (in the order above): the shorter rest first, then
    // any difference in leading zeros decides.
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn digits_end(text: &[u8], start: usize) -> usize {
    text[start..]
        .iter()
        .position(|c| !c.is_ascii_digit())
        .map_or(text.len(), |n| start + n)
}

/// Two runs of digits by value (any length: no parsing), then the shorter writing first.
fn compare_numbers(a: &[u8], b: &[u8]) -> Ordering {
    let significant = |n: &[u8]| {
        let zeros = n.iter().take_while(|c| **c == b'0').count();
        n.len() - zeros
    };
    let (sa, sb) = (significant(a), significant(b));
    sa.cmp(&sb)
        .then_with(|| a[a.len() - sa..].cmp(&b[b.len() - sb..]))
        .then_with(|| a.len().cmp(&b.len()))
}

/// Each change's position in the natural order of `list`'s addresses (changes at the same
/// address, such as deposed objects, keep their plan order): `ranks[i]` sorts change `i`.
pub(crate) fn natural_ranks(list: &dyn ResourceChanges) -> Vec<u32> {
    let n = list.summaries().len();
    natural_ranks_of(n, |i| list.address(i))
}

/// [`natural_ranks`] of `n` addresses given by `address`.
pub(crate) fn natural_ranks_of<'a>(n: usize, address: impl Fn(usize) -> &'a str) -> Vec<u32> {
    // Each address is read once and turned into a key whose bytes compare as
    // [`natural_cmp`] compares the addresses, so the sort compares plain bytes; the keys
    // share one buffer. Equal addresses keep their plan order by the index, so the
    // unstable sort (no scratch copy) orders as a stable one.
    let mut buffer = Vec::new();
    let mut ends = Vec::with_capacity(n);
    for i in 0..n {
        push_natural_key(address(i), &mut buffer);
        ends.push(buffer.len());
    }
    let key = |i: usize| &buffer[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|x, y| key(*x).cmp(key(*y)).then(x.cmp(y)));
    let mut ranks = vec![0u32; n];
    for (rank, i) in order.into_iter().enumerate() {
        ranks[i] = u32::try_from(rank).unwrap_or(u32::MAX);
    }
    ranks
}

/// Appends the natural sort key of `address` to `out`: other bytes as they are, and each
/// run of digits as a byte that sorts where digits do, the count of its significant
/// digits, those digits and the count of its leading zeros (so a key compares as
/// [`natural_cmp`] compares: by value, then the shorter writing first).
fn push_natural_key(address: &str, out: &mut Vec<u8>) {
    let text = address.as_bytes();
    let mut i = 0;
    while i < text.len() {
        if !text[i].is_ascii_digit() {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let end = digits_end(text, i);
        let zeros = text[i..end].iter().take_while(|c| **c == b'0').count();
        let significant = &text[i + zeros..end];
        out.push(b'0');
        out.extend_from_slice(
            &u32::try_from(significant.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        out.extend_from_slice(significant);
        out.extend_from_slice(&u32::try_from(zeros).unwrap_or(u32::MAX).to_be_bytes());
        i = end;
    }
}

/// The module calls an address is in, instance keys set aside:
/// `module.a["x"].module.b[0].aws_instance.web` → `["a", "b"]`; none for the root module.
/// Keys are skipped by bracket matching, so dots or brackets inside quoted keys do not
/// confuse it.
pub(crate) fn module_names(address: &str) -> Vec<&str> {
    module_path(address).0
}

/// The module calls an address is in (as [`module_names`]) and the rest of it, the
/// object in the last module: `module.a[0].check.up` → (`["a"]`, `check.up`).
pub(crate) fn module_path(address: &str) -> (Vec<&str>, &str) {
    let mut names = Vec::new();
    let mut rest = address;
    while let Some(after) = rest.strip_prefix("module.") {
        let end = after.find(['.', '[']).unwrap_or(after.len());
        names.push(&after[..end]);
        rest = &after[end..];
        if rest.starts_with('[') {
            rest = skip_key(rest);
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    (names, rest)
}

/// The instance keys in an address, each module call's then the resource's, as written
/// inside their brackets with a string's quotes taken off (escapes kept as written):
/// `module.a["x"].aws_instance.web[0]` → `["x", "0"]`. Reads any text without panicking.
pub(crate) fn instance_keys(address: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    let mut rest = address;
    while let Some(at) = rest.find('[') {
        let after = skip_key(&rest[at..]);
        let end = rest.len() - after.len();
        if !rest[..end].ends_with(']') {
            // A bracket never closed holds no key.
            break;
        }
        let inner = rest.get(at + 1..end - 1).unwrap_or("");
        let unquoted = inner
            .strip_prefix('"')
            .and_then(|k| k.strip_suffix('"'))
            .unwrap_or(inner);
        keys.push(unquoted);
        rest = after;
    }
    keys
}

/// Skips one `[...]` instance key (a number or a quoted string with escapes).
fn skip_key(text: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ']' if !in_string => return &text[i + 1..],
            _ => {}
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_keys_are_read_per_step() {
        let keys = instance_keys(r#"module.a["x.]"].module.b[2].aws_instance.web["k\"1"]"#);
        assert_eq!(keys, ["x.]", "2", r#"k\"1"#]);
        assert!(instance_keys("aws_instance.web").is_empty());
        assert!(instance_keys("a[\"open").is_empty());
    }

    fn key(address: &str) -> Vec<u8> {
        let mut out = Vec::new();
        push_natural_key(address, &mut out);
        out
    }

    /// The sort keys order every pair as `natural_cmp` does.
    #[test]
    fn keys_compare_as_the_addresses_do() {
        let words = [
            "",
            "0",
            "00",
            "1",
            "01",
            "001",
            "9",
            "10",
            "010",
            "100",
            "a",
            "a0",
            "a00",
            "a1",
            "a01",
            "a10",
            "a9b",
            "a10a",
            "web[2]",
            "web[10]",
            "web[\"n10\"]",
            "web[\"n9\"]",
            "x/",
            "x:",
            "x.",
            "x0.",
            "x[",
            "x]",
            "\u{e9}9",
            "\u{e9}10",
            "99999999999999999999",
            "100000000000000000000",
            "0099",
            "99a",
            "99/",
            "99:",
        ];
        for a in words {
            for b in words {
                assert_eq!(key(a).cmp(&key(b)), natural_cmp(a, b), "{a:?} vs {b:?}");
            }
        }
        let list = ["x[10]", "x[9]", "x[1]", "x[100]", "x[0]", "x[9]"];
        assert_eq!(
            natural_ranks_of(list.len(), |i| list[i]),
            [4, 2, 1, 5, 0, 3]
        );
    }

    fn sorted(list: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| natural_cmp(a, b));
        v
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(natural_cmp("web[2]", "web[10]"), Ordering::Less);
        assert_eq!(
            natural_cmp("module.a[2].x", "module.a[10].x"),
            Ordering::Less
        );
        assert_eq!(
            natural_cmp(r#"web["node10"]"#, r#"web["node9"]"#),
            Ordering::Greater
        );
        assert_eq!(natural_cmp("a2b", "a10a"), Ordering::Less);
        // A shared prefix ending inside a number: the number is still compared whole.
        assert_eq!(natural_cmp("x[12]", "x[100]"), Ordering::Less);
        assert_eq!(natural_cmp("web10", "web1a"), Ordering::Greater);
        assert_eq!(
            sorted(&["x[10]", "x[9]", "x[1]", "x[100]", "x[0]"]),
            ["x[0]", "x[1]", "x[9]", "x[10]", "x[100]"]
        );
    }

    #[test]
    fn module_paths_and_keys_sort_as_reviewers_expect() {
        let list = [
            "module.app[10].aws_instance.web",
            "module.app[2].aws_instance.web",
            "aws_instance.web[11]",
            r#"aws_instance.by_name["b"]"#,
            "aws_instance.web[3]",
            r#"aws_instance.by_name["a"]"#,
        ];
        assert_eq!(
            sorted(&list),
            [
                r#"aws_instance.by_name["a"]"#,
                r#"aws_instance.by_name["b"]"#,
                "aws_instance.web[3]",
                "aws_instance.web[11]",
                "module.app[2].aws_instance.web",
                "module.app[10].aws_instance.web",
            ]
        );
    }

    #[test]
    fn only_equal_texts_compare_equal() {
        assert_eq!(natural_cmp("x[01]", "x[1]"), Ordering::Greater);
        assert_eq!(natural_cmp("x[1]", "x[01]"), Ordering::Less);
        assert_eq!(natural_cmp("x[1]", "x[1]"), Ordering::Equal);
        assert_eq!(natural_cmp("", ""), Ordering::Equal);
        assert_eq!(natural_cmp("", "a"), Ordering::Less);
        assert_eq!(natural_cmp("a", "a0"), Ordering::Less);
    }

    #[test]
    fn huge_numbers_and_odd_text_do_not_panic() {
        let huge = format!("x[{}]", "9".repeat(400));
        assert_eq!(natural_cmp("x[5]", &huge), Ordering::Less);
        let odd = [
            "", "[", "]", "0", "00", "é1", "1é", "\u{0}9", "😀10", "😀9", "[\"\\\"]",
        ];
        for a in odd {
            for b in odd {
                // Antisymmetric and total.
                assert_eq!(
                    natural_cmp(a, b),
                    natural_cmp(b, a).reverse(),
                    "{a:?} {b:?}"
                );
                assert_eq!(natural_cmp(a, b) == Ordering::Equal, a == b);
            }
        }
        assert_eq!(natural_cmp("😀9", "😀10"), Ordering::Less);
    }

    #[test]
    fn the_order_is_transitive() {
        let words = [
            "a", "a0", "a00", "a1", "a01", "a10", "a!", "a.", "a.1", "a-1", "a[2]", "a[10]", "b",
            "1", "01", "10", "!", "~", "a1b", "a1a", "a10b", "",
        ];
        for x in words {
            for y in words {
                for z in words {
                    if natural_cmp(x, y).is_le() && natural_cmp(y, z).is_le() {
                        assert!(natural_cmp(x, z).is_le(), "{x:?} {y:?} {z:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn ranks_keep_plan_order_for_equal_addresses() {
        let addresses = ["b[10]", "a", "b[2]", "a", "b[2]"];
        assert_eq!(natural_ranks_of(5, |i| addresses[i]), [4, 0, 2, 1, 3]);
    }

    #[test]
    fn module_names_skip_instance_keys() {
        assert_eq!(module_names("module.a"), ["a"]);
        assert_eq!(module_names(r#"module.a["x.y]"].module.b[0]"#), ["a", "b"]);
        assert_eq!(module_names("aws_instance.x").len(), 0);
        assert_eq!(module_names("module.a[\"unclosed"), ["a"]);
        assert_eq!(module_names("module."), [""]);
    }
}
