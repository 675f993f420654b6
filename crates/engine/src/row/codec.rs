//! The row format stored as the value of a clustered-index entry
//! (docs/FORMAT.md, "Rows").
//!
//! ```text
//! u8    format version: 1, or 2 in a table with instant columns
//! [u16] version 2 only: the field count f (version 1: the core columns'
//!       count, see [`super::instant`]; all columns in a table without
//!       instant columns)
//! [u8]  null bitmap, ceil(f / 8) bytes, bit i set = field i is NULL
//! then each non-NULL field in column order:
//!   integer     little-endian, the type's width (1, 2, 3, 4, 8)
//!   DECIMAL     coefficient at the column's scale: i64 (p <= 18) or i128, little-endian
//!   FLOAT       IEEE single, 4 bytes little-endian
//!   DOUBLE      IEEE double, 8 bytes little-endian
//!   DATE        u32 little-endian packed date
//!   DATETIME    i64 little-endian packed datetime
//!   TIMESTAMP   as DATETIME, in UTC (converted from and to the session's
//!               time zone here: see [`super::tz`])
//!   TIME        i64 little-endian signed microseconds
//!   strings     varint byte length, then UTF-8 bytes
//!   BINARY / VARBINARY / BLOB
//!               varint byte length, then the bytes (BINARY's 0x00 padding
//!               included)
//!   JSON        varint byte length, then the document's compact form
//!               ([`super::json::binary`])
//!   ENUM        the 1-based member index, little-endian, 1 byte (< 256
//!               members) or 2
//!   SET         the member bitmap, little-endian, 1, 2, 3, 4 or 8 bytes
//!               (`Members::width`)
//!   YEAR        1 byte: 0 for 0000, else year - 1900
//!   BIT(n)      the value, little-endian, ceil(n/8) bytes
//! ```
//!
//! Fields a row lacks (it was written before an instant ADD COLUMN) read
//! as their columns' instant defaults. Rows are always written whole: a
//! table with instant columns writes version 2 with every field, any
//! other table version 1 as it always did.

use super::{ColumnType, DateTime, Decimal, TableSchema, Value};
use crate::row::Date;

pub const ROW_FORMAT_VERSION: u8 = 1;
/// The format of a row that names its field count (tables with instant
/// columns only).
pub const ROW_FORMAT_VERSION_COUNTED: u8 = 2;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A little-endian unsigned number of up to 8 bytes.
fn le_uint(b: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(buf)
}

/// Encodes a row whose values are already coerced to the schema's types.
pub fn encode_row(schema: &TableSchema, row: &[Value], out: &mut Vec<u8>) {
    debug_assert_eq!(row.len(), schema.columns.len());
    if super::instant::has_instant(schema) {
        out.push(ROW_FORMAT_VERSION_COUNTED);
        out.extend_from_slice(&(schema.columns.len() as u16).to_le_bytes());
    } else {
        out.push(ROW_FORMAT_VERSION);
    }
    let nb = schema.columns.len().div_ceil(8);
    let bitmap_at = out.len();
    out.resize(bitmap_at + nb, 0);
    for (i, (col, v)) in schema.columns.iter().zip(row).enumerate() {
        if v.is_null() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
        } else {
            encode_field(col.ty, v, out);
        }
    }
}

