//! The compact form of a JSON document in a row (docs/FORMAT.md, "JSON
//! documents").
//!
//! ```text
//! document  u8 format version (1), then one value
//! value     u8 tag, then its payload:
//!   0 null   1 false   2 true
//!   3 integer            zigzag varint of the i64
//!   4 unsigned integer   varint (only values above i64::MAX)
//!   5 double             8 bytes, IEEE little-endian
//!   6 string             varint byte length, UTF-8
//!   7 array              varint count, the values
//!   8 object             varint count, then per member in key order:
//!                        varint key length, key (UTF-8), value
//!   9 decimal            u8 scale, zigzag varint of the i128 coefficient
//!  10 date               u32 little-endian packed date
//!  11 datetime           i64 little-endian packed datetime
//!  12 time               i64 little-endian signed microseconds
//! ```
//!
//! Varints are LEB128 (7 bits a byte, least significant first). The
//! decoder checks everything the tree's invariants need (UTF-8, keys
//! strictly in MySQL's order, finite doubles, depth at most
//! [`MAX_DEPTH`], no bytes left over) and answers `None` otherwise, so a
//! damaged row is an error, never a panic.

use super::{key_order, Json, Object, MAX_DEPTH};
use crate::row::{Date, DateTime, Decimal};

pub const FORMAT_VERSION: u8 = 1;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INT: u8 = 3;
const UINT: u8 = 4;
const DOUBLE: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;
const DECIMAL: u8 = 9;
const DATE: u8 = 10;
const DATETIME: u8 = 11;
const TIME: u8 = 12;

fn put_varint(out: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i128) -> u128 {
    ((v << 1) ^ (v >> 127)) as u128
}

fn unzigzag(v: u128) -> i128 {
    (v >> 1) as i128 ^ -((v & 1) as i128)
}

/// Appends the document `j` (version byte included).
pub fn encode(j: &Json, out: &mut Vec<u8>) {
    out.push(FORMAT_VERSION);
    put(j, out);
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    put_varint(out, s.len() as u128);
    out.extend_from_slice(s.as_bytes());
}

