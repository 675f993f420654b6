//! The bytes INTO OUTFILE and INTO DUMPFILE write for a row, as MariaDB's
//! `select_export::send_data` and `select_dump::send_data` write them.
//!
//! A value's text is what the text protocol would send for it (its
//! column type's fractional digits, FLOAT's 6 significant digits, a
//! DECIMAL's scale): [`text_of`]. OUTFILE then applies the FIELDS /
//! LINES options:
//! 1. Each line is `LINES STARTING BY`, the fields separated by `FIELDS
//!    TERMINATED BY`, then `LINES TERMINATED BY`.
//! 2. `ENCLOSED BY c` encloses every non-NULL field; with OPTIONALLY, only
//!    those of string (and temporal) type. NULL is `\N` (the escape
//!    character and N), or the word NULL when there is no escape
//!    character; it is never enclosed.
//! 3. In string fields (and in every field when the separator is a digit,
//!    a sign, `.` or `e`), the escape character writes itself before the
//!    escape character, the enclosure (or, unenclosed, the first byte of
//!    the field terminator), the first byte of the line terminator, and
//!    NUL (as `\0`); a separator that is one of `ntrb0ZN` is doubled
//!    instead, so that LOAD DATA cannot mistake it for an escape. Bytes of
//!    multi-byte UTF-8 characters are never escaped.
//!
//! Read back by LOAD DATA with the same options, the file gives the same
//! rows (`load/read.rs` undoes exactly these escapes).

use quire_engine::row::{float, DateTime, Value};

use crate::load::format::Format;
use crate::plan::MetaType;

/// Fractional digits as the text protocol prints them: the type's, or
/// for 0 (or unknown) none unless the value has some, then six.
fn frac(micros: u32, fsp: u8) -> String {
    let digits = match fsp {
        1..=6 => usize::from(fsp),
        _ if micros == 0 => return String::new(),
        _ => 6,
    };
    format!(".{}", &format!("{micros:06}")[..digits])
}

fn datetime_text(dt: &DateTime, fsp: u8) -> String {
    format!("{}{}", dt.format(0), frac(dt.micros, fsp))
}

fn time_text(us: i64, fsp: u8) -> String {
    let a = us.unsigned_abs();
    let secs = a / 1_000_000;
    let sign = if us < 0 { "-" } else { "" };
    format!("{sign}{:02}:{:02}:{:02}{}", secs / 3600, secs / 60 % 60, secs % 60, frac((a % 1_000_000) as u32, fsp))
}

/// A value's text as a column of type `ty` sends it; `None` for NULL.
pub fn text_of(v: &Value, ty: MetaType) -> Option<Vec<u8>> {
    let s = match (v, ty) {
        (Value::Null, _) => return None,
        (Value::Bytes(b), _) => return Some(b.clone()),
        (Value::Str(s), _) => return Some(s.clone().into_bytes()),
        (Value::Double(f), MetaType::Approx { single: true, scale: None }) => float::format_float(*f as f32),
        (Value::Double(f), MetaType::Approx { scale: Some(d), .. }) => float::format_fixed(*f, d),
        (Value::Double(f), _) => float::format_double(*f),
        (Value::Int(_) | Value::Decimal(_), MetaType::Decimal { scale, .. }) => {
            match crate::expr::to_decimal(v).filter(|d| d.scale < scale).and_then(|d| d.rescale(scale)) {
                Some(d) => d.to_string(),
                None => v.to_string(),
            }
        }
        (Value::DateTime(dt), MetaType::Date) => dt.date.to_string(),
        (Value::DateTime(dt), MetaType::DateTime { fsp } | MetaType::Timestamp { fsp }) => datetime_text(dt, fsp),
        (Value::DateTime(dt), _) => datetime_text(dt, 0),
        (Value::Date(d), MetaType::DateTime { fsp } | MetaType::Timestamp { fsp }) => {
            datetime_text(&DateTime { date: *d, hour: 0, minute: 0, second: 0, micros: 0 }, fsp)
        }
        (Value::Time(us), MetaType::Time { fsp }) => time_text(*us, fsp),
        (Value::Time(us), _) => time_text(*us, 0),
        (other, _) => other.to_string(),
    };
    Some(s.into_bytes())
}

/// Whether a column of type `ty` is a string for ENCLOSED / ESCAPED
/// (MySQL's STRING_RESULT: text, bytes and temporal values).
fn is_string(ty: MetaType) -> bool {
    !matches!(ty, MetaType::Int { .. } | MetaType::Decimal { .. } | MetaType::Double | MetaType::Approx { .. })
}

/// INTO OUTFILE's writer of lines (rules 1-3).
pub struct Outfile {
    f: Format,
    /// The field terminator's first byte.
    field_term: Option<u8>,
    /// The enclosure, else the field terminator's first byte.
    field_sep: Option<u8>,
    /// The line terminator's first byte.
    line_sep: Option<u8>,
    /// The separator is one of `ntrb0ZN` (doubled, not escaped).
    ambiguous_sep: bool,
    /// The separator could be part of a number (numbers escaped too).
    unsafe_sep: bool,
    /// Text is written as latin1 (one byte a character, `?` for others).
    latin1: bool,
}

