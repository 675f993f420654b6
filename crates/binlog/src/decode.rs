//! Reading events back: the control events a replica's applier needs
//! (FORMAT_DESCRIPTION's checksum byte, ROTATE, QUERY, XID), TABLE_MAP and
//! the row images of WRITE/UPDATE/DELETE_ROWS v2, decoded by the table
//! map's column types and metadata into quire's values.
//!
//! The decoder is the inverse of `event`, `rows` and `column`: every
//! layout is the one documented there (MySQL 8.0's `Field_*::unpack` and
//! `libbinlogevents` readers). A value's *format* (its width, its length
//! prefix, its fraction bytes) comes from the table map alone, as MySQL's
//! applier reads it; its *meaning* (signed or not when the map carries no
//! SIGNEDNESS field, text or bytes, an ENUM's members) comes from the
//! replica's own column, as MySQL converts a row image into the local
//! table's fields.
//!
//! Every read is bounds-checked: a short or inconsistent event is a
//! [`DecodeError`], never a panic.

use quire_engine::row::{collation::latin1, tz, Choice, Column, ColumnType, Date, DateTime, Decimal, Value};

use crate::column::mysql_type as t;
use crate::event::{kind, HEADER_LEN};

/// A malformed event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

type R<T> = Result<T, DecodeError>;

fn short(what: &str) -> DecodeError {
    DecodeError(format!("truncated {what}"))
}

/// A cursor over an event body.
struct Cur<'a> {
    b: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Cur<'a> {
    fn new(b: &'a [u8], what: &'static str) -> Self {
        Cur { b, pos: 0, what }
    }

    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        let s = self.b.get(self.pos..self.pos + n).ok_or_else(|| short(self.what))?;
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }

    fn le(&mut self, n: usize) -> R<u64> {
        let s = self.take(n)?;
        let mut buf = [0u8; 8];
        buf[..n].copy_from_slice(s);
        Ok(u64::from_le_bytes(buf))
    }

    fn be(&mut self, n: usize) -> R<u64> {
        let s = self.take(n)?;
        Ok(s.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x)))
    }

    /// MySQL's packed integer.
    fn packed(&mut self) -> R<u64> {
        match self.u8()? {
            v @ 0..=250 => Ok(u64::from(v)),
            252 => self.le(2),
            253 => self.le(3),
            254 => self.le(8),
            _ => Err(DecodeError(format!("bad packed integer in {}", self.what))),
        }
    }

    fn rest(&mut self) -> &'a [u8] {
        let s = &self.b[self.pos.min(self.b.len())..];
        self.pos = self.b.len();
        s
    }

    fn done(&self) -> bool {
        self.pos >= self.b.len()
    }
}

/// The common header of an event (`event`'s layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub timestamp: u32,
    pub type_code: u8,
    pub server_id: u32,
    pub event_len: u32,
    /// The offset just past this event in the file it was written to
    /// (the source's file for a relayed event); 0 for artificial events.
    pub next_pos: u32,
    pub flags: u16,
}

/// LOG_EVENT_ARTIFICIAL_F: the fake ROTATE a dump thread sends first.
pub const FLAG_ARTIFICIAL: u16 = 0x0020;

/// The header of the event at the start of `ev`.
pub fn header(ev: &[u8]) -> R<Header> {
    let mut c = Cur::new(ev, "event header");
    Ok(Header {
        timestamp: c.le(4)? as u32,
        type_code: c.u8()?,
        server_id: c.le(4)? as u32,
        event_len: c.le(4)? as u32,
        next_pos: c.le(4)? as u32,
        flags: c.le(2)? as u16,
    })
}

/// Whether the CRC-32 at the end of `ev` matches its header and body
/// (the FDE's computed with IN_USE clear, as it was written).
pub fn checksum_ok(ev: &[u8]) -> bool {
    let Some(n) = ev.len().checked_sub(crate::event::CHECKSUM_LEN) else { return false };
    if n < HEADER_LEN {
        return false;
    }
    let stored = u32::from_le_bytes([ev[n], ev[n + 1], ev[n + 2], ev[n + 3]]);
    let crc = if ev[4] == kind::FORMAT_DESCRIPTION {
        let mut h = ev[..n].to_vec();
        h[crate::event::FLAGS_OFFSET] &= !(crate::event::FLAG_IN_USE as u8);
        crate::crc::crc32(&h)
    } else {
        crate::crc::crc32(&ev[..n])
    };
    crc == stored
}

