//! JSON_STORAGE_SIZE and JSON_STORAGE_FREE.
//!
//! JSON_STORAGE_SIZE answers the bytes MySQL's binary JSON format
//! (its json_binary.cc) takes for the document, not quire's own compact
//! form (docs/FORMAT.md), so that applications and tests written for
//! MySQL see MySQL's numbers: a type byte; a container is "small" (2-byte
//! counts, sizes and offsets) while it fits 64 KiB, else "large" (4-byte);
//! it has a header (count, size), key entries (offset, 2-byte length),
//! value entries (type and an offset or the value inlined: literals and
//! 16-bit integers, 32-bit ones too in a large container), then keys and
//! values; strings carry a 7-bit varint length; DECIMAL, DATE, DATETIME
//! and TIME are MySQL's "opaque" values (field type, varint length,
//! data). A DECIMAL's precision is its digits here (MySQL keeps the
//! precision of the expression that made it, which may be larger).
//!
//! JSON_STORAGE_FREE is 0: quire writes a changed document whole (MySQL's
//! partial in-place update, which leaves freed space, is not done).

use quire_engine::row::json::Json;
use quire_engine::row::Decimal;

fn varint_len(mut n: usize) -> usize {
    let mut b = 1;
    while n >= 0x80 {
        n >>= 7;
        b += 1;
    }
    b
}

/// Whether a scalar sits in its value entry (no bytes of its own).
fn inlined(j: &Json, large: bool) -> bool {
    match j {
        Json::Null | Json::Bool(_) => true,
        Json::Int(i) => i16::try_from(*i).is_ok() || (large && i32::try_from(*i).is_ok()),
        Json::UInt(u) => *u <= u16::MAX as u64 || (large && *u <= u32::MAX as u64),
        _ => false,
    }
}

/// Bytes of a binary DECIMAL of `precision` digits, `scale` after the point.
fn decimal_bin_size(precision: usize, scale: usize) -> usize {
    const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let intg = precision - scale;
    (intg / 9) * 4 + DIG2BYTES[intg % 9] + (scale / 9) * 4 + DIG2BYTES[scale % 9]
}

fn decimal_size(d: &Decimal) -> usize {
    let scale = d.scale as usize;
    let precision = (d.int_digits() as usize + scale).max(1);
    2 + decimal_bin_size(precision, scale)
}

/// Bytes of a value outside its value entry (0 when inlined).
fn value_size(j: &Json, large_parent: bool) -> usize {
    if inlined(j, large_parent) {
        return 0;
    }
    match j {
        Json::Int(i) if i32::try_from(*i).is_ok() => 4,
        Json::UInt(u) if *u <= u32::MAX as u64 => 4,
        Json::Int(_) | Json::UInt(_) | Json::Double(_) => 8,
        Json::Str(s) => varint_len(s.len()) + s.len(),
        Json::Decimal(d) => {
            let n = decimal_size(d);
            1 + varint_len(n) + n
        }
        Json::Date(_) | Json::DateTime(_) | Json::Time(_) => 1 + 1 + 8,
        Json::Array(_) | Json::Object(_) => container_size(j),
        Json::Null | Json::Bool(_) => 0,
    }
}

/// A container's bytes: small when they fit 64 KiB, else large.
fn container_size(j: &Json) -> usize {
    let small = container_size_as(j, false);
    if small <= u16::MAX as usize {
        small
    } else {
        container_size_as(j, true)
    }
}

fn container_size_as(j: &Json, large: bool) -> usize {
    let (word, key_entry) = if large { (4, 6) } else { (2, 4) };
    let value_entry = 1 + word;
    match j {
        Json::Array(a) => 2 * word + a.len() * value_entry + a.iter().map(|e| value_size(e, large)).sum::<usize>(),
        Json::Object(o) => {
            2 * word
                + o.len() * (key_entry + value_entry)
                + o.iter().map(|(k, v)| k.len() + value_size(v, large)).sum::<usize>()
        }
        _ => 0,
    }
}

/// JSON_STORAGE_SIZE of a document.
pub fn size(j: &Json) -> usize {
    1 + match j {
        Json::Array(_) | Json::Object(_) => container_size(j),
        // A scalar document has no value entry to sit in.
        Json::Null | Json::Bool(_) => 1,
        Json::Int(i) if i16::try_from(*i).is_ok() => 2,
        Json::UInt(u) if *u <= u16::MAX as u64 => 2,
        other => value_size(other, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::row::json::text::parse;

    #[test]
    fn sizes_are_mysqls() {
        // The manual's examples.
        assert_eq!(size(&parse(r#"[100, "sakila", [1, 3, 5], 425.05]"#).unwrap()), 45);
        assert_eq!(size(&parse(r#"{"a": 1000, "b": "wxyz", "c": "[1, 3, 5, 7]"}"#).unwrap()), 47);
        assert_eq!(size(&parse(r#"{"a": 4.55, "b": "wxyz", "c": "[true, false]"}"#).unwrap()), 56);
        assert_eq!(size(&parse(r#"{"a": 10, "b": "wxyz", "c": "[1, 3, 5, 7]"}"#).unwrap()), 47);
        assert_eq!(size(&parse(r#""Hello World!""#).unwrap()), 14);
        assert_eq!(size(&parse("[]").unwrap()), 5);
        assert_eq!(size(&parse("true").unwrap()), 2);
    }
}