impl Outfile {
    pub fn new(mut f: Format, latin1: bool) -> Self {
        let field_term = f.field_term.first().copied();
        if field_term.is_none() {
            f.optionally = false;
        }
        let field_sep = f.enclosed.or(field_term);
        Outfile {
            field_term,
            field_sep,
            line_sep: f.line_term.first().copied(),
            ambiguous_sep: field_sep.is_some_and(|c| b"ntrb0ZN".contains(&c)),
            unsafe_sep: field_sep.is_some_and(|c| b".0123456789e+-".contains(&c)),
            latin1,
            f,
        }
    }

    fn encode(&self, text: Vec<u8>, is_text: bool) -> Vec<u8> {
        if !(self.latin1 && is_text) {
            return text;
        }
        String::from_utf8_lossy(&text).chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect()
    }

    /// Appends one row's line to `out`.
    pub fn line(&self, row: &[Value], types: &[MetaType], out: &mut Vec<u8>) {
        out.extend_from_slice(&self.f.line_start);
        for (i, v) in row.iter().enumerate() {
            let ty = types.get(i).copied().unwrap_or(MetaType::Null);
            let string = is_string(ty);
            let enclosed = self.f.enclosed.filter(|_| !self.f.optionally || string);
            match text_of(v, ty) {
                None => match self.f.escape {
                    Some(e) => out.extend_from_slice(&[e, b'N']),
                    None => out.extend_from_slice(b"NULL"),
                },
                Some(text) => {
                    let mb = !self.latin1 && matches!(v, Value::Str(_));
                    let text = self.encode(text, matches!(v, Value::Str(_)));
                    out.extend(enclosed);
                    match self.f.escape {
                        Some(esc) if string || self.unsafe_sep => self.escaped(&text, esc, enclosed.is_some(), mb, out),
                        _ => out.extend_from_slice(&text),
                    }
                    out.extend(enclosed);
                }
            }
            if i + 1 < row.len() {
                out.extend_from_slice(&self.f.field_term);
            }
        }
        out.extend_from_slice(&self.f.line_term);
    }

    fn escaped(&self, text: &[u8], esc: u8, enclosed: bool, mb: bool, out: &mut Vec<u8>) {
        let sep = if enclosed { self.field_sep } else { self.field_term };
        for &x in text {
            if mb && x >= 0x80 {
                out.push(x);
                continue;
            }
            let needs = x == esc || Some(x) == sep || Some(x) == self.line_sep || x == 0;
            if needs {
                let lead = if Some(x) == self.field_sep && self.ambiguous_sep { x } else { esc };
                out.extend_from_slice(&[lead, if x == 0 { b'0' } else { x }]);
            } else {
                out.push(x);
            }
        }
    }
}

/// INTO DUMPFILE's bytes for a row: each value's text, NULL a NUL byte.
pub fn dump(row: &[Value], types: &[MetaType], out: &mut Vec<u8>) {
    for (i, v) in row.iter().enumerate() {
        match text_of(v, types.get(i).copied().unwrap_or(MetaType::Null)) {
            Some(t) => out.extend_from_slice(&t),
            None => out.push(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(f: Format, row: &[Value], types: &[MetaType]) -> String {
        let mut out = Vec::new();
        Outfile::new(f, false).line(row, types, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn defaults_escape_what_load_data_would_misread() {
        let s = |x: &str| Value::Str(x.into());
        let text = MetaType::Str { len: 10, fixed: false };
        let int = MetaType::Int { unsigned: false, width: 4 };
        let row = [Value::Int(1), s("a\tb\\c\nd\0é"), Value::Null];
        assert_eq!(line(Format::default(), &row, &[int, text, text]), "1\ta\\\tb\\\\c\\\nd\\0é\t\\N\n");
    }

    #[test]
    fn optionally_enclosed_encloses_strings_and_escapes_the_quote() {
        let f = Format { field_term: b",".to_vec(), enclosed: Some(b'"'), optionally: true, ..Format::default() };
        let text = MetaType::Str { len: 10, fixed: false };
        let dec = MetaType::Decimal { precision: 5, scale: 2 };
        let row = [Value::Int(7), Value::Str("say \"hi\", ok".into()), Value::Null];
        assert_eq!(line(f, &row, &[dec, text, text]), "7.00,\"say \\\"hi\\\", ok\",\\N\n");
    }

    #[test]
    fn values_print_with_their_types_digits() {
        let dt = DateTime::parse("2020-01-02 03:04:05.5").unwrap();
        assert_eq!(text_of(&Value::DateTime(dt), MetaType::DateTime { fsp: 2 }).unwrap(), b"2020-01-02 03:04:05.50");
        assert_eq!(text_of(&Value::Time(-3_600_000_000), MetaType::Time { fsp: 1 }).unwrap(), b"-01:00:00.0");
        assert_eq!(text_of(&Value::Double(0.1), MetaType::Approx { single: true, scale: None }).unwrap(), b"0.1");
    }
}
