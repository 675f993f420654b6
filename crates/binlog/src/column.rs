//! Columns as the binary log describes and encodes them: the type byte
//! and metadata of a TABLE_MAP event, and a value's bytes in a row image,
//! exactly as MySQL 8.0 writes them (`Field_*::do_save_field_metadata`,
//! `Field_*::pack`).
//!
//! | quire column        | type (code)        | metadata                      | value                                  |
//! |---------------------|--------------------|-------------------------------|----------------------------------------|
//! | TINYINT..BIGINT     | TINY 1, SHORT 2, INT24 9, LONG 3, LONGLONG 8 | none | little-endian, 1/2/3/4/8 bytes    |
//! | DECIMAL(p,s)        | NEWDECIMAL 246     | p, s                          | MySQL's binary decimal (`decimal2bin`) |
//! | FLOAT / DOUBLE      | FLOAT 4 / DOUBLE 5 | 4 / 8                         | IEEE little-endian                     |
//! | CHAR(n), BINARY(n)  | STRING 254         | real type 254 ^ high len bits, len & 0xff | 1 or 2-byte length + bytes |
//! | VARCHAR, VARBINARY  | VARCHAR 15         | max bytes, u16                | 1 or 2-byte length + bytes             |
//! | TEXT, BLOBs         | BLOB 252           | length bytes (1..4)           | length + bytes                         |
//! | JSON                | BLOB 252           | 4                             | 4-byte length + the JSON text          |
//! | DATE                | DATE 10            | none                          | 3 bytes: d + m*32 + y*512              |
//! | DATETIME(fsp)       | DATETIME2 18       | fsp                           | 5 bytes big-endian + fraction          |
//! | TIMESTAMP(fsp)      | TIMESTAMP2 17      | fsp                           | 4 bytes big-endian seconds + fraction  |
//! | TIME(fsp)           | TIME2 19           | fsp                           | 3 bytes big-endian + fraction          |
//! | ENUM / SET          | STRING 254         | real type 247/248, pack length | 1..8 bytes little-endian              |
//! | YEAR                | YEAR 13            | none                          | 1 byte, year - 1900 (0 for 0)          |
//! | BIT(n)              | BIT 16             | n % 8, n / 8                  | (n+7)/8 bytes big-endian               |
//!
//! JSON follows MariaDB, not MySQL: MariaDB's JSON is LONGTEXT and its
//! tools cannot read MySQL's binary JSON (BINLOG.md 3.2), so the column is
//! described and written as a LONGBLOB of text with collation utf8mb4_bin.
//! Character lengths are in bytes: the character count times the
//! character set's longest character (4 for utf8mb4, 1 for latin1).

use quire_engine::row::{collation::latin1, Collation, Column, ColumnType, Decimal, Value};

pub mod mysql_type {
    pub const TINY: u8 = 1;
    pub const SHORT: u8 = 2;
    pub const LONG: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const LONGLONG: u8 = 8;
    pub const INT24: u8 = 9;
    pub const DATE: u8 = 10;
    pub const YEAR: u8 = 13;
    pub const VARCHAR: u8 = 15;
    pub const BIT: u8 = 16;
    pub const TIMESTAMP2: u8 = 17;
    pub const DATETIME2: u8 = 18;
    pub const TIME2: u8 = 19;
    pub const NEWDECIMAL: u8 = 246;
    pub const ENUM: u8 = 247;
    pub const SET: u8 = 248;
    pub const BLOB: u8 = 252;
    pub const STRING: u8 = 254;
}
use mysql_type as t;

/// The collation id of binary strings.
pub const BINARY_COLLATION: u16 = 63;

/// The longest character of a collation's character set, in bytes.
fn mbmaxlen(c: Collation) -> u32 {
    if c.charset() == "latin1" {
        1
    } else {
        4
    }
}

/// The column's type code in a TABLE_MAP event.
pub fn type_code(c: &Column) -> u8 {
    match c.ty {
        ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => t::TINY,
        ColumnType::SmallInt { .. } => t::SHORT,
        ColumnType::MediumInt { .. } => t::INT24,
        ColumnType::Int { .. } => t::LONG,
        ColumnType::BigInt { .. } => t::LONGLONG,
        ColumnType::Decimal { .. } => t::NEWDECIMAL,
        ColumnType::Float { .. } => t::FLOAT,
        ColumnType::Double { .. } => t::DOUBLE,
        ColumnType::Char { .. } | ColumnType::Binary { .. } | ColumnType::Enum { .. } | ColumnType::Set { .. } => {
            t::STRING
        }
        ColumnType::Varchar { .. } | ColumnType::VarBinary { .. } => t::VARCHAR,
        ColumnType::Text | ColumnType::Blob { .. } | ColumnType::Json => t::BLOB,
        ColumnType::Date => t::DATE,
        ColumnType::DateTime { .. } => t::DATETIME2,
        ColumnType::Timestamp { .. } => t::TIMESTAMP2,
        ColumnType::Time { .. } => t::TIME2,
        ColumnType::Year => t::YEAR,
        ColumnType::Bit { .. } => t::BIT,
    }
}