/// Appends the field of a non-NULL value of type `ty` (already coerced to
/// it) as a row stores it (the table above).
#[inline]
pub fn encode_field(ty: ColumnType, v: &Value, out: &mut Vec<u8>) {
    match (ty, v) {
        (_, Value::Null) => debug_assert!(false, "a NULL has no field"),
        (t, Value::Int(x)) if t.is_integer() => out.extend_from_slice(&x.to_le_bytes()[..t.int_width()]),
        (t, Value::UInt(x)) if t.is_integer() => out.extend_from_slice(&x.to_le_bytes()[..t.int_width()]),
        (ColumnType::Decimal { precision, scale, .. }, Value::Decimal(d)) => {
            let coef = d.rescale(scale).map(|d| d.coef).unwrap_or(0);
            if precision <= 18 {
                out.extend_from_slice(&(coef as i64).to_le_bytes());
            } else {
                out.extend_from_slice(&coef.to_le_bytes());
            }
        }
        (ColumnType::Float { .. }, Value::Double(f)) => out.extend_from_slice(&(*f as f32).to_le_bytes()),
        (ColumnType::Double { .. }, Value::Double(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (ColumnType::Date, Value::Date(d)) => out.extend_from_slice(&d.packed().to_le_bytes()),
        (ColumnType::Timestamp { .. }, Value::DateTime(d)) => {
            out.extend_from_slice(&super::tz::timestamp_to_utc(*d).packed().to_le_bytes())
        }
        (_, Value::DateTime(d)) => out.extend_from_slice(&d.packed().to_le_bytes()),
        (_, Value::Time(us)) => out.extend_from_slice(&us.to_le_bytes()),
        (_, Value::Str(s)) => {
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        (_, Value::Bytes(b)) => {
            put_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        (_, Value::Json(j)) => {
            let mut doc = Vec::new();
            super::json::binary::encode(j, &mut doc);
            put_varint(out, doc.len() as u64);
            out.extend_from_slice(&doc);
        }
        (_, Value::Choice(c)) => out.extend_from_slice(&c.n.to_le_bytes()[..c.members.width()]),
        (ColumnType::Year, Value::Int(y)) => out.push(super::year::to_byte(*y)),
        (ColumnType::Bit { bits }, Value::UInt(x)) => {
            out.extend_from_slice(&x.to_le_bytes()[..super::bit::width(bits)])
        }
        (ty, v) => debug_assert!(false, "value {v:?} was not coerced to {ty:?}"),
    }
}

/// Decodes a row; `None` if the bytes are not a valid row of this schema.
pub fn decode_row(schema: &TableSchema, b: &[u8]) -> Option<Vec<Value>> {
    let mut row = Vec::with_capacity(schema.columns.len());
    decode_row_into(schema, b, None, &mut row).then_some(row)
}

/// Decodes a row into `out`, reusing its values' storage (a string
/// column's value is overwritten in place when it already holds a string,
/// so a scan decoding row after row into one buffer allocates nothing once
/// the strings have grown). With `need`, only columns `i` with `need[i]`
/// are decoded; the others are skipped over and read as NULL. `false`
/// (and `out` unspecified) if the bytes are not a valid row of this schema.
pub fn decode_row_into(schema: &TableSchema, b: &[u8], need: Option<&[bool]>, out: &mut Vec<Value>) -> bool {
    decode_into(schema, b, need, out).is_some()
}

fn decode_into(schema: &TableSchema, b: &[u8], need: Option<&[bool]>, out: &mut Vec<Value>) -> Option<()> {
    let n = schema.columns.len();
    // `fields`: how many columns the row holds (invariant 3 of
    // `instant`); `start`: where its null bitmap begins.
    let (fields, start) = match *b.first()? {
        ROW_FORMAT_VERSION if !super::instant::has_instant(schema) => (n, 1),
        ROW_FORMAT_VERSION => (super::instant::core_fields(schema), 1),
        ROW_FORMAT_VERSION_COUNTED => {
            let f = u16::from_le_bytes(b.get(1..3)?.try_into().ok()?) as usize;
            if f > n || f < super::instant::core_fields(schema) {
                return None;
            }
            (f, 3)
        }
        _ => return None,
    };
    out.truncate(n);
    out.resize(n, Value::Null);
    let nb = fields.div_ceil(8);
    let bitmap = b.get(start..start + nb)?;
    let mut pos = start + nb;
    let take = |pos: &mut usize, n: usize| -> Option<&[u8]> {
        let s = b.get(*pos..*pos + n)?;
        *pos += n;
        Some(s)
    };
    for (i, (col, slot)) in schema.columns[..fields].iter().zip(out.iter_mut()).enumerate() {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            *slot = Value::Null;
            continue;
        }
        let wanted = need.is_none_or(|m| m.get(i).copied().unwrap_or(true));
        let v = match col.ty {
            t if t.is_integer() => {
                let w = t.int_width();
                let raw = take(&mut pos, w)?;
                let mut buf = [0u8; 8];
                buf[..w].copy_from_slice(raw);
                let u = u64::from_le_bytes(buf);
                if t.is_unsigned() {
                    Value::UInt(u)
                } else {
                    // Sign-extend from the type's width.
                    let shift = 64 - 8 * w as u32;
                    Value::Int(((u << shift) as i64) >> shift)
                }
            }
            ColumnType::Decimal { precision, scale, .. } => {
                let coef = if precision <= 18 {
                    i64::from_le_bytes(take(&mut pos, 8)?.try_into().ok()?) as i128
                } else {
                    i128::from_le_bytes(take(&mut pos, 16)?.try_into().ok()?)
                };
                Value::Decimal(Decimal::new(coef, scale))
            }
            ColumnType::Float { .. } => {
                Value::Double(f64::from(f32::from_le_bytes(take(&mut pos, 4)?.try_into().ok()?)))
            }
            ColumnType::Double { .. } => Value::Double(f64::from_le_bytes(take(&mut pos, 8)?.try_into().ok()?)),
            ColumnType::Date => Value::Date(Date::from_packed(u32::from_le_bytes(take(&mut pos, 4)?.try_into().ok()?))),
            ColumnType::DateTime { .. } => {
                Value::DateTime(DateTime::from_packed(i64::from_le_bytes(take(&mut pos, 8)?.try_into().ok()?)))
            }
            ColumnType::Timestamp { .. } => Value::DateTime(super::tz::timestamp_from_utc(DateTime::from_packed(
                i64::from_le_bytes(take(&mut pos, 8)?.try_into().ok()?),
            ))),
            ColumnType::Time { .. } => Value::Time(i64::from_le_bytes(take(&mut pos, 8)?.try_into().ok()?)),
            ColumnType::Json => {
                let n = get_varint(b, &mut pos)? as usize;
                let doc = take(&mut pos, n)?;
                if !wanted {
                    *slot = Value::Null;
                    continue;
                }
                Value::Json(Box::new(super::json::binary::decode(doc)?))
            }
            ColumnType::Enum { members } | ColumnType::Set { members } => {
                let n = le_uint(take(&mut pos, members.width())?);
                if !members.holds(n) {
                    return None;
                }
                Value::Choice(super::Choice { n, members })
            }
            ColumnType::Year => Value::Int(super::year::from_byte(take(&mut pos, 1)?[0])),
            ColumnType::Bit { bits } => Value::UInt(le_uint(take(&mut pos, super::bit::width(bits))?)),
            t if t.is_binary() => {
                let n = get_varint(b, &mut pos)? as usize;
                let bytes = take(&mut pos, n)?;
                if !wanted {
                    *slot = Value::Null;
                    continue;
                }
                match slot {
                    Value::Bytes(v) => {
                        v.clear();
                        v.extend_from_slice(bytes);
                    }
                    other => *other = Value::Bytes(bytes.to_vec()),
                }
                continue;
            }
            _ => {
                let n = get_varint(b, &mut pos)? as usize;
                let bytes = take(&mut pos, n)?;
                if !wanted {
                    *slot = Value::Null;
                    continue;
                }
                let text = std::str::from_utf8(bytes).ok()?;
                match slot {
                    Value::Str(s) => {
                        s.clear();
                        s.push_str(text);
                    }
                    other => *other = Value::Str(text.to_owned()),
                }
                continue;
            }
        };
        *slot = if wanted { v } else { Value::Null };
    }
    if fields < n {
        fill_instant(schema, fields, need, out);
    }
    (pos == b.len()).then_some(())
}

/// The fields from `from` on, which the row lacks: their columns'
/// instant defaults (`decode_into` checked that they have them).
#[cold]
fn fill_instant(schema: &TableSchema, from: usize, need: Option<&[bool]>, out: &mut [Value]) {
    for (i, (col, slot)) in schema.columns.iter().zip(out.iter_mut()).enumerate().skip(from) {
        let wanted = need.is_none_or(|m| m.get(i).copied().unwrap_or(true));
        *slot = match (&col.instant_default, wanted) {
            (Some(v), true) => v.clone(),
            _ => Value::Null,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{Column, IndexDef};

    #[test]
    fn rows_round_trip_through_the_codec() {
        let schema = TableSchema {
            columns: vec![
                Column::new("a", ColumnType::TinyInt { unsigned: false }).not_null(),
                Column::new("b", ColumnType::MediumInt { unsigned: false }),
                Column::new("c", ColumnType::BigInt { unsigned: true }),
                Column::new("d", ColumnType::Decimal { precision: 30, scale: 4, unsigned: false }),
                Column::new("e", ColumnType::Varchar { len: 10 }),
                Column::new("f", ColumnType::Text),
                Column::new("g", ColumnType::Date),
                Column::new("h", ColumnType::DateTime { fsp: 6 }),
                Column::new("i", ColumnType::Decimal { precision: 5, scale: 2, unsigned: true }),
                Column::new("j", ColumnType::Float { digits: None, unsigned: false }),
                Column::new("k", ColumnType::Double { digits: Some((10, 3)), unsigned: true }),
                Column::new("l", ColumnType::Time { fsp: 6 }),
                Column::new("l", ColumnType::Binary { len: 3 }),
                Column::new("m", ColumnType::VarBinary { len: 10 }),
                Column::new("n", ColumnType::Blob { max_bytes: 65_535 }),
                Column::new("o", ColumnType::Json),
            ],
            primary_key: vec![0],
            indexes: vec![IndexDef { name: "k".into(), columns: vec![1], unique: false, prefix: vec![] }],
            ..Default::default()
        };
        let row = vec![
            Value::Int(-128),
            Value::Int(-8_000_000),
            Value::UInt(u64::MAX),
            Value::Decimal(Decimal::parse("-123456789012345678901.2345").unwrap()),
            Value::Str("héllo".into()),
            Value::Null,
            Value::Date(Date::new(1999, 12, 31).unwrap()),
            Value::DateTime(DateTime::parse("2001-02-03 04:05:06.789").unwrap()),
            Value::Decimal(Decimal::parse("-1.5").unwrap().rescale(2).unwrap()),
            Value::Double(f64::from(0.1f32)),
            Value::Double(-1234567.125),
            Value::Time(-super::super::time::CLIP_MICROS - 5),
            Value::Bytes(vec![0x00, 0x80, 0xff]),
            Value::Bytes(vec![]),
            Value::Bytes(b"\xff\xfe not UTF-8".to_vec()),
            Value::Json(Box::new(crate::row::json::text::parse(r#"{"a": [1, "x"], "b": null}"#).unwrap())),
        ];
        let mut b = Vec::new();
        encode_row(&schema, &row, &mut b);
        assert_eq!(decode_row(&schema, &b).unwrap(), row);
        assert!(decode_row(&schema, &b[..b.len() - 1]).is_none());
        // Into a reused buffer, and with only some columns.
        let mut out = vec![Value::Str("a much longer string than any column".into()); 2];
        assert!(decode_row_into(&schema, &b, None, &mut out));
        assert_eq!(out, row);
        let need: Vec<bool> = (0..row.len()).map(|i| i % 2 == 0).collect();
        assert!(decode_row_into(&schema, &b, Some(&need), &mut out));
        for (i, v) in out.iter().enumerate() {
            assert_eq!(v, if need[i] { &row[i] } else { &Value::Null }, "column {i}");
        }
        assert!(!decode_row_into(&schema, &b[..b.len() - 1], Some(&need), &mut out));
    }

    #[test]
    fn enum_set_year_and_bit_round_trip_in_their_widths() {
        use crate::row::{Choice, Members};
        let e = Members::intern(false, vec!["a".into(), "b".into()]);
        let big: Vec<String> = (0..300).map(|i| format!("m{i}")).collect();
        let e2 = Members::intern(false, big);
        let s = Members::intern(true, (0..20).map(|i| format!("s{i}")).collect());
        let schema = TableSchema {
            columns: vec![
                Column::new("a", ColumnType::Enum { members: e }),
                Column::new("b", ColumnType::Enum { members: e2 }),
                Column::new("c", ColumnType::Set { members: s }),
                Column::new("d", ColumnType::Year),
                Column::new("e", ColumnType::Year),
                Column::new("f", ColumnType::Bit { bits: 10 }),
                Column::new("g", ColumnType::Bit { bits: 64 }),
            ],
            primary_key: vec![0],
            ..Default::default()
        };
        let row = vec![
            Value::Choice(Choice { n: 2, members: e }),
            Value::Choice(Choice { n: 300, members: e2 }),
            Value::Choice(Choice { n: (1 << 19) | 1, members: s }),
            Value::Int(0),
            Value::Int(2155),
            Value::UInt(1023),
            Value::UInt(u64::MAX),
        ];
        let mut b = Vec::new();
        encode_row(&schema, &row, &mut b);
        // version, bitmap, then 1 + 2 + 3 + 1 + 1 + 2 + 8 bytes.
        assert_eq!(b.len(), 2 + 18);
        assert_eq!(decode_row(&schema, &b).unwrap(), row);
        // An index beyond the list is corruption, not a value.
        let mut bad = b.clone();
        bad[2] = 3;
        assert!(decode_row(&schema, &bad).is_none());
    }
}
