//! Policy stage, OPA's `sprintf`: Go's `fmt.Sprintf` over the Rego values OPA hands it,
//! so that widths, precision, flags and Go's error forms (`%!s(MISSING)`,
//! `%!(EXTRA int64=2)`, `%!z(int64=1)`) come out as under conftest.
//!
//! Contract: each argument is what OPA makes of it: an integer that fits is an `int64`,
//! a larger one a `*big.Int`, another number a `float64`, a string a `string`, and any
//! other value the `string` OPA prints for it ([`super::print`]); the format is then read
//! as Go reads it. Never fails: a bad format is written into the result, as in Go.

use regorus::Value;

use super::gofloat::{float, float_sharp};
use super::print::{escape, go_quote, number_text, opa_string, printable};

/// One operand, as Go sees it.
#[derive(Debug, Clone)]
pub(super) enum Arg {
    Int(i64),
    /// An integer beyond `int64`, kept as regorus's number.
    Big(Value),
    Float(f64),
    Str(String),
}

impl Arg {
    pub(super) fn of(value: &Value) -> Arg {
        match value {
            Value::Number(n) if n.is_integer() => match n.as_i64() {
                Some(i) => Arg::Int(i),
                None => Arg::Big(value.clone()),
            },
            Value::Number(n) => match n.as_f64() {
                Some(f) => Arg::Float(f),
                None => Arg::Str(number_text(value)),
            },
            Value::String(s) => Arg::Str(s.to_string()),
            other => Arg::Str(opa_string(other)),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Arg::Int(_) => "int64",
            Arg::Big(_) => "*big.Int",
            Arg::Float(_) => "float64",
            Arg::Str(_) => "string",
        }
    }
}

/// The flags, width and precision of one verb.
#[derive(Debug, Default, Clone)]
struct Spec {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    /// `%#v` and `%+v`, which Go keeps apart from `#` and `+`.
    sharp_v: bool,
    plus_v: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

/// `format` applied to `args` as Go's `fmt.Sprintf` applies it.
pub(super) fn sprintf(format: &str, args: &[Arg]) -> String {
    let chars: Vec<char> = format.chars().collect();
    let end = chars.len();
    let mut out = String::with_capacity(format.len() + 16);
    let mut arg_num = 0;
    let mut reordered = false;
    let mut i = 0;
    while i < end {
        let start = i;
        while i < end && chars[i] != '%' {
            i += 1;
        }
        out.extend(&chars[start..i]);
        if i >= end {
            break;
        }
        i += 1;
        let mut spec = Spec::default();
        let mut good_arg_num = true;
        while i < end {
            match chars[i] {
                '#' => spec.sharp = true,
                '0' => spec.zero = true,
                '+' => spec.plus = true,
                '-' => spec.minus = true,
                ' ' => spec.space = true,
                _ => break,
            }
            i += 1;
        }
        let mut index = |arg_num: &mut usize, i: &mut usize, good: &mut bool| {
            let (found, moved) = arg_index(&chars, *i, args.len());
            if moved > 0 {
                reordered = true;
                match found {
                    Some(n) => *arg_num = n,
                    None => *good = false,
                }
            }
            *i += moved;
            found.is_some()
        };
        let mut after_index = index(&mut arg_num, &mut i, &mut good_arg_num);
        if i < end && chars[i] == '*' {
            i += 1;
            let (width, ok) = int_from_arg(args, &mut arg_num);
            if !ok {
                out.push_str("%!(BADWIDTH)");
            }
            if let Some(w) = width {
                spec.width = Some(w.unsigned_abs() as usize);
                spec.minus |= w < 0;
            }
            after_index = false;
        } else {
            let (width, next) = parse_number(&chars, i, end);
            i = next;
            spec.width = width;
            if after_index && width.is_some() {
                good_arg_num = false;
            }
        }
        if i + 1 < end && chars[i] == '.' {
            i += 1;
            if after_index {
                good_arg_num = false;
            }
            after_index = index(&mut arg_num, &mut i, &mut good_arg_num);
            if i < end && chars[i] == '*' {
                i += 1;
                let (prec, ok) = int_from_arg(args, &mut arg_num);
                spec.prec = prec.filter(|p| *p >= 0).map(|p| p as usize);
                if !ok {
                    out.push_str("%!(BADPREC)");
                }
                after_index = false;
            } else {
                let (prec, next) = parse_number(&chars, i, end);
                i = next;
                spec.prec = Some(prec.unwrap_or(0));
            }
        }
        if !after_index {
            index(&mut arg_num, &mut i, &mut good_arg_num);
        }
        if i >= end {
            out.push_str("%!(NOVERB)");
            break;
        }
        let verb = chars[i];
        i += 1;
        match verb {
            '%' => out.push('%'),
            _ if !good_arg_num => out.push_str(&format!("%!{verb}(BADINDEX)")),
            _ if arg_num >= args.len() => out.push_str(&format!("%!{verb}(MISSING)")),
            _ => {
                if verb == 'v' {
                    spec.sharp_v = std::mem::take(&mut spec.sharp);
                    spec.plus_v = std::mem::take(&mut spec.plus);
                }
                print_arg(&mut out, &spec, &args[arg_num], verb);
                arg_num += 1;
            }
        }
    }
    if !reordered && arg_num < args.len() {
        out.push_str("%!(EXTRA ");
        for (n, arg) in args[arg_num..].iter().enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            out.push_str(arg.type_name());
            out.push('=');
            print_arg(&mut out, &Spec::default(), arg, 'v');
        }
        out.push(')');
    }
    out
}