/// The length in bytes of a CHAR / BINARY / VARCHAR / VARBINARY column.
fn byte_len(c: &Column) -> u32 {
    match c.ty {
        ColumnType::Char { len } | ColumnType::Varchar { len } => len * mbmaxlen(c.collation),
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => len,
        _ => 0,
    }
}

/// The bytes of a BLOB-family column's length prefix.
fn blob_len_bytes(c: &Column) -> u8 {
    match c.ty {
        ColumnType::Text => 2,
        ColumnType::Json => 4,
        ColumnType::Blob { max_bytes } => match max_bytes {
            0..=255 => 1,
            256..=65_535 => 2,
            65_536..=16_777_215 => 3,
            _ => 4,
        },
        _ => 0,
    }
}

/// ENUM / SET: the bytes of the stored number.
fn choice_len(c: &Column) -> u8 {
    match c.ty {
        ColumnType::Enum { members } => {
            if members.len() < 256 {
                1
            } else {
                2
            }
        }
        ColumnType::Set { members } => match members.len().div_ceil(8) {
            n @ 1..=4 => n as u8,
            _ => 8,
        },
        _ => 0,
    }
}

/// Appends the column's TABLE_MAP metadata.
pub fn put_metadata(c: &Column, out: &mut Vec<u8>) {
    match c.ty {
        ColumnType::Decimal { precision, scale, .. } => out.extend_from_slice(&[precision, scale]),
        ColumnType::Float { .. } => out.push(4),
        ColumnType::Double { .. } => out.push(8),
        ColumnType::Char { .. } | ColumnType::Binary { .. } => {
            let len = byte_len(c);
            out.push(t::STRING ^ ((len & 0x300) >> 4) as u8);
            out.push((len & 0xff) as u8);
        }
        ColumnType::Enum { .. } => out.extend_from_slice(&[t::ENUM, choice_len(c)]),
        ColumnType::Set { .. } => out.extend_from_slice(&[t::SET, choice_len(c)]),
        ColumnType::Varchar { .. } | ColumnType::VarBinary { .. } => {
            out.extend_from_slice(&(byte_len(c).min(65_535) as u16).to_le_bytes())
        }
        ColumnType::Text | ColumnType::Blob { .. } | ColumnType::Json => out.push(blob_len_bytes(c)),
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } | ColumnType::Time { fsp } => out.push(fsp),
        ColumnType::Bit { bits } => out.extend_from_slice(&[bits % 8, bits / 8]),
        _ => {}
    }
}

/// Whether the column is numeric (it has a bit in the SIGNEDNESS field).
pub fn is_numeric(c: &Column) -> bool {
    matches!(type_code(c), t::TINY | t::SHORT | t::INT24 | t::LONG | t::LONGLONG | t::NEWDECIMAL | t::FLOAT | t::DOUBLE)
}

/// Whether the column's SIGNEDNESS bit is set: an UNSIGNED integer,
/// DECIMAL, FLOAT or DOUBLE.
pub fn is_unsigned(c: &Column) -> bool {
    c.ty.is_unsigned()
        || matches!(
            c.ty,
            ColumnType::Decimal { unsigned: true, .. }
                | ColumnType::Float { unsigned: true, .. }
                | ColumnType::Double { unsigned: true, .. }
        )
}

/// The collation id of a character column (CHAR, VARCHAR, TEXT, BLOBs,
/// BINARY, JSON), `None` for the others (ENUM and SET included, which
/// MySQL lists apart).
pub fn character_collation(c: &Column) -> Option<u16> {
    match c.ty {
        ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text => Some(c.collation.id() as u16),
        ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. } => Some(BINARY_COLLATION),
        ColumnType::Json => Some(Collation::Utf8mb4Bin.id() as u16),
        _ => None,
    }
}

/// Text in the column's character set.
fn text_bytes(c: &Column, s: &str) -> Vec<u8> {
    if c.collation.charset() == "latin1" {
        s.chars().map(|ch| latin1::encode_char(ch).unwrap_or(b'?')).collect()
    } else {
        s.as_bytes().to_vec()
    }
}

fn put_len(out: &mut Vec<u8>, len: usize, bytes: u8) {
    out.extend_from_slice(&(len as u64).to_le_bytes()[..bytes as usize]);
}

fn int_value(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        Value::Double(f) => *f as i64,
        Value::Choice(c) => c.n as i64,
        _ => 0,
    }
}

