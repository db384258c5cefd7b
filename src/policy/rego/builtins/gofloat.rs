//! Policy stage, a float64 as Go's `strconv.FormatFloat` writes it for `sprintf`'s float
//! verbs (`%e %E %f %F %g %G %b %x %X`, and `%v` as shortest `%g`).
//!
//! Contract: the digits are Rust's, which round as Go's do (correctly, ties to even on
//! the exact binary value); only the layout is Go's: exponents signed and of at least two
//! digits (`1.5e-07`), `%g` choosing `%e` below 1e-4 or from its precision (6 when
//! shortest) up, `+Inf`, `NaN`.

/// The decimal digits of a number (no leading zeros, no trailing zeros) and where the
/// point goes: `digits` 15, `point` 1 is 1.5.
struct Decimal {
    digits: Vec<u8>,
    point: i32,
}

impl Decimal {
    /// Rust's `{:e}` text (`1.5e-7`) of the absolute value, as digits and point.
    fn parse(text: &str) -> Decimal {
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        while digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
        }
        if digits == [b'0'] {
            return Decimal { digits, point: 1 };
        }
        Decimal {
            digits,
            point: exponent + 1,
        }
    }

    /// The shortest digits that read back as `v`.
    fn shortest(v: f64) -> Decimal {
        Decimal::parse(&format!("{:e}", v.abs()))
    }

    /// `v` rounded to `n` significant digits.
    fn significant(v: f64, n: usize) -> Decimal {
        Decimal::parse(&format!("{:.*e}", n.saturating_sub(1), v.abs()))
    }

    fn digit(&self, i: i32) -> char {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.digits.get(i))
            .map_or('0', |d| *d as char)
    }

    /// `d.ddde±XX` with `prec` digits after the point.
    fn exponent_form(&self, prec: usize, e: char) -> String {
        let mut out = String::new();
        out.push(self.digit(0));
        if prec > 0 {
            out.push('.');
            for i in 1..=prec {
                out.push(self.digit(i as i32));
            }
        }
        let exp = if self.digits == [b'0'] {
            0
        } else {
            self.point - 1
        };
        out.push(e);
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
        out
    }

    /// `ddd.ddd` with `prec` digits after the point.
    fn plain_form(&self, prec: usize) -> String {
        let mut out = String::new();
        if self.point > 0 {
            for i in 0..self.point {
                out.push(self.digit(i));
            }
        } else {
            out.push('0');
        }
        if prec > 0 {
            out.push('.');
            for i in 0..prec as i32 {
                out.push(self.digit(self.point + i));
            }
        }
        out
    }
}

/// `v` as Go's `strconv.FormatFloat(v, verb, prec, 64)`; `prec` -1 is the shortest.
pub(super) fn float(v: f64, verb: char, prec: i32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let body = match verb {
        'b' => binary(v),
        'x' | 'X' => hexadecimal(v, prec, verb == 'X'),
        'f' | 'F' if prec >= 0 => format!("{:.*}", prec as usize, v.abs()),
        'f' | 'F' => {
            let d = Decimal::shortest(v);
            let prec = (d.digits.len() as i32 - d.point).max(0) as usize;
            d.plain_form(prec)
        }
        'e' | 'E' => {
            let e = if verb == 'E' { 'E' } else { 'e' };
            match prec {
                p if p >= 0 => Decimal::significant(v, p as usize + 1).exponent_form(p as usize, e),
                _ => {
                    let d = Decimal::shortest(v);
                    d.exponent_form(d.digits.len() - 1, e)
                }
            }
        }
        _ => general(v, prec, if verb == 'G' { 'E' } else { 'e' }),
    };
    format!("{sign}{body}")
}

/// `%g`: `%e` when the exponent is below -4 or at least the precision, else `%f`, with
/// no trailing zeros.
fn general(v: f64, prec: i32, e: char) -> String {
    let shortest = prec < 0;
    let d = match prec {
        p if p < 0 => Decimal::shortest(v),
        0 => Decimal::significant(v, 1),
        p => Decimal::significant(v, p as usize),
    };
    let nd = d.digits.len() as i32;
    let mut prec = if shortest { nd } else { prec.max(1) };
    let mut eprec = prec;
    if eprec > nd && nd >= d.point {
        eprec = nd;
    }
    if shortest {
        eprec = 6;
    }
    let exp = d.point - 1;
    if exp < -4 || exp >= eprec {
        if prec > nd {
            prec = nd;
        }
        return d.exponent_form((prec - 1).max(0) as usize, e);
    }
    if prec > d.point {
        prec = nd;
    }
    d.plain_form((prec - d.point).max(0) as usize)
}

