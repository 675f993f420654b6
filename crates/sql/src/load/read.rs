//! Splits a LOAD DATA file into records and fields as MariaDB's
//! `READ_INFO::read_field` does (`sql_load.cc`), streaming: only the
//! record being read is held, never the file.
//!
//! Rules, in the order they are tested for each byte of a field:
//! 1. A field starting with the enclosure character is enclosed; its
//!    opening character is not part of the value.
//! 2. The escape character takes the next byte literally after
//!    [`unescape`]; `\N` makes the field NULL if the field is only that.
//!    When the escape character is also the enclosure, it escapes only
//!    itself (doubling), as quotes in SQL.
//! 3. Outside an enclosure, the line terminator ends the field and the
//!    record, then the field terminator ends the field.
//! 4. In an enclosed field, the enclosure doubled is one enclosure
//!    character; followed by the line terminator, the field terminator or
//!    the end of the file it ends the field; otherwise it is data.
//! 5. The end of the file ends the record; a record is only started by a
//!    byte (a file ending in the line terminator has no empty last
//!    record, and a field terminator at the very end adds no field).

use std::io::{self, Read};

use super::format::{unescape, Format};

/// One field of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub bytes: Vec<u8>,
    /// It was enclosed (an enclosed `NULL` is the string).
    pub enclosed: bool,
    /// `\N` was read in it.
    pub saw_null: bool,
}

impl Field {
    /// MySQL's NULL: `\N` alone, or an unenclosed `NULL` when the format
    /// has an enclosure character.
    pub fn is_null(&self, f: &Format) -> bool {
        (self.saw_null && self.bytes.len() == 1) || (f.enclosed.is_some() && !self.enclosed && self.bytes == b"NULL")
    }
}

/// How a field ended.
#[derive(PartialEq, Eq)]
enum End {
    Field,
    Line,
    Eof,
}

/// Reads records from `R` with a look-ahead buffer.
pub struct Records<R> {
    r: R,
    f: Format,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

const CHUNK_BYTES: usize = 64 * 1024;

impl<R: Read> Records<R> {
    pub fn new(r: R, f: Format) -> Self {
        Self { r, f, buf: Vec::with_capacity(CHUNK_BYTES), pos: 0, eof: false }
    }

    /// At least `n` bytes past `pos` are buffered, unless the file ends
    /// first.
    fn fill(&mut self, n: usize) -> io::Result<bool> {
        while self.buf.len() - self.pos < n && !self.eof {
            if self.pos > 0 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            let have = self.buf.len();
            self.buf.resize(have + CHUNK_BYTES, 0);
            let got = loop {
                match self.r.read(&mut self.buf[have..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.buf.truncate(have);
                        return Err(e);
                    }
                }
            };
            self.buf.truncate(have + got);
            if got == 0 {
                self.eof = true;
            }
        }
        Ok(self.buf.len() - self.pos >= n)
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(if self.fill(1)? { Some(self.buf[self.pos]) } else { None })
    }

    /// Consumes `pat` if the input continues with it.
    fn eat(&mut self, pat: &[u8]) -> io::Result<bool> {
        if pat.is_empty() || !self.fill(pat.len())? || !self.buf[self.pos..].starts_with(pat) {
            return Ok(false);
        }
        self.pos += pat.len();
        Ok(true)
    }

    /// Skips to just past the next LINES STARTING BY prefix; `false` at
    /// the end of the file.
    fn skip_to_start(&mut self) -> io::Result<bool> {
        let start = std::mem::take(&mut self.f.line_start);
        let found = loop {
            if self.eat(&start)? {
                break true;
            }
            if self.peek()?.is_none() {
                break false;
            }
            self.pos += 1;
        };
        self.f.line_start = start;
        Ok(found)
    }

    /// The next record's fields into `out`; `false` at the end of the
    /// file.
    pub fn next_record(&mut self, out: &mut Vec<Field>) -> io::Result<bool> {
        out.clear();
        if !self.f.line_start.is_empty() && !self.skip_to_start()? {
            return Ok(false);
        }
        if self.peek()?.is_none() {
            return Ok(false);
        }
        loop {
            let (field, end) = self.field()?;
            out.push(field);
            match end {
                End::Field if self.peek()?.is_none() => return Ok(true), // rule 5
                End::Field => {}
                End::Line | End::Eof => return Ok(true),
            }
        }
    }