/// An explicit argument index `[n]` at `i`: the index (0-based) when valid, and how many
/// characters it took (0 when there is none).
fn arg_index(chars: &[char], i: usize, count: usize) -> (Option<usize>, usize) {
    if chars.get(i) != Some(&'[') {
        return (None, 0);
    }
    if chars.len() - i < 3 {
        return (None, 1);
    }
    let Some(close) = chars[i + 1..].iter().position(|c| *c == ']') else {
        return (None, 1);
    };
    let close = i + 1 + close;
    match parse_number(chars, i + 1, close) {
        (Some(n), next) if next == close && (1..=count).contains(&n) => {
            (Some(n - 1), close + 1 - i)
        }
        _ => (None, close + 1 - i),
    }
}

/// Decimal digits from `start` (before `end`): the number, if any, and where they stop.
fn parse_number(chars: &[char], start: usize, end: usize) -> (Option<usize>, usize) {
    let mut n: usize = 0;
    let mut found = false;
    let mut i = start;
    while i < end && chars[i].is_ascii_digit() {
        if n > 1_000_000 {
            return (None, end);
        }
        n = n * 10 + (chars[i] as usize - '0' as usize);
        found = true;
        i += 1;
    }
    (found.then_some(n), i)
}

/// A `*` width or precision from the arguments: an integer of at most a million.
fn int_from_arg(args: &[Arg], arg_num: &mut usize) -> (Option<i64>, bool) {
    let Some(arg) = args.get(*arg_num) else {
        return (None, false);
    };
    *arg_num += 1;
    match arg {
        Arg::Int(n) if n.abs() <= 1_000_000 => (Some(*n), true),
        _ => (None, false),
    }
}

fn print_arg(out: &mut String, spec: &Spec, arg: &Arg, verb: char) {
    if verb == 'T' {
        pad(out, spec, arg.type_name(), true);
        return;
    }
    if verb == 'p' {
        return bad_verb(out, spec, arg, verb);
    }
    match arg {
        Arg::Int(n) => integer(out, spec, *n, verb, arg),
        Arg::Big(value) => big(out, spec, value, verb),
        Arg::Float(f) => match verb {
            'v' => {
                let prec = spec.prec.map_or(-1, |p| p as i32);
                pad_number(out, spec, float(*f, 'g', prec))
            }
            'b' | 'g' | 'G' | 'x' | 'X' | 'f' | 'F' | 'e' | 'E' => {
                let default = if "fFeE".contains(verb) { 6 } else { -1 };
                let prec = spec.prec.map_or(default, |p| p as i32);
                let mut text = float(*f, verb, prec);
                if spec.sharp && verb != 'b' {
                    text = float_sharp(&text, verb, prec);
                }
                pad_number(out, spec, text)
            }
            _ => bad_verb(out, spec, arg, verb),
        },
        Arg::Str(s) => string(out, spec, s, verb, arg),
    }
}

/// `%!z(int64=1)`: a verb the operand's type has not, the operand printed with `%v`.
fn bad_verb(out: &mut String, spec: &Spec, arg: &Arg, verb: char) {
    out.push_str(&format!("%!{verb}({}=", arg.type_name()));
    print_arg(out, spec, arg, 'v');
    out.push(')');
}

