//! Encoders for what the server sends: OK, ERR and EOF packets, column
//! definitions, and result-set rows in the text and binary protocols.
//! Each function appends one packet's payload to a buffer.
//!
//! ```text
//! OK : 0x00 | affected rows <lenenc> | last insert id <lenenc> | status u16 | warnings u16 | info <lenenc>
//! EOF: 0xfe | warnings u16 | status u16
//! ERR: 0xff | code u16 | '#' | SQLSTATE (5) | message <EOF>
//!      (before the handshake response: 0xff | code u16 | message <EOF>)
//! ```
//!
//! Rows: text rows hold each cell as a length-encoded string of its SQL
//! text (NULL = 0xfb). Binary rows are `0x00`, a NULL bitmap whose bits
//! start at offset 2, then each non-NULL value encoded by its column's type.
//! A cell whose variant does not match its column's type is converted
//! (numbers to text, text to numbers by parsing): the SQL layer decides the
//! type, the protocol only never sends a value the client cannot decode.

use super::codec::{put_lenenc_int, put_lenenc_str};
use super::{column_flag, column_type, Cell, ColumnDef, ErrPacket};

pub const OK_HEADER: u8 = 0x00;
pub const EOF_HEADER: u8 = 0xfe;
pub const ERR_HEADER: u8 = 0xff;

pub fn ok(buf: &mut Vec<u8>, affected_rows: u64, last_insert_id: u64, status: u16, warnings: u16, info: &str) {
    buf.push(OK_HEADER);
    put_lenenc_int(buf, affected_rows);
    put_lenenc_int(buf, last_insert_id);
    buf.extend_from_slice(&status.to_le_bytes());
    buf.extend_from_slice(&warnings.to_le_bytes());
    // Documented as string<EOF>, but servers send (and libmysqlclient,
    // libmariadb and mysql_common read) a length-encoded string.
    if !info.is_empty() {
        put_lenenc_str(buf, info.as_bytes());
    }
}

pub fn eof(buf: &mut Vec<u8>, warnings: u16, status: u16) {
    buf.push(EOF_HEADER);
    buf.extend_from_slice(&warnings.to_le_bytes());
    buf.extend_from_slice(&status.to_le_bytes());
}

pub fn err(buf: &mut Vec<u8>, e: &ErrPacket) {
    buf.push(ERR_HEADER);
    buf.extend_from_slice(&e.code.to_le_bytes());
    buf.push(b'#');
    buf.extend_from_slice(&e.state);
    buf.extend_from_slice(e.message.as_bytes());
}

/// An ERR packet for a client whose capabilities are not known yet (before
/// the handshake response): without the `#` SQLSTATE marker, as MySQL sends
/// it then, since a pre-4.1 reader would take the marker for the message.
pub fn err_without_sqlstate(buf: &mut Vec<u8>, e: &ErrPacket) {
    buf.push(ERR_HEADER);
    buf.extend_from_slice(&e.code.to_le_bytes());
    buf.extend_from_slice(e.message.as_bytes());
}

/// Protocol::ColumnDefinition41.
pub fn column_def(buf: &mut Vec<u8>, c: &ColumnDef) {
    put_lenenc_str(buf, b"def");
    put_lenenc_str(buf, c.schema.as_bytes());
    put_lenenc_str(buf, c.table.as_bytes());
    put_lenenc_str(buf, c.org_table.as_bytes());
    put_lenenc_str(buf, c.name.as_bytes());
    put_lenenc_str(buf, c.org_name.as_bytes());
    put_lenenc_int(buf, 0x0c);
    buf.extend_from_slice(&c.charset.to_le_bytes());
    buf.extend_from_slice(&c.length.to_le_bytes());
    buf.push(c.column_type);
    buf.extend_from_slice(&c.flags.to_le_bytes());
    buf.push(c.decimals);
    buf.extend_from_slice(&[0, 0]);
}

/// A double as MySQL prints it (see `quire_engine::row::float`): the
/// shortest digits that read back as the same value, positional when the
/// point is within -14..=15 digits of the first one (`1.5`, `0.00001`),
/// scientific otherwise (`1e20`, `1e-16`); no `.0` on integral values.
pub fn format_double(v: f64) -> String {
    quire_engine::row::float::format_double(v)
}