    /// Eats a line terminator (then `End::Line`) or else a field
    /// terminator (`End::Field`) at the current position, if one is there.
    fn terminator(&mut self) -> io::Result<Option<End>> {
        let lt = std::mem::take(&mut self.f.line_term);
        let line = self.eat(&lt);
        self.f.line_term = lt;
        if line? {
            return Ok(Some(End::Line));
        }
        let ft = std::mem::take(&mut self.f.field_term);
        let field = self.eat(&ft);
        self.f.field_term = ft;
        Ok(field?.then_some(End::Field))
    }

    fn field(&mut self) -> io::Result<(Field, End)> {
        let mut v = Vec::new();
        let mut saw_null = false;
        let q = self.f.enclosed;
        let enclosed = q.is_some() && self.peek()? == q;
        if enclosed {
            self.pos += 1;
        }
        loop {
            let Some(c) = self.peek()? else {
                // MariaDB keeps the opening enclosure of a field the file
                // cut short.
                if enclosed {
                    v.insert(0, q.unwrap_or_default());
                }
                return Ok((Field { bytes: v, enclosed: false, saw_null }, End::Eof));
            };
            if Some(c) == self.f.escape {
                self.pos += 1;
                let Some(next) = self.peek()? else {
                    v.push(c);
                    continue;
                };
                if self.f.escape != q || Some(next) == self.f.escape {
                    self.pos += 1;
                    saw_null |= next == b'N';
                    v.push(unescape(next));
                    continue;
                }
                // The escape is the enclosure: handled as one (rule 4).
                self.pos -= 1;
            }
            if !enclosed {
                if let Some(end) = self.terminator()? {
                    return Ok((Field { bytes: v, enclosed, saw_null }, end));
                }
            } else if Some(c) == q {
                self.pos += 1;
                if self.peek()? == q {
                    self.pos += 1;
                    v.push(c);
                    continue;
                }
                if self.peek()?.is_none() {
                    return Ok((Field { bytes: v, enclosed, saw_null }, End::Eof));
                }
                if let Some(end) = self.terminator()? {
                    return Ok((Field { bytes: v, enclosed, saw_null }, end));
                }
                v.push(c);
                continue;
            }
            self.pos += 1;
            v.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(data: &[u8], f: Format) -> Vec<Vec<Option<String>>> {
        let mut r = Records::new(data, f.clone());
        let mut out = Vec::new();
        let mut all = Vec::new();
        while r.next_record(&mut out).unwrap() {
            all.push(
                out.iter().map(|x| (!x.is_null(&f)).then(|| String::from_utf8_lossy(&x.bytes).into_owned())).collect(),
            );
        }
        all
    }

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    #[test]
    fn tab_format_with_escapes_and_nulls() {
        let got = records(b"1\ta\\tb\t\\N\n\n2\tx\\\ny\tNULL\n", Format::default());
        assert_eq!(got, vec![vec![s("1"), s("a\tb"), None], vec![s("")], vec![s("2"), s("x\ny"), s("NULL")]]);
    }

    #[test]
    fn csv_with_doubled_quotes_crlf_and_unenclosed_null() {
        let f = Format {
            field_term: b",".to_vec(),
            enclosed: Some(b'"'),
            optionally: true,
            line_term: b"\r\n".to_vec(),
            ..Format::default()
        };
        let got = records(b"\"1\",\"a \"\"q\"\" b\",NULL\r\n2,\"x,y\",\"NULL\"\r\n3,\\N,", f);
        assert_eq!(
            got,
            vec![vec![s("1"), s("a \"q\" b"), None], vec![s("2"), s("x,y"), s("NULL")], vec![s("3"), None]]
        );
    }

    #[test]
    fn line_prefix_skips_what_precedes_it() {
        let f = Format { line_start: b"xxx".to_vec(), field_term: b",".to_vec(), ..Format::default() };
        let got = records(b"xxx1,a\nno prefix\nxxx2,b\n", f);
        assert_eq!(got, vec![vec![s("1"), s("a")], vec![s("2"), s("b")]]);
    }

    #[test]
    fn records_cross_read_chunks() {
        let line = format!("{}\t{}\n", "a".repeat(70_000), "b");
        let mut data = line.repeat(3).into_bytes();
        data.pop();
        let got = records(&data, Format::default());
        assert_eq!(got.len(), 3);
        assert_eq!(got[2][1], s("b"));
    }
}