fn integer(out: &mut String, spec: &Spec, n: i64, verb: char, arg: &Arg) {
    let digits = match verb {
        'v' | 'd' => n.unsigned_abs().to_string(),
        'b' => format!("{:b}", n.unsigned_abs()),
        'o' | 'O' => format!("{:o}", n.unsigned_abs()),
        'x' => format!("{:x}", n.unsigned_abs()),
        'X' => format!("{:X}", n.unsigned_abs()),
        'c' => return pad(out, spec, &char_of(n).to_string(), true),
        'q' => return pad(out, spec, &quote_rune(char_of(n), spec.plus), true),
        'U' => return unicode(out, spec, n),
        _ => return bad_verb(out, spec, arg, verb),
    };
    integer_digits(out, spec, n < 0, &digits, verb);
}

/// Go's integer layout: precision or zero padding as leading zeros, then the `#` prefix,
/// `0o` for `%O`, the sign, and the width in spaces.
fn integer_digits(out: &mut String, spec: &Spec, negative: bool, digits: &str, verb: char) {
    let mut prec = 0;
    if let Some(p) = spec.prec {
        prec = p;
        if p == 0 && digits == "0" {
            return padding(out, spec.width.unwrap_or(0), ' ');
        }
    } else if let (true, false, Some(w)) = (spec.zero, spec.minus, spec.width) {
        prec = w;
        if negative || spec.plus || spec.space {
            prec = prec.saturating_sub(1);
        }
    }
    let mut text = "0".repeat(prec.saturating_sub(digits.len()));
    text.push_str(digits);
    if spec.sharp {
        match verb {
            'b' => text.insert_str(0, "0b"),
            'o' if !text.starts_with('0') => text.insert(0, '0'),
            'x' => text.insert_str(0, "0x"),
            'X' => text.insert_str(0, "0X"),
            _ => {}
        }
    }
    if verb == 'O' {
        text.insert_str(0, "0o");
    }
    if negative {
        text.insert(0, '-');
    } else if spec.plus {
        text.insert(0, '+');
    } else if spec.space {
        text.insert(0, ' ');
    }
    pad(out, spec, &text, false);
}

/// `%!f(big.Int=…)` and the verbs `*big.Int` formats itself, as its `Format` does.
fn big(out: &mut String, spec: &Spec, value: &Value, verb: char) {
    let Ok(n) = value.as_number() else { return };
    let digits = match verb {
        'b' => n.format_bin(),
        'o' | 'O' => n.format_octal(),
        'd' | 's' | 'v' => n.format_decimal(),
        'x' => n.format_hex(),
        'X' => n.format_big_hex(),
        _ => {
            out.push_str(&format!("%!{verb}(big.Int={})", n.format_decimal()));
            return;
        }
    };
    let negative = digits.starts_with('-');
    let digits = digits.trim_start_matches('-');
    let sign = match () {
        _ if negative => "-",
        _ if spec.plus || spec.plus_v => "+",
        _ if spec.space => " ",
        _ => "",
    };
    let prefix = match verb {
        'O' => "0o",
        'b' if spec.sharp || spec.sharp_v => "0b",
        'o' if spec.sharp || spec.sharp_v => "0",
        'x' if spec.sharp || spec.sharp_v => "0x",
        'X' if spec.sharp || spec.sharp_v => "0X",
        _ => "",
    };
    let mut zeros = 0;
    if let Some(p) = spec.prec {
        if digits == "0" && p == 0 {
            return;
        }
        zeros = p.saturating_sub(digits.len());
    }
    let length = sign.len() + prefix.len() + zeros + digits.len();
    let (mut left, mut right) = (0, 0);
    if let Some(w) = spec.width.filter(|w| *w > length) {
        match () {
            _ if spec.minus => right = w - length,
            _ if spec.zero && spec.prec.is_none() => zeros = w - length,
            _ => left = w - length,
        }
    }
    padding(out, left, ' ');
    out.push_str(sign);
    out.push_str(prefix);
    padding(out, zeros, '0');
    out.push_str(digits);
    padding(out, right, ' ');
}

fn char_of(n: i64) -> char {
    u32::try_from(n)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{fffd}')
}

/// Go's `strconv.QuoteRune` (`QuoteRuneToASCII` with `ascii`).
fn quote_rune(c: char, ascii: bool) -> String {
    let mut out = String::from('\'');
    match c {
        '\'' => out.push_str("\\'"),
        '\\' => out.push_str("\\\\"),
        ' '..='~' => out.push(c),
        _ => escape(c, ascii, &mut out),
    }
    out.push('\'');
    out
}