fn date_text(year: u16, month: u8, day: u8) -> String {
    format!("{year:04}-{month:02}-{day:02}")
}

fn frac_text(micros: u32, decimals: u8) -> String {
    let digits = if decimals == 0 || decimals > 6 {
        if micros == 0 {
            return String::new();
        }
        6
    } else {
        usize::from(decimals)
    };
    let s = format!("{micros:06}");
    format!(".{}", &s[..digits])
}

/// A cell's SQL text, as a text-protocol row carries it (`None` for NULL).
pub fn cell_text(cell: &Cell, decimals: u8) -> Option<Vec<u8>> {
    Some(match cell {
        Cell::Null => return None,
        Cell::Int(v) => v.to_string().into_bytes(),
        Cell::UInt(v) => v.to_string().into_bytes(),
        // A DOUBLE(M,D) column prints exactly D decimals; 31 (NOT_FIXED_DEC)
        // means as many as the value needs.
        Cell::Double(v) if decimals < 31 => quire_engine::row::float::format_fixed(*v, decimals).into_bytes(),
        Cell::Double(v) => format_double(*v).into_bytes(),
        Cell::Float(v) if decimals < 31 => quire_engine::row::float::format_fixed(f64::from(*v), decimals).into_bytes(),
        Cell::Float(v) => quire_engine::row::float::format_float(*v).into_bytes(),
        Cell::Bytes(b) => b.clone(),
        Cell::Date { year, month, day } => date_text(*year, *month, *day).into_bytes(),
        Cell::DateTime { year, month, day, hour, minute, second, micros } => format!(
            "{} {hour:02}:{minute:02}:{second:02}{}",
            date_text(*year, *month, *day),
            frac_text(*micros, decimals)
        )
        .into_bytes(),
        Cell::Time { negative, days, hours, minutes, seconds, micros } => {
            let h = u64::from(*days) * 24 + u64::from(*hours);
            let sign = if *negative { "-" } else { "" };
            format!("{sign}{h:02}:{minutes:02}:{seconds:02}{}", frac_text(*micros, decimals)).into_bytes()
        }
    })
}

/// One text-protocol row.
pub fn text_row(buf: &mut Vec<u8>, columns: &[ColumnDef], row: &[Cell]) {
    for (i, cell) in row.iter().enumerate() {
        let decimals = columns.get(i).map_or(0, |c| c.decimals);
        if let Some(width) = columns.get(i).and_then(zerofill_width) {
            match cell_text(cell, decimals) {
                Some(text) => put_lenenc_str(buf, &zerofilled(text, width)),
                None => buf.push(0xfb),
            }
        } else if !put_cell_text(buf, cell, decimals) {
            buf.push(0xfb);
        }
    }
}

/// The width a ZEROFILL number column's text is padded to (its display
/// length; YEAR, also ZEROFILL, is sent as its four digits already).
fn zerofill_width(c: &ColumnDef) -> Option<usize> {
    (c.flags & column_flag::ZEROFILL != 0 && c.column_type != column_type::YEAR).then_some(c.length as usize)
}

/// `text` with zeros in front up to `width` characters (longer text is
/// left as it is, as MySQL shows `INT(3) ZEROFILL` 12345).
fn zerofilled(text: Vec<u8>, width: usize) -> Vec<u8> {
    if text.len() >= width {
        return text;
    }
    let mut out = vec![b'0'; width - text.len()];
    out.extend_from_slice(&text);
    out
}

/// Appends a cell's text as a length-encoded string, written straight
/// into `buf` for bytes and integers (no copy, no allocation); `false`
/// (nothing written) for NULL.
fn put_cell_text(buf: &mut Vec<u8>, cell: &Cell, decimals: u8) -> bool {
    use std::io::Write;
    let mut digits = [0u8; 20];
    let int = |d: &mut [u8; 20], v: &dyn std::fmt::Display| {
        let mut w = &mut d[..];
        write!(w, "{v}").expect("20 bytes hold any 64-bit integer");
        20 - w.len()
    };
    match cell {
        Cell::Null => return false,
        Cell::Bytes(b) => put_lenenc_str(buf, b),
        Cell::Int(v) => {
            let n = int(&mut digits, v);
            put_lenenc_str(buf, &digits[..n]);
        }
        Cell::UInt(v) => {
            let n = int(&mut digits, v);
            put_lenenc_str(buf, &digits[..n]);
        }
        other => put_lenenc_str(buf, &cell_text(other, decimals).unwrap_or_default()),
    }
    true
}