/// Appends the value `v` (not NULL) of column `c` to a row image.
pub fn put_value(c: &Column, v: &Value, out: &mut Vec<u8>) {
    match c.ty {
        ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => out.push(int_value(v) as u8),
        ColumnType::SmallInt { .. } => out.extend_from_slice(&(int_value(v) as u16).to_le_bytes()),
        ColumnType::MediumInt { .. } => out.extend_from_slice(&(int_value(v) as u32).to_le_bytes()[..3]),
        ColumnType::Int { .. } => out.extend_from_slice(&(int_value(v) as u32).to_le_bytes()),
        ColumnType::BigInt { .. } => out.extend_from_slice(&int_value(v).to_le_bytes()),
        ColumnType::Decimal { precision, scale, .. } => {
            let d = match v {
                Value::Decimal(d) => *d,
                other => Decimal::from_i64(int_value(other)),
            };
            put_decimal(d, precision, scale, out)
        }
        ColumnType::Float { .. } => {
            let f = if let Value::Double(f) = v { *f } else { 0.0 };
            out.extend_from_slice(&(f as f32).to_le_bytes())
        }
        ColumnType::Double { .. } => {
            let f = if let Value::Double(f) = v { *f } else { 0.0 };
            out.extend_from_slice(&f.to_le_bytes())
        }
        ColumnType::Char { .. } | ColumnType::Binary { .. } => {
            let b = string_bytes(c, v);
            put_len(out, b.len(), if byte_len(c) > 255 { 2 } else { 1 });
            out.extend_from_slice(&b);
        }
        ColumnType::Varchar { .. } | ColumnType::VarBinary { .. } => {
            let b = string_bytes(c, v);
            put_len(out, b.len(), if byte_len(c) > 255 { 2 } else { 1 });
            out.extend_from_slice(&b);
        }
        ColumnType::Text | ColumnType::Blob { .. } | ColumnType::Json => {
            let b = string_bytes(c, v);
            put_len(out, b.len(), blob_len_bytes(c));
            out.extend_from_slice(&b);
        }
        ColumnType::Enum { .. } | ColumnType::Set { .. } => {
            let n = int_value(v) as u64;
            out.extend_from_slice(&n.to_le_bytes()[..choice_len(c) as usize]);
        }
        ColumnType::Date => {
            let d = match v {
                Value::Date(d) => *d,
                Value::DateTime(dt) => dt.date,
                _ => quire_engine::row::Date { year: 0, month: 0, day: 0 },
            };
            let n = u32::from(d.day) + u32::from(d.month) * 32 + u32::from(d.year) * 512;
            out.extend_from_slice(&n.to_le_bytes()[..3]);
        }
        ColumnType::DateTime { fsp } => {
            if let Value::DateTime(dt) = v {
                let ymd = ((i64::from(dt.date.year) * 13 + i64::from(dt.date.month)) << 5) | i64::from(dt.date.day);
                let hms = (i64::from(dt.hour) << 12) | (i64::from(dt.minute) << 6) | i64::from(dt.second);
                let int = (ymd << 17) | hms;
                out.extend_from_slice(&((int + 0x80_0000_0000) as u64).to_be_bytes()[3..]);
                put_frac(i64::from(dt.micros), fsp, out);
            }
        }
        ColumnType::Timestamp { fsp } => {
            if let Value::DateTime(dt) = v {
                let zero = dt.date.year == 0 && dt.date.month == 0 && dt.date.day == 0;
                let secs = if zero { 0 } else { quire_engine::row::tz::unix_seconds(dt) };
                out.extend_from_slice(&(secs as u32).to_be_bytes());
                put_frac(if zero { 0 } else { i64::from(dt.micros) }, fsp, out);
            }
        }
        ColumnType::Time { fsp } => {
            let us = if let Value::Time(us) = v { *us } else { 0 };
            put_time2(us, fsp, out)
        }
        ColumnType::Year => {
            let y = int_value(v);
            out.push(if y == 0 { 0 } else { (y - 1900) as u8 });
        }
        ColumnType::Bit { bits } => {
            let n = int_value(v) as u64;
            let len = usize::from(bits).div_ceil(8);
            out.extend_from_slice(&n.to_be_bytes()[8 - len..]);
        }
    }
}

fn string_bytes(c: &Column, v: &Value) -> Vec<u8> {
    match v {
        Value::Str(s) if !c.ty.is_binary() => text_bytes(c, s),
        Value::Bytes(b) => b.clone(),
        Value::Str(s) => s.as_bytes().to_vec(),
        other => other.to_string().into_bytes(),
    }
}