/// `%b`: the mantissa as an integer and a power of two, `4503599627370496p-52`.
fn binary(v: f64) -> String {
    let bits = v.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1 << 52) - 1);
    let exp = if exponent == 0 {
        -1074
    } else {
        mantissa |= 1 << 52;
        exponent - 1075
    };
    format!(
        "{mantissa}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `%x`: `0x1.8p+00`, the mantissa in hexadecimal (rounded to `prec` digits, ties to
/// even) and a power of two of at least two digits.
fn hexadecimal(v: f64, prec: i32, upper: bool) -> String {
    let bits = v.abs().to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1 << 52) - 1);
    let mut exp = if biased == 0 { -1022 } else { biased - 1023 };
    if biased != 0 {
        mantissa |= 1 << 52;
    } else if mantissa != 0 {
        // Subnormal: shift up until the leading bit is in place.
        while mantissa & (1 << 52) == 0 {
            mantissa <<= 1;
            exp -= 1;
        }
    }
    if v == 0.0 {
        exp = 0;
    }
    // 52 bits after the point are 13 hexadecimal digits.
    let mut digits = 13;
    if (0..13).contains(&prec) {
        let shift = (13 - prec) * 4;
        let half = 1u64 << (shift - 1);
        let rest = mantissa & ((1 << shift) - 1);
        mantissa >>= shift;
        if rest > half || (rest == half && mantissa & 1 == 1) {
            mantissa += 1;
        }
        if mantissa >> (prec * 4) >= 2 {
            mantissa >>= 1;
            exp += 1;
        }
        digits = prec;
    }
    let lead = mantissa >> (digits * 4);
    let mut fraction = if digits > 0 {
        format!(
            "{:0width$x}",
            mantissa & ((1 << (digits * 4)) - 1),
            width = digits as usize
        )
    } else {
        String::new()
    };
    if prec < 0 {
        fraction = fraction.trim_end_matches('0').to_string();
    } else if prec > 13 {
        fraction.push_str(&"0".repeat(prec as usize - 13));
    }
    let point = if fraction.is_empty() { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    let text = format!("0x{lead}{point}{fraction}p{sign}{:02}", exp.abs());
    if upper {
        text.to_uppercase()
    } else {
        text
    }
}

/// The `#` flag: a point always, and `%g` keeps its trailing zeros up to the precision.
pub(super) fn float_sharp(text: &str, verb: char, prec: i32) -> String {
    let mut digits: i32 = match verb {
        'v' | 'g' | 'G' | 'x' if prec == -1 => 6,
        'v' | 'g' | 'G' | 'x' => prec,
        _ => 0,
    };
    let (sign, body) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let split = body
        .find(|c: char| {
            c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X')
        })
        .unwrap_or(body.len());
    let (number, tail) = body.split_at(split);
    let mut number = number.to_string();
    let mut seen_nonzero = false;
    for c in number.chars() {
        if c == '.' {
            continue;
        }
        if c != '0' {
            seen_nonzero = true;
        }
        if seen_nonzero {
            digits -= 1;
        }
    }
    if !number.contains('.') {
        if number == "0" {
            digits -= 1;
        }
        number.push('.');
    }
    while digits > 0 {
        number.push('0');
        digits -= 1;
    }
    format!("{sign}{number}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_gos() {
        // Each expectation is what Go's fmt gives (recorded through OPA's sprintf).
        assert_eq!(float(1234.5678, 'e', 6), "1.234568e+03");
        assert_eq!(float(15.5, 'e', 0), "2e+01");
        assert_eq!(float(1.5e-7, 'G', -1), "1.5E-07");
        assert_eq!(float(1000000.5, 'g', -1), "1.0000005e+06");
        assert_eq!(float(123456.5, 'g', -1), "123456.5");
        assert_eq!(float(0.0001, 'g', -1), "0.0001");
        assert_eq!(float(0.00001, 'g', -1), "1e-05");
        assert_eq!(float(1234.5678, 'g', 3), "1.23e+03");
        assert_eq!(float(0.1, 'g', 10), "0.1");
        assert_eq!(float(15.5, 'g', 0), "2e+01");
        assert_eq!(float(0.125, 'f', 2), "0.12");
        assert_eq!(float(1.005, 'f', 2), "1.00");
        assert_eq!(float(1.5, 'x', -1), "0x1.8p+00");
        assert_eq!(float(3.75, 'X', -1), "0X1.EP+01");
        assert_eq!(float(1.99, 'x', 1), "0x1.0p+01");
        assert_eq!(float(2.5, 'b', -1), "5629499534213120p-51");
        assert_eq!(float_sharp(&float(1.5, 'g', -1), 'g', -1), "1.50000");
    }
}
