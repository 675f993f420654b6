//! Approximate numbers: FLOAT (IEEE single) and DOUBLE (IEEE double)
//! values as MySQL prints, stores and orders them.
//!
//! Invariants:
//! 1. A stored or computed double is finite (no NaN, no infinity: MySQL
//!    has none; an operation that would make one is an error or NULL).
//! 2. -0 is stored, keyed and printed as 0 (`normalize`), so that the
//!    byte order of index keys is the numeric order and -0 = 0.
//! 3. A FLOAT column's value is a double that an `f32` holds exactly.

/// `v` with -0 made +0 (invariant 2).
#[inline]
pub fn normalize(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// The memcomparable form of a double: the IEEE bits with the sign bit
/// flipped for positives and all bits flipped for negatives, so that the
/// unsigned order of the result is the numeric order.
#[inline]
pub fn order_bits(v: f64) -> u64 {
    let b = normalize(v).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b ^ (1 << 63)
    }
}

/// The same for a single (4 bytes in a FLOAT column's index key).
#[inline]
pub fn order_bits_f32(v: f32) -> u32 {
    let b = if v == 0.0 { 0.0f32 } else { v }.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b ^ (1 << 31)
    }
}

/// The shortest digits `d1 d2 ... dn` and the decimal exponent `e` with
/// `|v| = 0.d1d2...dn × 10^e` (dtoa's `decpt`), of a finite non-zero `v`,
/// from Rust's shortest round-trip formatting; with `sig`, rounded to at
/// most that many significant digits (trailing zeros dropped).
fn digits(v: f64, sig: Option<usize>) -> (String, i32) {
    let sci = match sig {
        Some(n) => format!("{:.*e}", n.saturating_sub(1), v.abs()),
        None => format!("{:e}", v.abs()),
    };
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut ds: String = mant.chars().filter(char::is_ascii_digit).collect();
    while ds.len() > 1 && ds.ends_with('0') {
        ds.pop();
    }
    (ds, exp + 1)
}

/// Lays out digits as MySQL's `my_gcvt` does for a result of
/// NOT_FIXED_DEC decimals: positional when the decimal point falls within
/// `-14 ..= 15` of the first digit (`100000000000000`, `0.000000000000001`),
/// otherwise `d.ddde±x` without a `+` (`1e15`, `1.5e-16`). Checked against
/// MariaDB 10.11; MySQL 8.0 shares the code.
fn layout(neg: bool, ds: &str, decpt: i32) -> String {
    let mut out = String::with_capacity(ds.len() + 8);
    if neg {
        out.push('-');
    }
    let n = ds.len() as i32;
    if (-14..=15).contains(&decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(ds);
        } else if decpt >= n {
            out.push_str(ds);
            out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        } else {
            out.push_str(&ds[..decpt as usize]);
            out.push('.');
            out.push_str(&ds[decpt as usize..]);
        }
    } else {
        out.push_str(&ds[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&ds[1..]);
        }
        out.push('e');
        out.push_str(&(decpt - 1).to_string());
    }
    out
}

/// A double as MySQL prints it: the shortest digits that read back as the
/// same double (`0.30000000000000004`, `1e20`, `1.5`, `3`).
pub fn format_double(v: f64) -> String {
    if !v.is_finite() {
        // Never stored (invariant 1); printed as MySQL's my_gcvt would.
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if v == 0.0 {
        return "0".into();
    }
    let (ds, decpt) = digits(v, None);
    layout(v < 0.0, &ds, decpt)
}

/// A FLOAT column's value as MariaDB 10.11 and MySQL 8.0 print it: at
/// most 6 significant digits (FLT_DIG), laid out as a double is
/// (`123457000` for 123456789, `0.3`, `3.4e38`).
pub fn format_float(v: f32) -> String {
    if !v.is_finite() {
        return format_double(f64::from(v));
    }
    if v == 0.0 {
        return "0".into();
    }
    let (ds, decpt) = digits(f64::from(v), Some(6));
    layout(v < 0.0, &ds, decpt)
}

/// A double with exactly `scale` fractional digits (a `DOUBLE(M,D)` or
/// `FLOAT(M,D)` column's text: `1.00`), rounding half away from zero on
/// the decimal digits of the value's shortest text.
pub fn format_fixed(v: f64, scale: u8) -> String {
    let v = normalize(v);
    let text = format!("{:.*}", scale as usize, v);
    if text.starts_with('-') && text[1..].bytes().all(|b| b == b'0' || b == b'.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// The number a string starts with, read as MySQL reads a string used
/// as a double (`'2.5e2abc'` is 250, `'abc'` is 0): sign, digits, a
/// fraction, an exponent, found in one pass and parsed once. A number too
/// large for a double is infinite; the caller decides what that means.
pub fn leading_f64(s: &str) -> f64 {
    let b = s.trim_start().as_bytes();
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut end = digits(usize::from(matches!(b.first(), Some(b'+' | b'-'))));
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp_end = digits(end + 1 + sign);
        if exp_end > end + 1 + sign {
            end = exp_end;
        }
    }
    std::str::from_utf8(&b[..end]).ok().and_then(|t| t.parse().ok()).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_mariadb_prints_them() {
        let cases: &[(f64, &str)] = &[
            (1.5, "1.5"),
            (3.0, "3"),
            (-2.0, "-2"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e20, "1e20"),
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (1.5e15, "1.5e15"),
            (-1e15, "-1e15"),
            (999999999999999.9, "999999999999999.9"),
            (1234567890123456.0, "1.234567890123456e15"),
            (1e-15, "0.000000000000001"),
            (1e-16, "1e-16"),
            (1.5e-15, "0.0000000000000015"),
            (1.2345678901234567e-5, "0.000012345678901234568"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (-0.0, "0"),
        ];
        for &(v, text) in cases {
            assert_eq!(format_double(v), text, "{v:e}");
        }
    }

    #[test]
    fn floats_print_with_six_digits() {
        assert_eq!(format_float(123456789.0), "123457000");
        assert_eq!(format_float(0.3), "0.3");
        assert_eq!(format_float(3.4e38), "3.4e38");
        assert_eq!(format_float(f32::MIN_POSITIVE), "1.17549e-38");
        assert_eq!(format_float(1e-45), "1.4013e-45");
        assert_eq!(format_float(16777217.0), "16777200");
        assert_eq!(format_float(1e15), "1e15");
        assert_eq!(format_fixed(1.0049999952316284, 2), "1.00");
        assert_eq!(format_fixed(-0.0001, 2), "0.00");
    }

    #[test]
    fn order_bits_follow_numeric_order_and_zero_has_one_key() {
        let vals = [f64::MIN, -1e300, -1.5, -5e-324, 0.0, 5e-324, 1.0, 1e300, f64::MAX];
        let keys: Vec<u64> = vals.iter().map(|&v| order_bits(v)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(order_bits(-0.0), order_bits(0.0));
        let fk: Vec<u32> = [-3.5f32, -1e-40, 0.0, 2.0].iter().map(|&v| order_bits_f32(v)).collect();
        assert!(fk.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(order_bits_f32(-0.0), order_bits_f32(0.0));
    }

    #[test]
    fn a_string_is_read_as_the_number_it_starts_with() {
        assert_eq!(leading_f64("  2.5e2abc"), 250.0);
        assert_eq!(leading_f64("-3x"), -3.0);
        assert_eq!(leading_f64("1e"), 1.0);
        assert_eq!(leading_f64("abc"), 0.0);
        assert!(leading_f64(&format!("{}x", "9".repeat(400))).is_infinite());
    }
}
