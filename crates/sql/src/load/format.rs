//! The text format LOAD DATA reads and SELECT ... INTO OUTFILE writes: the
//! FIELDS / LINES options and MySQL's escaping.
//!
//! Escapes (with the escape character `\`): `\0` NUL, `\b`, `\n`, `\r`,
//! `\t`, `\Z` (0x1A), `\N` NULL (a field that is exactly `\N`), and `\x`
//! for any other `x` is `x`. INTO OUTFILE escapes the escape character,
//! the enclosure, the first bytes of the terminators, NUL (as `\0`) and
//! writes NULL as `\N`, so that LOAD DATA reads back what it wrote
//! (`sql_class.cc` `select_export::send_data`).

/// FIELDS / LINES options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// FIELDS TERMINATED BY (default tab).
    pub field_term: Vec<u8>,
    /// [OPTIONALLY] ENCLOSED BY (default none).
    pub enclosed: Option<u8>,
    /// OPTIONALLY: only string fields are enclosed on output.
    pub optionally: bool,
    /// ESCAPED BY (default backslash; none: no escaping).
    pub escape: Option<u8>,
    /// LINES STARTING BY (default empty).
    pub line_start: Vec<u8>,
    /// LINES TERMINATED BY (default newline).
    pub line_term: Vec<u8>,
}

impl Default for Format {
    fn default() -> Self {
        Self {
            field_term: b"\t".to_vec(),
            enclosed: None,
            optionally: false,
            escape: Some(b'\\'),
            line_start: Vec::new(),
            line_term: b"\n".to_vec(),
        }
    }
}

/// The byte an escape sequence `\c` stands for.
pub fn unescape(c: u8) -> u8 {
    match c {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'b' => 8,
        b'0' => 0,
        b'Z' => 0x1a,
        other => other,
    }
}