fn put(j: &Json, out: &mut Vec<u8>) {
    match j {
        Json::Null => out.push(NULL),
        Json::Bool(false) => out.push(FALSE),
        Json::Bool(true) => out.push(TRUE),
        Json::Int(i) => {
            out.push(INT);
            put_varint(out, zigzag(*i as i128));
        }
        Json::UInt(u) => {
            out.push(UINT);
            put_varint(out, *u as u128);
        }
        Json::Double(f) => {
            out.push(DOUBLE);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Json::Str(s) => {
            out.push(STRING);
            put_str(s, out);
        }
        Json::Array(a) => {
            out.push(ARRAY);
            put_varint(out, a.len() as u128);
            for v in a {
                put(v, out);
            }
        }
        Json::Object(o) => {
            out.push(OBJECT);
            put_varint(out, o.len() as u128);
            for (k, v) in o.iter() {
                put_str(k, out);
                put(v, out);
            }
        }
        Json::Decimal(d) => {
            out.push(DECIMAL);
            out.push(d.scale);
            put_varint(out, zigzag(d.coef));
        }
        Json::Date(d) => {
            out.push(DATE);
            out.extend_from_slice(&d.packed().to_le_bytes());
        }
        Json::DateTime(dt) => {
            out.push(DATETIME);
            out.extend_from_slice(&dt.packed().to_le_bytes());
        }
        Json::Time(us) => {
            out.push(TIME);
            out.extend_from_slice(&us.to_le_bytes());
        }
    }
}

/// Decodes a whole document; `None` if the bytes are not one.
pub fn decode(b: &[u8]) -> Option<Json> {
    if *b.first()? != FORMAT_VERSION {
        return None;
    }
    let mut r = Reader { b, pos: 1 };
    let j = r.value(0)?;
    (r.pos == b.len()).then_some(j)
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn varint(&mut self) -> Option<u128> {
        let mut v = 0u128;
        for shift in (0..128).step_by(7) {
            let byte = *self.b.get(self.pos)?;
            self.pos += 1;
            v |= ((byte & 0x7f) as u128) << shift;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    /// A count or length, which cannot exceed the bytes left.
    fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(self.varint()?).ok()?;
        (n <= self.b.len() - self.pos).then_some(n)
    }

    fn string(&mut self) -> Option<String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    fn value(&mut self, level: usize) -> Option<Json> {
        let tag = *self.take(1)?.first()?;
        Some(match tag {
            NULL => Json::Null,
            FALSE => Json::Bool(false),
            TRUE => Json::Bool(true),
            INT => Json::Int(i64::try_from(unzigzag(self.varint()?)).ok()?),
            UINT => Json::UInt(u64::try_from(self.varint()?).ok()?),
            DOUBLE => Json::Double(Some(f64::from_le_bytes(self.array()?)).filter(|f| f.is_finite())?),
            STRING => Json::Str(self.string()?),
            ARRAY | OBJECT if level >= MAX_DEPTH => return None,
            ARRAY => {
                let n = self.len()?;
                let mut a = Vec::with_capacity(n);
                for _ in 0..n {
                    a.push(self.value(level + 1)?);
                }
                Json::Array(a)
            }
            OBJECT => {
                let n = self.len()?;
                let mut members: Vec<(String, Json)> = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = self.string()?;
                    if members.last().is_some_and(|(prev, _)| key_order(prev, &k) != std::cmp::Ordering::Less) {
                        return None;
                    }
                    let v = self.value(level + 1)?;
                    members.push((k, v));
                }
                Json::Object(Object::from_sorted(members))
            }
            DECIMAL => {
                let scale = *self.take(1)?.first()?;
                if scale > crate::row::decimal::MAX_SCALE {
                    return None;
                }
                Json::Decimal(Decimal::new(unzigzag(self.varint()?), scale))
            }
            DATE => Json::Date(Date::from_packed(u32::from_le_bytes(self.array()?))),
            DATETIME => Json::DateTime(DateTime::from_packed(i64::from_le_bytes(self.array()?))),
            TIME => Json::Time(i64::from_le_bytes(self.array()?)),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::text::parse;
    use super::*;

    fn round_trip(j: &Json) {
        let mut b = Vec::new();
        encode(j, &mut b);
        assert_eq!(decode(&b).as_ref(), Some(j));
        for cut in 0..b.len() {
            assert!(decode(&b[..cut]).is_none(), "a document cut at {cut} of {} decoded", b.len());
        }
    }

    #[test]
    fn documents_round_trip_and_cut_ones_do_not_decode() {
        for text in [
            "null",
            "true",
            "[false, -1, 0, 9223372036854775807, -9223372036854775808, 18446744073709551615]",
            r#"{"a": 1.5, "bb": {"c": [[], {}, "é\n"]}, "": null}"#,
            "1e300",
        ] {
            round_trip(&parse(text).unwrap());
        }
        round_trip(&Json::Array(vec![
            Json::Decimal(Decimal::parse("-12345678901234567890.123").unwrap()),
            Json::Date(Date::new(2024, 2, 29).unwrap()),
            Json::DateTime(DateTime::parse("2024-02-29 12:34:56.789").unwrap()),
            Json::Time(-3_600_000_001),
        ]));
    }

    #[test]
    fn damaged_documents_are_refused() {
        assert!(decode(&[]).is_none());
        assert!(decode(&[2, NULL]).is_none());
        assert!(decode(&[FORMAT_VERSION, 99]).is_none());
        assert!(decode(&[FORMAT_VERSION, NULL, NULL]).is_none());
        // Keys out of MySQL's order.
        let bad = [FORMAT_VERSION, OBJECT, 2, 2, b'b', b'b', NULL, 1, b'a', NULL];
        assert!(decode(&bad).is_none());
        // A huge count with few bytes.
        assert!(decode(&[FORMAT_VERSION, ARRAY, 0xff, 0xff, 0xff, 0x7f]).is_none());
        // Too deep.
        let mut deep = vec![FORMAT_VERSION];
        deep.extend(std::iter::repeat_n([ARRAY, 1], MAX_DEPTH + 1).flatten());
        deep.push(NULL);
        assert!(decode(&deep).is_none());
    }
}