/// `%U`: `U+0041`, and with `#` the character too when printable.
fn unicode(out: &mut String, spec: &Spec, n: i64) {
    let digits = spec.prec.filter(|p| *p > 4).unwrap_or(4);
    let mut text = format!("U+{:0digits$X}", n as u64);
    if spec.sharp {
        if let Some(c) = u32::try_from(n).ok().and_then(char::from_u32) {
            if matches!(c, ' '..='~') || (!c.is_ascii() && printable(c)) {
                text.push_str(&format!(" '{c}'"));
            }
        }
    }
    pad(out, spec, &text, false);
}

fn string(out: &mut String, spec: &Spec, s: &str, verb: char, arg: &Arg) {
    let truncated = match spec.prec {
        Some(p) => s.char_indices().nth(p).map_or(s, |(at, _)| &s[..at]),
        None => s,
    };
    match verb {
        'v' if spec.sharp_v => pad(out, spec, &go_quote(truncated, false), true),
        'v' | 's' => pad(out, spec, truncated, true),
        'q' => {
            let backquote = spec.sharp
                && !truncated.contains('`')
                && !truncated.contains('\u{feff}')
                && !truncated.chars().any(|c| c.is_control() && c != '\t');
            let quoted = match backquote {
                true => format!("`{truncated}`"),
                false => go_quote(truncated, spec.plus),
            };
            pad(out, spec, &quoted, true);
        }
        'x' | 'X' => hex_string(out, spec, s, verb == 'X'),
        _ => bad_verb(out, spec, arg, verb),
    }
}

/// `%x` of a string: its bytes in hexadecimal (`% x` spaced, `%#x` with `0x`).
fn hex_string(out: &mut String, spec: &Spec, s: &str, upper: bool) {
    let bytes = s.as_bytes();
    let length = spec.prec.map_or(bytes.len(), |p| p.min(bytes.len()));
    if length == 0 {
        return pad(out, spec, "", true);
    }
    let mut text = String::new();
    let prefix = if upper { "0X" } else { "0x" };
    if spec.sharp {
        text.push_str(prefix);
    }
    for (i, b) in bytes[..length].iter().enumerate() {
        if spec.space && i > 0 {
            text.push(' ');
            if spec.sharp {
                text.push_str(prefix);
            }
        }
        match upper {
            true => text.push_str(&format!("{b:02X}")),
            false => text.push_str(&format!("{b:02x}")),
        }
    }
    pad(out, spec, &text, true);
}

/// A formatted float: the sign goes before zero padding, `+` or ` ` when asked for.
fn pad_number(out: &mut String, spec: &Spec, text: String) {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, text.trim_start_matches('+').to_string()),
    };
    let sign = match () {
        _ if negative => "-",
        _ if spec.plus => "+",
        _ if spec.space => " ",
        _ => "",
    };
    if unsigned.starts_with(['I', 'N']) {
        // An infinity is always signed; NaN (never negative) only with `+` or ` `.
        let sign = if unsigned.starts_with('I') && sign.is_empty() {
            "+"
        } else {
            sign
        };
        let spec = Spec {
            zero: false,
            ..spec.clone()
        };
        return pad(out, &spec, &format!("{sign}{unsigned}"), false);
    }
    let length = sign.len() + unsigned.len();
    if let (false, false, Some(w)) = (sign.is_empty(), spec.minus, spec.width) {
        if spec.zero && w > length {
            out.push_str(sign);
            padding(out, w - length, '0');
            out.push_str(&unsigned);
            return;
        }
    }
    pad(out, spec, &format!("{sign}{unsigned}"), true);
}

/// `text` padded to the width (in characters): spaces, or zeros on the left with `0`
/// when `zeros` allows them.
fn pad(out: &mut String, spec: &Spec, text: &str, zeros: bool) {
    let fill = spec.width.unwrap_or(0).saturating_sub(text.chars().count());
    let byte = if zeros && spec.zero && !spec.minus {
        '0'
    } else {
        ' '
    };
    if !spec.minus {
        padding(out, fill, byte);
    }
    out.push_str(text);
    if spec.minus {
        padding(out, fill, byte);
    }
}

fn padding(out: &mut String, n: usize, c: char) {
    out.extend(std::iter::repeat_n(c, n));
}