fn cell_i64(cell: &Cell) -> i64 {
    match cell {
        Cell::Int(v) => *v,
        Cell::UInt(v) => *v as i64,
        Cell::Double(v) => *v as i64,
        Cell::Float(v) => *v as i64,
        Cell::Bytes(b) => {
            std::str::from_utf8(b).ok().and_then(|s| s.trim().parse::<f64>().ok()).map_or(0, |v| v as i64)
        }
        Cell::Date { year, .. } | Cell::DateTime { year, .. } => i64::from(*year),
        Cell::Null | Cell::Time { .. } => 0,
    }
}

fn cell_f64(cell: &Cell) -> f64 {
    match cell {
        Cell::Int(v) => *v as f64,
        Cell::UInt(v) => *v as f64,
        Cell::Double(v) => *v,
        Cell::Float(v) => f64::from(*v),
        Cell::Bytes(b) => std::str::from_utf8(b).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0.0),
        _ => cell_i64(cell) as f64,
    }
}

/// The binary DATE/DATETIME/TIMESTAMP value: length 0, 4, 7 or 11.
fn put_binary_datetime(buf: &mut Vec<u8>, cell: &Cell, date_only: bool) {
    let (year, month, day, hour, minute, second, micros) = match *cell {
        Cell::Date { year, month, day } => (year, month, day, 0, 0, 0, 0),
        Cell::DateTime { year, month, day, hour, minute, second, micros } => {
            (year, month, day, hour, minute, second, micros)
        }
        _ => (0, 0, 0, 0, 0, 0, 0),
    };
    let len: u8 = if date_only || (hour == 0 && minute == 0 && second == 0 && micros == 0) {
        if year == 0 && month == 0 && day == 0 {
            0
        } else {
            4
        }
    } else if micros == 0 {
        7
    } else {
        11
    };
    buf.push(len);
    if len >= 4 {
        buf.extend_from_slice(&year.to_le_bytes());
        buf.extend_from_slice(&[month, day]);
    }
    if len >= 7 {
        buf.extend_from_slice(&[hour, minute, second]);
    }
    if len == 11 {
        buf.extend_from_slice(&micros.to_le_bytes());
    }
}

/// The binary TIME value: length 0, 8 or 12.
fn put_binary_time(buf: &mut Vec<u8>, cell: &Cell) {
    let (negative, days, hours, minutes, seconds, micros) = match *cell {
        Cell::Time { negative, days, hours, minutes, seconds, micros } => {
            (negative, days, hours, minutes, seconds, micros)
        }
        Cell::DateTime { hour, minute, second, micros, .. } => (false, 0, hour, minute, second, micros),
        _ => (false, 0, 0, 0, 0, 0),
    };
    if days == 0 && hours == 0 && minutes == 0 && seconds == 0 && micros == 0 {
        buf.push(0);
        return;
    }
    buf.push(if micros == 0 { 8 } else { 12 });
    buf.push(u8::from(negative));
    buf.extend_from_slice(&days.to_le_bytes());
    buf.extend_from_slice(&[hours, minutes, seconds]);
    if micros != 0 {
        buf.extend_from_slice(&micros.to_le_bytes());
    }
}