/// FORMAT_DESCRIPTION: whether the events after it carry a CRC-32.
pub fn fde_checksum(ev: &[u8]) -> R<crate::Checksum> {
    // The algorithm byte sits before the (always present) 4-byte slot.
    let alg = ev.len().checked_sub(5).and_then(|i| ev.get(i)).ok_or_else(|| short("FORMAT_DESCRIPTION"))?;
    Ok(if *alg == 1 { crate::Checksum::Crc32 } else { crate::Checksum::None })
}

/// ROTATE: (position, next file name).
pub fn rotate(body: &[u8]) -> R<(u64, String)> {
    let mut c = Cur::new(body, "ROTATE");
    let pos = c.le(8)?;
    Ok((pos, String::from_utf8_lossy(c.rest()).into_owned()))
}

/// XID: the transaction's id.
pub fn xid(body: &[u8]) -> R<u64> {
    Cur::new(body, "XID").le(8)
}

/// A QUERY event's database and statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    pub db: String,
    pub sql: String,
    /// Q_FLAGS2 when present.
    pub flags2: Option<u32>,
}

/// QUERY: post-header, status variables (skipped), database, text.
pub fn query(body: &[u8]) -> R<Query> {
    let mut c = Cur::new(body, "QUERY");
    c.take(8)?; // thread id, exec time
    let db_len = c.u8()? as usize;
    c.take(2)?; // error code
    let sv_len = c.le(2)? as usize;
    let sv = c.take(sv_len)?;
    let flags2 = (sv.first() == Some(&0) && sv.len() >= 5).then(|| u32::from_le_bytes([sv[1], sv[2], sv[3], sv[4]]));
    let db = String::from_utf8_lossy(c.take(db_len)?).into_owned();
    c.take(1)?; // NUL
    Ok(Query { db, sql: String::from_utf8_lossy(c.rest()).into_owned(), flags2 })
}

/// A TABLE_MAP event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableMap {
    pub table_id: u64,
    pub db: String,
    pub table: String,
    /// Type code per column.
    pub types: Vec<u8>,
    /// Metadata per column, as [`column::put_metadata`](crate::column::put_metadata)
    /// wrote it (0, 1 or 2 bytes: kept as written).
    pub meta: Vec<Vec<u8>>,
    pub nullable: Vec<bool>,
    /// From the SIGNEDNESS field, per numeric column in order (`None`
    /// when the map has none).
    pub unsigned: Option<Vec<bool>>,
}

/// How many metadata bytes a column of type `ty` has in a TABLE_MAP.
fn meta_len(ty: u8) -> usize {
    match ty {
        t::FLOAT | t::DOUBLE | t::BLOB | t::DATETIME2 | t::TIMESTAMP2 | t::TIME2 => 1,
        t::NEWDECIMAL | t::STRING | t::VARCHAR | t::BIT | t::ENUM | t::SET => 2,
        _ => 0,
    }
}

fn is_numeric_code(ty: u8) -> bool {
    matches!(ty, t::TINY | t::SHORT | t::INT24 | t::LONG | t::LONGLONG | t::NEWDECIMAL | t::FLOAT | t::DOUBLE)
}

/// TABLE_MAP (body after the common header, checksum removed).
pub fn table_map(body: &[u8]) -> R<TableMap> {
    let mut c = Cur::new(body, "TABLE_MAP");
    let table_id = c.le(6)?;
    c.take(2)?; // flags
    let mut name = || -> R<String> {
        let n = c.u8()? as usize;
        let s = String::from_utf8_lossy(c.take(n)?).into_owned();
        c.take(1)?;
        Ok(s)
    };
    let db = name()?;
    let table = name()?;
    let n = c.packed()? as usize;
    let types = c.take(n)?.to_vec();
    let ml = c.packed()? as usize;
    let mut m = Cur::new(c.take(ml)?, "TABLE_MAP metadata");
    let mut meta = Vec::with_capacity(n);
    for &ty in &types {
        meta.push(m.take(meta_len(ty))?.to_vec());
    }
    let nulls = c.take(n.div_ceil(8))?;
    let nullable = (0..n).map(|i| nulls[i / 8] & (1 << (i % 8)) != 0).collect();
    let mut unsigned = None;
    while !c.done() {
        let ty = c.u8()?;
        let len = c.packed()? as usize;
        let v = c.take(len)?;
        if ty == 1 {
            // SIGNEDNESS: one bit per numeric column, most significant first.
            let k = types.iter().filter(|&&x| is_numeric_code(x)).count();
            let bits = (0..k).map(|i| v.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0)).collect();
            unsigned = Some(bits);
        }
    }
    Ok(TableMap { table_id, db, table, types, meta, nullable, unsigned })
}