/// The fraction of a DATETIME2 / TIMESTAMP2 (non-negative).
fn put_frac(micros: i64, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        1 | 2 => out.push((micros / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        5 | 6 => out.extend_from_slice(&(micros as u32).to_be_bytes()[1..]),
        _ => {}
    }
}

/// TIME2 (`my_time_packed_to_binary`): the packed time
/// `±((h<<12 | m<<6 | s) << 24 + µs)`, an integer part offset by 0x800000
/// in 3 bytes and the fraction as MySQL truncates it.
fn put_time2(us: i64, fsp: u8, out: &mut Vec<u8>) {
    let neg = us < 0;
    let a = us.unsigned_abs() as i64;
    let secs = a / 1_000_000;
    let frac = a % 1_000_000;
    let hms = ((secs / 3600) << 12) | (((secs / 60) % 60) << 6) | (secs % 60);
    let packed = (hms << 24) + frac;
    let nr = if neg { -packed } else { packed };
    let int = nr >> 24;
    let fr = nr % (1 << 24);
    match fsp {
        5 | 6 => out.extend_from_slice(&((nr + 0x8000_0000_0000) as u64).to_be_bytes()[2..]),
        _ => {
            out.extend_from_slice(&((int + 0x80_0000) as u32).to_be_bytes()[1..]);
            match fsp {
                1 | 2 => out.push((fr / 10_000) as i8 as u8),
                3 | 4 => out.extend_from_slice(&((fr / 100) as i16).to_be_bytes()),
                _ => {}
            }
        }
    }
}

const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// MySQL's binary DECIMAL(precision, scale) (`decimal2bin`): the integer
/// digits in groups of nine from the point (4 bytes each, the leftover
/// leading digits in fewer), then the fraction likewise, all big-endian;
/// a negative value has every byte inverted; then the top bit flipped.
pub fn put_decimal(d: Decimal, precision: u8, scale: u8, out: &mut Vec<u8>) {
    let d = d.rescale(scale).unwrap_or(d);
    let neg = d.coef < 0;
    let a = d.coef.unsigned_abs();
    let p10 = 10u128.pow(u32::from(scale));
    let (mut ip, fp) = (a / p10, a % p10);
    let intg = usize::from(precision - scale);
    let (intg0, intg0x) = (intg / 9, intg % 9);
    let (frac0, frac0x) = (usize::from(scale) / 9, usize::from(scale) % 9);
    let start = out.len();
    // Integer part: the full groups from the point leftwards, then the
    // leading partial group.
    let mut groups = Vec::with_capacity(intg0);
    for _ in 0..intg0 {
        groups.push((ip % 1_000_000_000) as u32);
        ip /= 1_000_000_000;
    }
    if intg0x > 0 {
        let lead = (ip % 10u128.pow(intg0x as u32)) as u32;
        out.extend_from_slice(&lead.to_be_bytes()[4 - DIG2BYTES[intg0x]..]);
    }
    for g in groups.iter().rev() {
        out.extend_from_slice(&g.to_be_bytes());
    }
    // Fraction: groups of nine from the point rightwards, then the rest.
    let mut rest = fp;
    let mut left = usize::from(scale);
    for _ in 0..frac0 {
        left -= 9;
        let g = (rest / 10u128.pow(left as u32)) as u32;
        rest %= 10u128.pow(left as u32);
        out.extend_from_slice(&g.to_be_bytes());
    }
    if frac0x > 0 {
        out.extend_from_slice(&(rest as u32).to_be_bytes()[4 - DIG2BYTES[frac0x]..]);
    }
    if neg {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    if out.len() > start {
        out[start] ^= 0x80;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str, p: u8, sc: u8) -> Vec<u8> {
        let mut v = Vec::new();
        put_decimal(Decimal::parse(s).unwrap(), p, sc, &mut v);
        v
    }

    #[test]
    fn decimal_matches_mysql_documented_example() {
        // decimal.c's comment: 1234567890.1234 as DECIMAL(14,4) is
        // 81 0D FB 38 D2 04 D2 (its example writes the bytes so).
        assert_eq!(dec("1234567890.1234", 14, 4), vec![0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]);
        // -1234567890.1234: every byte inverted, then the top bit flipped.
        assert_eq!(dec("-1234567890.1234", 14, 4), vec![0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]);
    }

    #[test]
    fn time2_negative_fraction_round_trips_as_mysql_reads_it() {
        // -00:00:01.5 with fsp 1: int part -2, fraction byte 0xCE.
        let mut v = Vec::new();
        put_time2(-1_500_000, 1, &mut v);
        assert_eq!(v, vec![0x7f, 0xff, 0xfe, 0xce]);
        let mut z = Vec::new();
        put_time2(0, 0, &mut z);
        assert_eq!(z, vec![0x80, 0, 0]);
    }
}
