//! How JSON values compare: MySQL 8.0's rules ("Comparison and Ordering
//! of JSON Values" in its manual).
//!
//! Values of different kinds order by kind, lowest first: NULL, numbers
//! (INTEGER, UNSIGNED INTEGER, DOUBLE and DECIMAL compare with each other
//! by value), STRING, OBJECT, ARRAY, BOOLEAN, DATE, TIME, DATETIME.
//! Strings compare by their UTF-8 bytes; booleans false < true; arrays
//! element by element, a prefix first; two objects are equal when they
//! have the same keys with equal values (MySQL leaves the order of
//! unequal objects unspecified but deterministic: here by member count,
//! then member by member, key then value).
//!
//! [`sort_key`] gives bytes whose `memcmp` order is that order, for ORDER
//! BY; numbers in it are their double's order bits, so two integers
//! above 2^53 that round to one double sort as equals (the comparison
//! itself is exact).

use std::cmp::Ordering;

use super::Json;
use crate::row::{float, Decimal};

/// The rank of a value's kind (module note).
fn rank(j: &Json) -> u8 {
    match j {
        Json::Null => 0,
        Json::Int(_) | Json::UInt(_) | Json::Double(_) | Json::Decimal(_) => 1,
        Json::Str(_) => 2,
        Json::Object(_) => 3,
        Json::Array(_) => 4,
        Json::Bool(_) => 5,
        Json::Date(_) => 6,
        Json::Time(_) => 7,
        Json::DateTime(_) => 8,
    }
}

/// An exact number as a decimal, when it is not a double.
fn exact(j: &Json) -> Option<Decimal> {
    match j {
        Json::Int(i) => Some(Decimal::from_i64(*i)),
        Json::UInt(u) => Some(Decimal::new(*u as i128, 0)),
        Json::Decimal(d) => Some(*d),
        _ => None,
    }
}

fn numbers(a: &Json, b: &Json) -> Ordering {
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

/// MySQL's order of two JSON values.
pub fn compare(a: &Json, b: &Json) -> Ordering {
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Json::Str(x), Json::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Json::Bool(x), Json::Bool(y)) => x.cmp(y),
        (Json::Array(x), Json::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                match compare(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            x.len().cmp(&y.len())
        }
        (Json::Object(x), Json::Object(y)) => x.len().cmp(&y.len()).then_with(|| {
            for ((kp, vp), (kq, vq)) in x.iter().zip(y.iter()) {
                let o = super::key_order(kp, kq).then_with(|| compare(vp, vq));
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        }),
        (Json::Date(x), Json::Date(y)) => x.cmp(y),
        (Json::DateTime(x), Json::DateTime(y)) => x.cmp(y),
        (Json::Time(x), Json::Time(y)) => x.cmp(y),
        (Json::Null, Json::Null) => Ordering::Equal,
        _ => numbers(a, b),
    }
}

/// Appends a key whose bytes order as [`compare`] orders values (with
/// the rounding of large integers the module note names).
pub fn sort_key(j: &Json, out: &mut Vec<u8>) {
    out.push(rank(j));
    match j {
        Json::Null => {}
        Json::Bool(b) => out.push(*b as u8),
        Json::Int(_) | Json::UInt(_) | Json::Double(_) | Json::Decimal(_) => {
            out.extend_from_slice(&float::order_bits(float::normalize(j.as_f64().unwrap_or(0.0))).to_be_bytes())
        }
        Json::Str(s) => escaped(s.as_bytes(), out),
        Json::Array(a) => {
            for v in a {
                out.push(1);
                sort_key(v, out);
            }
            out.push(0);
        }
        Json::Object(o) => {
            out.extend_from_slice(&(o.len() as u64).to_be_bytes());
            for (k, v) in o.iter() {
                out.extend_from_slice(&(k.len() as u64).to_be_bytes());
                escaped(k.as_bytes(), out);
                sort_key(v, out);
            }
        }
        Json::Date(d) => out.extend_from_slice(&d.packed().to_be_bytes()),
        Json::DateTime(dt) => out.extend_from_slice(&((dt.packed() as u64) ^ (1 << 63)).to_be_bytes()),
        Json::Time(us) => out.extend_from_slice(&((*us as u64) ^ (1 << 63)).to_be_bytes()),
    }
}

/// Bytes made self-delimiting without changing their order: 0x00 becomes
/// 0x00 0xFF and the end is 0x00 0x00.
fn escaped(b: &[u8], out: &mut Vec<u8>) {
    for &x in b {
        out.push(x);
        if x == 0 {
            out.push(0xff);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

#[cfg(test)]
mod tests {
    use super::super::text::parse;
    use super::*;

    #[test]
    fn values_order_as_mysql_orders_them() {
        // Ascending, each pair strictly (MySQL 8.0's manual: kinds rank
        // NULL < numbers < STRING < OBJECT < ARRAY < BOOLEAN).
        let ordered = [
            "null",
            "-1",
            "0",
            "1.5",
            "2",
            "18446744073709551615",
            "1e30",
            r#""""#,
            r#""a""#,
            r#""a\u0000""#,
            r#""ab""#,
            r#""b""#,
            "{}",
            r#"{"a": 1}"#,
            r#"{"a": 2}"#,
            r#"{"b": 0}"#,
            r#"{"a": 1, "b": 1}"#,
            "[]",
            "[1]",
            "[1, 2]",
            "[1, 3]",
            "[2]",
            "false",
            "true",
        ];
        let vals: Vec<Json> = ordered.iter().map(|t| parse(t).unwrap()).collect();
        for (i, a) in vals.iter().enumerate() {
            for (j, b) in vals.iter().enumerate() {
                assert_eq!(compare(a, b), i.cmp(&j), "{} vs {}", ordered[i], ordered[j]);
                let (mut ka, mut kb) = (Vec::new(), Vec::new());
                sort_key(a, &mut ka);
                sort_key(b, &mut kb);
                assert_eq!(ka.cmp(&kb), i.cmp(&j), "sort keys of {} vs {}", ordered[i], ordered[j]);
            }
        }
    }

    #[test]
    fn numbers_of_different_kinds_compare_by_value() {
        let one = parse("1").unwrap();
        assert_eq!(compare(&one, &parse("1.0").unwrap()), Ordering::Equal);
        assert_eq!(compare(&one, &Json::Decimal(Decimal::parse("1.00").unwrap())), Ordering::Equal);
        assert_eq!(compare(&parse("[1, 2]").unwrap(), &parse("[1.0, 2e0]").unwrap()), Ordering::Equal);
        // Exact beyond a double's precision.
        assert_eq!(compare(&Json::Int(i64::MAX), &Json::Int(i64::MAX - 1)), Ordering::Greater);
    }
}