impl TableMap {
    /// Whether numeric column `i` is unsigned by the map's SIGNEDNESS
    /// field; `None` when the map has none (or `i` is not numeric).
    fn unsigned_at(&self, i: usize) -> Option<bool> {
        let u = self.unsigned.as_ref()?;
        if !is_numeric_code(self.types[i]) {
            return None;
        }
        let k = self.types[..i].iter().filter(|&&x| is_numeric_code(x)).count();
        u.get(k).copied()
    }
}

/// One decoded row change: before and after images over the replica's
/// columns (a column absent from an image is `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct RowChange {
    pub before: Option<Vec<Option<Value>>>,
    pub after: Option<Vec<Option<Value>>>,
}

/// A decoded WRITE/UPDATE/DELETE_ROWS v2 event.
#[derive(Clone, Debug, PartialEq)]
pub struct RowsEvent {
    pub table_id: u64,
    pub flags: u16,
    pub rows: Vec<RowChange>,
}

/// The ROWS event's flag STMT_END_F.
pub const STMT_END_F: u16 = 0x0001;

/// The table id a ROWS v2 body names (to find its TABLE_MAP first).
pub fn rows_table_id(body: &[u8]) -> R<u64> {
    Cur::new(body, "ROWS").le(6)
}

fn read_bitmap(c: &mut Cur<'_>, n: usize) -> R<Vec<bool>> {
    let b = c.take(n.div_ceil(8))?;
    Ok((0..n).map(|i| b[i / 8] & (1 << (i % 8)) != 0).collect())
}

/// WRITE/UPDATE/DELETE_ROWS v2 (`type_code` 30/31/32; body after the
/// common header, checksum removed), decoded with `map` into `columns`
/// (the replica's visible columns, matched by position as MySQL matches
/// them). A source column beyond the replica's is an error, as is a type
/// the replica cannot hold.
pub fn rows(type_code: u8, body: &[u8], map: &TableMap, columns: &[Column]) -> R<RowsEvent> {
    let mut c = Cur::new(body, "ROWS");
    let table_id = c.le(6)?;
    let flags = c.le(2)? as u16;
    let extra = c.le(2)? as usize;
    c.take(extra.saturating_sub(2))?;
    let width = c.packed()? as usize;
    if width != map.types.len() {
        return Err(DecodeError(format!("a ROWS event of {width} columns for a table map of {}", map.types.len())));
    }
    if width > columns.len() {
        return Err(DecodeError(format!(
            "the source's table {}.{} has {width} columns, the replica's {}",
            map.db,
            map.table,
            columns.len()
        )));
    }
    let first = read_bitmap(&mut c, width)?;
    let second = if type_code == kind::UPDATE_ROWS { Some(read_bitmap(&mut c, width)?) } else { None };
    let mut out = Vec::new();
    while !c.done() {
        let img1 = image(&mut c, &first, map, columns)?;
        let change = match type_code {
            kind::WRITE_ROWS => RowChange { before: None, after: Some(img1) },
            kind::DELETE_ROWS => RowChange { before: Some(img1), after: None },
            kind::UPDATE_ROWS => {
                let cols = second.as_deref().unwrap_or(&first);
                let img2 = image(&mut c, cols, map, columns)?;
                RowChange { before: Some(img1), after: Some(img2) }
            }
            other => return Err(DecodeError(format!("event type {other} is no ROWS v2 event"))),
        };
        out.push(change);
    }
    Ok(RowsEvent { table_id, flags, rows: out })
}

/// One row image over the present columns.
fn image(c: &mut Cur<'_>, present: &[bool], map: &TableMap, columns: &[Column]) -> R<Vec<Option<Value>>> {
    let k = present.iter().filter(|&&p| p).count();
    let nulls = read_bitmap(c, k)?;
    let mut row = vec![None; columns.len()];
    let mut j = 0;
    for (i, &p) in present.iter().enumerate() {
        if !p {
            continue;
        }
        row[i] = Some(if nulls[j] {
            Value::Null
        } else {
            value(c, map.types[i], &map.meta[i], map.unsigned_at(i), &columns[i])?
        });
        j += 1;
    }
    Ok(row)
}

