//! Mathematical functions: SQRT, POW / POWER, EXP, LN, LOG (one or two
//! arguments), LOG2, LOG10, SIN, COS, TAN, COT, ASIN, ACOS, ATAN (one or
//! two), ATAN2, DEGREES, RADIANS (typed DOUBLE), SIGN, CRC32 (integers)
//! and CONV (text).
//!
//! A DOUBLE result is a `Value::Double`. Out of a function's domain (SQRT
//! of a negative, LN of 0, ASIN(2)) the result is NULL, as MySQL's; a
//! result that is not finite is 1690 (DOUBLE value is out of range).

use quire_engine::row::float::normalize;
use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::expr::{as_string, to_f64, to_i128};

/// The functions of this module, with the argument counts MySQL accepts.
pub const FUNCS: &[(&str, usize, usize)] = &[
    ("sqrt", 1, 1),
    ("pow", 2, 2),
    ("power", 2, 2),
    ("exp", 1, 1),
    ("ln", 1, 1),
    ("log", 1, 2),
    ("log2", 1, 1),
    ("log10", 1, 1),
    ("sin", 1, 1),
    ("cos", 1, 1),
    ("tan", 1, 1),
    ("cot", 1, 1),
    ("asin", 1, 1),
    ("acos", 1, 1),
    ("atan", 1, 2),
    ("atan2", 2, 2),
    ("degrees", 1, 1),
    ("radians", 1, 1),
    ("sign", 1, 1),
    ("crc32", 1, 1),
    ("conv", 3, 3),
];

/// The functions typed DOUBLE.
pub fn is_double(name: &str) -> bool {
    !matches!(name, "sign" | "crc32" | "conv")
}

/// A double result; NULL outside the domain (NaN), 1690 when infinite.
fn double(name: &str, f: f64) -> Result<Value> {
    if f.is_nan() {
        return Ok(Value::Null);
    }
    if f.is_infinite() {
        return Err(SqlError::new(1690, "22003", format!("DOUBLE value is out of range in '{name}'")));
    }
    Ok(Value::Double(normalize(f)))
}

/// CRC-32 (IEEE 802.3, as zlib's and MySQL's).
fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// CONV(n, from, to): n read in base |from| (a negative base reads it
/// signed), written in base |to| (negative: signed), as MySQL's; NULL for
/// a base outside 2..36.
fn conv(n: &Value, from: i128, to: i128) -> Value {
    let (fb, tb) = (from.unsigned_abs(), to.unsigned_abs());
    if !(2..=36).contains(&fb) || !(2..=36).contains(&tb) {
        return Value::Null;
    }
    let text = as_string(n);
    let text = text.trim();
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(36).filter(|&d| u128::from(d) < fb) else { break };
        v = v.saturating_mul(fb as u64).saturating_add(u64::from(d));
    }
    // A negative number read unsigned wraps, as MySQL's 64-bit arithmetic.
    let (neg_out, mag) = if neg {
        if to < 0 {
            (true, v)
        } else {
            (false, v.wrapping_neg())
        }
    } else {
        (false, v)
    };
    let (neg_out, mag) =
        if to < 0 && !neg && (mag as i64) < 0 { (true, (mag as i64).unsigned_abs()) } else { (neg_out, mag) };
    let mut out = Vec::new();
    let mut m = mag;
    loop {
        let d = (m % tb as u64) as u32;
        out.push(std::char::from_digit(d, 36).unwrap_or('0').to_ascii_uppercase());
        m /= tb as u64;
        if m == 0 {
            break;
        }
    }
    if neg_out {
        out.push('-');
    }
    Value::Str(out.into_iter().rev().collect())
}

/// Calls function `name` of [`FUNCS`] (its argument count checked).
pub fn call(name: &str, args: &[Value]) -> Result<Value> {
    if name == "conv" {
        let (Some(from), Some(to)) = (to_i128(&args[1]), to_i128(&args[2])) else { return Ok(Value::Null) };
        if args[0].is_null() {
            return Ok(Value::Null);
        }
        return Ok(conv(&args[0], from, to));
    }
    if name == "crc32" {
        if args[0].is_null() {
            return Ok(Value::Null);
        }
        return Ok(Value::Int(i64::from(crc32(as_string(&args[0]).as_bytes()))));
    }
    let mut xs = Vec::with_capacity(args.len());
    for a in args {
        match to_f64(a) {
            Some(x) => xs.push(x),
            None => return Ok(Value::Null),
        }
    }
    let x = xs[0];
    if name == "sign" {
        return Ok(Value::Int(if x > 0.0 {
            1
        } else if x < 0.0 {
            -1
        } else {
            0
        }));
    }
    let positive = |f: f64, r: f64| if f > 0.0 { r } else { f64::NAN };
    let f = match name {
        "sqrt" => x.sqrt(),
        "pow" | "power" => x.powf(xs[1]),
        "exp" => x.exp(),
        "ln" => positive(x, x.ln()),
        "log" if xs.len() == 2 => {
            // LOG(b, x): NULL for a base <= 0 or 1, or x <= 0.
            let (b, y) = (x, xs[1]);
            if b <= 0.0 || b == 1.0 || y <= 0.0 {
                f64::NAN
            } else {
                y.ln() / b.ln()
            }
        }
        "log" => positive(x, x.ln()),
        "log2" => positive(x, x.ln() / std::f64::consts::LN_2),
        "log10" => positive(x, x.log10()),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "cot" => {
            let t = x.tan();
            if t == 0.0 {
                return Err(SqlError::new(1690, "22003", format!("DOUBLE value is out of range in 'cot({x})'")));
            }
            1.0 / t
        }
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" if xs.len() == 2 => x.atan2(xs[1]),
        "atan" => x.atan(),
        "atan2" => x.atan2(xs[1]),
        "degrees" => x.to_degrees(),
        "radians" => x.to_radians(),
        _ => return Err(SqlError::internal(format!("{name} is not a math function"))),
    };
    double(name, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_and_conv_match_mysql() {
        assert_eq!(crc32(b"hello"), 907_060_870);
        assert_eq!(crc32(b""), 0);
        assert_eq!(conv(&Value::Str("ff".into()), 16, 10), Value::Str("255".into()));
        assert_eq!(conv(&Value::Int(255), 10, 2), Value::Str("11111111".into()));
        assert_eq!(conv(&Value::Str("-17".into()), 10, -16), Value::Str("-11".into()));
    }

    #[test]
    fn doubles_are_doubles_and_leave_the_domain_as_null() {
        assert_eq!(call("sqrt", &[Value::Int(2)]).unwrap(), Value::Double(std::f64::consts::SQRT_2));
        assert_eq!(call("pow", &[Value::Int(10), Value::Int(50)]).unwrap(), Value::Double(1e50));
        assert_eq!(call("sqrt", &[Value::Int(-1)]).unwrap(), Value::Null);
        assert_eq!(call("log", &[Value::Int(1), Value::Int(10)]).unwrap(), Value::Null);
        assert_eq!(call("pow", &[Value::Int(10), Value::Int(400)]).unwrap_err().code, 1690);
    }
}