/// One binary-protocol row.
pub fn binary_row(buf: &mut Vec<u8>, columns: &[ColumnDef], row: &[Cell]) {
    buf.push(0x00);
    let bitmap_at = buf.len();
    let bitmap_len = (columns.len() + 7 + 2) / 8;
    buf.resize(bitmap_at + bitmap_len, 0);
    for (i, col) in columns.iter().enumerate() {
        let cell = row.get(i).unwrap_or(&Cell::Null);
        if matches!(cell, Cell::Null) {
            let bit = i + 2;
            buf[bitmap_at + bit / 8] |= 1 << (bit % 8);
            continue;
        }
        match col.column_type {
            column_type::TINY => buf.push(cell_i64(cell) as u8),
            column_type::SHORT | column_type::YEAR => buf.extend_from_slice(&(cell_i64(cell) as u16).to_le_bytes()),
            column_type::LONG | column_type::INT24 => buf.extend_from_slice(&(cell_i64(cell) as u32).to_le_bytes()),
            column_type::LONGLONG => match cell {
                Cell::UInt(v) => buf.extend_from_slice(&v.to_le_bytes()),
                _ => buf.extend_from_slice(&cell_i64(cell).to_le_bytes()),
            },
            column_type::FLOAT => buf.extend_from_slice(&(cell_f64(cell) as f32).to_le_bytes()),
            column_type::DOUBLE => buf.extend_from_slice(&cell_f64(cell).to_le_bytes()),
            column_type::DATE => put_binary_datetime(buf, cell, true),
            column_type::DATETIME | column_type::TIMESTAMP => put_binary_datetime(buf, cell, false),
            column_type::TIME => put_binary_time(buf, cell),
            // Strings, blobs, decimals, and anything else: its text (a
            // ZEROFILL DECIMAL's padded, as MariaDB sends it).
            _ => match zerofill_width(col) {
                Some(width) => {
                    put_lenenc_str(buf, &zerofilled(cell_text(cell, col.decimals).unwrap_or_default(), width))
                }
                None => {
                    put_cell_text(buf, cell, col.decimals);
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_like_mysql() {
        assert_eq!(format_double(1.5), "1.5");
        assert_eq!(format_double(3.0), "3");
        assert_eq!(format_double(-2.0), "-2");
        assert_eq!(format_double(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_double(1e20), "1e20");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(1e14), "100000000000000");
        assert_eq!(format_double(1.5e-7), "0.00000015");
        assert_eq!(format_double(1e-16), "1e-16");
        assert_eq!(format_double(0.00001), "0.00001");
        assert_eq!(format_double(0.0), "0");
    }

    #[test]
    fn float_and_fixed_cells_print_as_mariadb() {
        assert_eq!(cell_text(&Cell::Float(0.1), 31).unwrap(), b"0.1");
        assert_eq!(zerofilled(b"3.50".to_vec(), 7), b"0003.50");
        assert_eq!(zerofilled(b"12345".to_vec(), 3), b"12345");
        assert_eq!(cell_text(&Cell::Float(123456789.0), 31).unwrap(), b"123457000");
        assert_eq!(cell_text(&Cell::Float(1.005), 2).unwrap(), b"1.00");
        assert_eq!(cell_text(&Cell::Double(-1234567.123), 3).unwrap(), b"-1234567.123");
    }

    #[test]
    fn temporal_cells_print_as_sql_text() {
        let dt = Cell::DateTime { year: 2024, month: 2, day: 29, hour: 13, minute: 5, second: 9, micros: 250 };
        assert_eq!(cell_text(&dt, 0).unwrap(), b"2024-02-29 13:05:09.000250");
        assert_eq!(cell_text(&dt, 3).unwrap(), b"2024-02-29 13:05:09.000");
        let t = Cell::Time { negative: true, days: 1, hours: 2, minutes: 3, seconds: 4, micros: 0 };
        assert_eq!(cell_text(&t, 0).unwrap(), b"-26:03:04");
    }

    #[test]
    fn binary_row_null_bitmap_starts_at_bit_two() {
        let cols: Vec<ColumnDef> = (0..7).map(|i| ColumnDef::expr(&i.to_string(), column_type::LONGLONG)).collect();
        let mut row = vec![Cell::Int(1); 7];
        row[6] = Cell::Null;
        let mut buf = Vec::new();
        binary_row(&mut buf, &cols, &row);
        // Column 6 is bit 8: the second bitmap byte's lowest bit.
        assert_eq!(&buf[..3], &[0x00, 0x00, 0x01]);
        assert_eq!(buf.len(), 3 + 6 * 8);
    }
}