fn meta2(m: &[u8]) -> (u8, u8) {
    (m.first().copied().unwrap_or(0), m.get(1).copied().unwrap_or(0))
}

fn frac_bytes(fsp: u8) -> usize {
    usize::from(fsp).div_ceil(2)
}

/// The fraction of DATETIME2 / TIMESTAMP2 / TIME2 as microseconds
/// (`put_frac`'s inverse, non-negative form).
fn frac_micros(c: &mut Cur<'_>, fsp: u8) -> R<u32> {
    Ok(match frac_bytes(fsp) {
        1 => c.be(1)? as u32 * 10_000,
        2 => c.be(2)? as u32 * 100,
        3 => c.be(3)? as u32,
        _ => 0,
    })
}

/// Bytes of text or binary data as the column holds it.
fn text_value(col: &Column, bytes: &[u8]) -> Value {
    if col.ty.is_binary() || !col.ty.is_string() && !matches!(col.ty, ColumnType::Json) {
        return Value::Bytes(bytes.to_vec());
    }
    if col.collation.charset() == "latin1" {
        Value::Str(bytes.iter().map(|&b| latin1::decode_byte(b)).collect())
    } else {
        Value::Str(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// An integer of `w` bytes as the column reads it.
fn int_value(raw: u64, w: usize, unsigned: bool) -> Value {
    if unsigned {
        Value::UInt(raw)
    } else {
        let shift = 64 - 8 * w as u32;
        Value::Int(((raw << shift) as i64) >> shift)
    }
}

/// One non-NULL value of source type `ty` with metadata `m`.
fn value(c: &mut Cur<'_>, ty: u8, m: &[u8], map_unsigned: Option<bool>, col: &Column) -> R<Value> {
    let unsigned = map_unsigned.unwrap_or_else(|| col.ty.is_unsigned());
    Ok(match ty {
        t::TINY => int_value(c.le(1)?, 1, unsigned),
        t::SHORT => int_value(c.le(2)?, 2, unsigned),
        t::INT24 => int_value(c.le(3)?, 3, unsigned),
        t::LONG => int_value(c.le(4)?, 4, unsigned),
        t::LONGLONG => int_value(c.le(8)?, 8, unsigned),
        t::FLOAT => Value::Double(f64::from(f32::from_le_bytes(c.take(4)?.try_into().map_err(|_| short("FLOAT"))?))),
        t::DOUBLE => Value::Double(f64::from_le_bytes(c.take(8)?.try_into().map_err(|_| short("DOUBLE"))?)),
        t::NEWDECIMAL => {
            let (p, s) = meta2(m);
            Value::Decimal(decimal(c, p, s)?)
        }
        t::YEAR => {
            let b = c.u8()?;
            Value::Int(if b == 0 { 0 } else { 1900 + i64::from(b) })
        }
        t::DATE => {
            let n = c.le(3)? as u32;
            Value::Date(Date { year: (n >> 9) as u16, month: ((n >> 5) & 15) as u8, day: (n & 31) as u8 })
        }
        t::DATETIME2 => {
            let fsp = m.first().copied().unwrap_or(0);
            let int = c.be(5)? as i64 - 0x80_0000_0000;
            let micros = frac_micros(c, fsp)?;
            let ymd = int >> 17;
            let hms = int & ((1 << 17) - 1);
            let ym = ymd >> 5;
            Value::DateTime(DateTime {
                date: Date { year: (ym / 13) as u16, month: (ym % 13) as u8, day: (ymd & 31) as u8 },
                hour: (hms >> 12) as u8,
                minute: ((hms >> 6) & 63) as u8,
                second: (hms & 63) as u8,
                micros,
            })
        }
        t::TIMESTAMP2 => {
            let fsp = m.first().copied().unwrap_or(0);
            let secs = c.be(4)? as i64;
            let micros = frac_micros(c, fsp)?;
            if secs == 0 {
                Value::DateTime(DateTime {
                    date: Date { year: 0, month: 0, day: 0 },
                    hour: 0,
                    minute: 0,
                    second: 0,
                    micros: 0,
                })
            } else {
                // UTC: the applier binds TIMESTAMPs with time_zone '+00:00'.
                Value::DateTime(
                    tz::from_unix_seconds(secs, micros)
                        .ok_or_else(|| DecodeError(format!("TIMESTAMP {secs} out of range")))?,
                )
            }
        }
        t::TIME2 => Value::Time(time2(c, m.first().copied().unwrap_or(0))?),
        t::BIT => {
            let (rem, bytes) = meta2(m);
            let len = usize::from(bytes) + usize::from(rem > 0);
            Value::UInt(c.be(len.min(8))?)
        }
        t::VARCHAR => {
            let max = u16::from_le_bytes([meta2(m).0, meta2(m).1]);
            let len = c.le(if max > 255 { 2 } else { 1 })? as usize;
            text_value(col, c.take(len)?)
        }
        t::BLOB => {
            let lb = usize::from(m.first().copied().unwrap_or(2)).clamp(1, 4);
            let len = c.le(lb)? as usize;
            text_value(col, c.take(len)?)
        }
        t::STRING => {
            let (b0, b1) = meta2(m);
            let (real, len) = if b0 & 0x30 != 0x30 {
                (b0 | 0x30, usize::from(b1) | (usize::from((b0 & 0x30) ^ 0x30) << 4))
            } else {
                (b0, usize::from(b1))
            };
            match real {
                t::ENUM | t::SET => {
                    let n = c.le(usize::from(b1).clamp(1, 8))?;
                    match col.ty.members() {
                        Some(members) => Value::Choice(Choice { n, members }),
                        None => Value::UInt(n),
                    }
                }
                _ => {
                    let l = c.le(if len > 255 { 2 } else { 1 })? as usize;
                    text_value(col, c.take(l)?)
                }
            }
        }
        other => return Err(DecodeError(format!("column type {other} is not one quire replicates"))),
    })
}

/// TIME2 (`put_time2`'s inverse) as signed microseconds.
fn time2(c: &mut Cur<'_>, fsp: u8) -> R<i64> {
    let (int, frac) = match fsp {
        5 | 6 => {
            let nr = c.be(6)? as i64 - 0x8000_0000_0000;
            (nr >> 24, nr & 0xff_ffff)
        }
        _ => {
            let mut int = c.be(3)? as i64 - 0x80_0000;
            let fr = match fsp {
                1 | 2 => i64::from(c.u8()? as i8) * 10_000,
                3 | 4 => i64::from(i16::from_be_bytes(c.take(2)?.try_into().map_err(|_| short("TIME2"))?)) * 100,
                _ => 0,
            };
            // A negative time's integer part was stored floored and its
            // fraction as the (negative) remainder: MySQL's reader
            // (`my_time_packed_from_binary`) moves the integer back up.
            if int < 0 && fr != 0 {
                int += 1;
            }
            (int, fr)
        }
    };
    // packed = (hms << 24) + frac, negated for negative times; int is the
    // floor of packed >> 24 and frac the remainder (negative with it).
    let packed = (int << 24) + frac;
    let neg = packed < 0;
    let a = packed.abs();
    let hms = a >> 24;
    let micros = a & 0xff_ffff;
    let secs = (hms >> 12) * 3600 + ((hms >> 6) & 63) * 60 + (hms & 63);
    let us = secs * 1_000_000 + micros;
    Ok(if neg { -us } else { us })
}

const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// MySQL's binary DECIMAL(precision, scale) (`bin2decimal`).
fn decimal(c: &mut Cur<'_>, precision: u8, scale: u8) -> R<Decimal> {
    if scale > precision {
        return Err(DecodeError(format!("DECIMAL({precision},{scale})")));
    }
    let intg = usize::from(precision - scale);
    let (intg0, intg0x) = (intg / 9, intg % 9);
    let (frac0, frac0x) = (usize::from(scale) / 9, usize::from(scale) % 9);
    let size = intg0 * 4 + DIG2BYTES[intg0x] + frac0 * 4 + DIG2BYTES[frac0x];
    let mut b = c.take(size)?.to_vec();
    if b.is_empty() {
        return Ok(Decimal::new(0, scale));
    }
    let neg = b[0] & 0x80 == 0;
    b[0] ^= 0x80;
    if neg {
        for x in &mut b {
            *x = !*x;
        }
    }
    let mut d = Cur::new(&b, "DECIMAL");
    let mut coef: i128 = 0;
    if intg0x > 0 {
        coef = d.be(DIG2BYTES[intg0x])? as i128;
    }
    for _ in 0..intg0 {
        coef = coef * 1_000_000_000 + d.be(4)? as i128;
    }
    for _ in 0..frac0 {
        coef = coef * 1_000_000_000 + d.be(4)? as i128;
    }
    if frac0x > 0 {
        coef = coef * 10i128.pow(frac0x as u32) + d.be(DIG2BYTES[frac0x])? as i128;
    }
    Ok(Decimal::new(if neg { -coef } else { coef }, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::{put_metadata, put_value, type_code};
    use crate::event::{Checksum, Events, Frame};
    use crate::rows::{log_run, LoggedTable, RowMetadata, RowPair, RowsKind};
    use quire_engine::row::{Collation, TableSchema};

    /// Encodes `v` for `col`, decodes it by the type code and metadata.
    fn round_trip(col: &Column, v: &Value) -> Value {
        let mut bytes = Vec::new();
        put_value(col, v, &mut bytes);
        let mut meta = Vec::new();
        put_metadata(col, &mut meta);
        let mut c = Cur::new(&bytes, "test");
        let got = value(&mut c, type_code(col), &meta, None, col).unwrap();
        assert!(c.done(), "{col:?}: {} bytes left", bytes.len() - c.pos);
        got
    }

    fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> DateTime {
        DateTime { date: Date { year: y, month: mo, day: d }, hour: h, minute: mi, second: s, micros: us }
    }

    #[test]
    fn integers_round_trip_signed_and_unsigned_at_their_extremes() {
        let cases: Vec<(ColumnType, Vec<Value>)> = vec![
            (ColumnType::TinyInt { unsigned: false }, vec![Value::Int(-128), Value::Int(127), Value::Int(0)]),
            (ColumnType::TinyInt { unsigned: true }, vec![Value::UInt(255)]),
            (ColumnType::SmallInt { unsigned: false }, vec![Value::Int(-32768), Value::Int(12345)]),
            (ColumnType::MediumInt { unsigned: false }, vec![Value::Int(-8_388_608), Value::Int(8_388_607)]),
            (ColumnType::MediumInt { unsigned: true }, vec![Value::UInt(16_777_215)]),
            (ColumnType::Int { unsigned: false }, vec![Value::Int(i64::from(i32::MIN)), Value::Int(-1)]),
            (ColumnType::Int { unsigned: true }, vec![Value::UInt(u64::from(u32::MAX))]),
            (ColumnType::BigInt { unsigned: false }, vec![Value::Int(i64::MIN), Value::Int(i64::MAX)]),
            (ColumnType::BigInt { unsigned: true }, vec![Value::UInt(u64::MAX)]),
        ];
        for (ty, vals) in cases {
            let col = Column::new("c", ty);
            for v in vals {
                assert_eq!(round_trip(&col, &v), v, "{ty:?}");
            }
        }
    }

    #[test]
    fn decimals_round_trip_across_group_boundaries() {
        for (s, p, sc) in [
            ("1234567890.1234", 14, 4),
            ("-1234567890.1234", 14, 4),
            ("0.000000001", 20, 9),
            ("-99999999999999999999.9999999999", 30, 10),
            ("12.5", 5, 2),
            ("-0.01", 3, 2),
            ("7", 1, 0),
            ("0", 10, 0),
        ] {
            let col = Column::new("d", ColumnType::Decimal { precision: p, scale: sc, unsigned: false });
            let d = Decimal::parse(s).unwrap().rescale(sc).unwrap();
            assert_eq!(round_trip(&col, &Value::Decimal(d)), Value::Decimal(d), "{s} as DECIMAL({p},{sc})");
        }
    }

    #[test]
    fn floats_round_trip() {
        let f = Column::new("f", ColumnType::Float { digits: None, unsigned: false });
        assert_eq!(round_trip(&f, &Value::Double(1.5)), Value::Double(1.5));
        let d = Column::new("d", ColumnType::Double { digits: None, unsigned: false });
        assert_eq!(round_trip(&d, &Value::Double(-2.0e-300)), Value::Double(-2.0e-300));
    }

    #[test]
    fn strings_round_trip_in_their_character_sets_and_length_prefixes() {
        let cases = [
            (Column::new("a", ColumnType::Varchar { len: 20 }), Value::Str("héllo 世界 🎉".into())),
            (Column::new("b", ColumnType::Varchar { len: 300 }), Value::Str("x".repeat(1000))),
            (Column::new("c", ColumnType::Char { len: 10 }), Value::Str("ab".into())),
            (Column::new("c2", ColumnType::Char { len: 100 }), Value::Str("ü".repeat(100))),
            (
                Column::new("l", ColumnType::Varchar { len: 10 }).collation(Collation::Latin1SwedishCi),
                Value::Str("café".into()),
            ),
            (Column::new("t", ColumnType::Text), Value::Str("ünïcode text".into())),
            (Column::new("vb", ColumnType::VarBinary { len: 8 }), Value::Bytes(vec![0, 255, 1])),
            (Column::new("bn", ColumnType::Binary { len: 4 }), Value::Bytes(vec![1, 2, 0, 0])),
            (Column::new("bl", ColumnType::Blob { max_bytes: 65_535 }), Value::Bytes((0..=255).collect())),
            (Column::new("lb", ColumnType::Blob { max_bytes: u32::MAX }), Value::Bytes(vec![7; 70_000])),
        ];
        for (col, v) in cases {
            assert_eq!(round_trip(&col, &v), v, "{col:?}");
        }
    }

    #[test]
    fn temporal_values_round_trip_with_every_fraction_width() {
        let date = Column::new("d", ColumnType::Date);
        let v = Value::Date(Date { year: 2024, month: 2, day: 29 });
        assert_eq!(round_trip(&date, &v), v);
        for fsp in 0..=6u8 {
            let scale = 10u32.pow(6 - u32::from(fsp));
            let us = 123_456 / scale * scale;
            let c = Column::new("dt", ColumnType::DateTime { fsp });
            let v = Value::DateTime(dt(1999, 12, 31, 23, 59, 58, us));
            assert_eq!(round_trip(&c, &v), v, "DATETIME({fsp})");
            let c = Column::new("ts", ColumnType::Timestamp { fsp });
            let v = Value::DateTime(dt(2038, 1, 19, 3, 14, 7, us));
            assert_eq!(round_trip(&c, &v), v, "TIMESTAMP({fsp})");
            let c = Column::new("t", ColumnType::Time { fsp });
            for t in [
                0i64,
                1_000_000,
                -1_000_000,
                -1_500_000,
                -(45_296_780_000),
                45_296_780_000,
                838 * 3_600_000_000 + 59 * 60_000_000,
                -(3_600_000_000 + 7),
                -(3_600_000_000 + 123_456),
            ] {
                let t = t / i64::from(scale) * i64::from(scale);
                assert_eq!(round_trip(&c, &Value::Time(t)), Value::Time(t), "TIME({fsp}) {t}");
            }
        }
        let y = Column::new("y", ColumnType::Year);
        for v in [0, 1901, 2155] {
            assert_eq!(round_trip(&y, &Value::Int(v)), Value::Int(v));
        }
    }

    #[test]
    fn bits_round_trip() {
        for (bits, v) in [(1u8, 1u64), (10, 0x3ff), (64, u64::MAX), (17, 0x1_0001)] {
            let c = Column::new("b", ColumnType::Bit { bits });
            assert_eq!(round_trip(&c, &Value::UInt(v)), Value::UInt(v), "BIT({bits})");
        }
    }

    fn table() -> LoggedTable {
        let columns = vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("name", ColumnType::Varchar { len: 40 }),
            Column::new("price", ColumnType::Decimal { precision: 10, scale: 2, unsigned: false }),
            Column::new("n", ColumnType::BigInt { unsigned: true }),
        ];
        LoggedTable {
            table_id: 77,
            db: "shop".into(),
            name: "items".into(),
            schema: TableSchema { columns, primary_key: vec![0], ..Default::default() },
        }
    }

    /// Splits framed events (placed at offset 4) into (header, body).
    fn split(ev: &Events) -> Vec<(Header, Vec<u8>)> {
        let mut out = Vec::new();
        for (i, &s) in ev.starts.iter().enumerate() {
            let end = ev.starts.get(i + 1).map_or(ev.bytes.len(), |&e| e as usize);
            let e = &ev.bytes[s as usize..end];
            assert!(checksum_ok(e));
            out.push((header(e).unwrap(), e[HEADER_LEN..e.len() - 4].to_vec()));
        }
        out
    }

    #[test]
    fn rows_events_round_trip_through_table_map_including_nulls() {
        let f = Frame { server_id: 1, timestamp: 5, checksum: Checksum::Crc32 };
        let t = table();
        let r1 = vec![
            Value::Int(1),
            Value::Str("ä".into()),
            Value::Decimal(Decimal::parse("12.50").unwrap()),
            Value::UInt(u64::MAX),
        ];
        let r2 = vec![Value::Int(2), Value::Null, Value::Null, Value::UInt(0)];
        let r3 =
            vec![Value::Int(2), Value::Str("b".into()), Value::Decimal(Decimal::parse("-0.01").unwrap()), Value::Null];
        for (kind, pairs) in [
            (
                RowsKind::Write,
                vec![RowPair { before: None, after: Some(&r1) }, RowPair { before: None, after: Some(&r2) }],
            ),
            (RowsKind::Update, vec![RowPair { before: Some(&r2), after: Some(&r3) }]),
            (RowsKind::Delete, vec![RowPair { before: Some(&r1), after: None }]),
        ] {
            let mut ev = Events::default();
            for meta in [RowMetadata::Minimal, RowMetadata::Full] {
                ev.clear();
                log_run(&mut ev, &f, &t, kind, &pairs, meta);
                ev.place(4, Checksum::Crc32);
                let evs = split(&ev);
                assert_eq!(evs[0].0.type_code, kind::TABLE_MAP);
                let map = table_map(&evs[0].1).unwrap();
                assert_eq!((map.table_id, map.db.as_str(), map.table.as_str()), (77, "shop", "items"));
                assert_eq!(map.nullable, vec![false, true, true, true]);
                assert_eq!(map.unsigned, Some(vec![false, false, true]));
                let (h, body) = &evs[1];
                assert_eq!(rows_table_id(body).unwrap(), 77);
                let got = rows(h.type_code, body, &map, t.columns()).unwrap();
                assert!(got.flags & STMT_END_F != 0);
                let want: Vec<RowChange> = pairs
                    .iter()
                    .map(|p| RowChange {
                        before: p.before.map(|r| r.iter().cloned().map(Some).collect()),
                        after: p.after.map(|r| r.iter().cloned().map(Some).collect()),
                    })
                    .collect();
                assert_eq!(got.rows, want, "{kind:?}");
            }
        }
    }

    #[test]
    fn control_events_decode() {
        let f = Frame { server_id: 9, timestamp: 1, checksum: Checksum::Crc32 };
        let mut ev = Events::default();
        ev.format_description(&f, 0, true);
        ev.query(
            &f,
            &crate::QueryEvent {
                thread_id: 3,
                db: "d1",
                sql: "CREATE TABLE t (a INT)",
                flags2: 0x0400_0000,
                sql_mode: 0,
                charset: [45, 45, 45],
            },
        );
        ev.xid(&f, 42);
        ev.rotate(&f, "binlog.000002");
        ev.place(4, Checksum::Crc32);
        let evs = split(&ev);
        let fde_start = ev.starts[0] as usize;
        assert_eq!(fde_checksum(&ev.bytes[fde_start..ev.starts[1] as usize]).unwrap(), Checksum::Crc32);
        let q = query(&evs[1].1).unwrap();
        assert_eq!((q.db.as_str(), q.sql.as_str(), q.flags2), ("d1", "CREATE TABLE t (a INT)", Some(0x0400_0000)));
        assert_eq!(xid(&evs[2].1).unwrap(), 42);
        assert_eq!(rotate(&evs[3].1).unwrap(), (4, "binlog.000002".to_string()));
        assert_eq!(evs[3].0.server_id, 9);
    }

    #[test]
    fn a_corrupt_byte_fails_the_checksum_and_a_short_event_is_an_error() {
        let f = Frame { server_id: 1, timestamp: 1, checksum: Checksum::Crc32 };
        let mut ev = Events::default();
        ev.xid(&f, 7);
        ev.place(4, Checksum::Crc32);
        assert!(checksum_ok(&ev.bytes));
        ev.bytes[HEADER_LEN] ^= 1;
        assert!(!checksum_ok(&ev.bytes));
        assert!(xid(&[1, 2, 3]).is_err());
        assert!(table_map(&[0; 5]).is_err());
        let t = table();
        let map = TableMap {
            table_id: 77,
            db: "shop".into(),
            table: "items".into(),
            types: t.columns().iter().map(type_code).collect(),
            meta: t
                .columns()
                .iter()
                .map(|c| {
                    let mut m = Vec::new();
                    put_metadata(c, &mut m);
                    m
                })
                .collect(),
            nullable: vec![true; 4],
            unsigned: None,
        };
        // A row image cut short.
        let body = [77, 0, 0, 0, 0, 0, 1, 0, 2, 0, 4, 0x0f, 0x00, 1, 0];
        assert!(rows(kind::WRITE_ROWS, &body, &map, t.columns()).is_err());
    }
}
