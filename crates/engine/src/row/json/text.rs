//! JSON text: the parser and MySQL's normalised printing.
//!
//! The parser follows rapidjson, which MySQL 8.0 parses with, closely
//! enough that errors carry the same message and byte position (MySQL's
//! 3140 / 3141 quote both: `"Missing a comma or '}' after an object
//! member." at position 8`). Numbers: an integer that fits `i64` is an
//! integer, one that fits only `u64` an unsigned integer, anything else
//! (a fraction, an exponent, a larger integer) a double; a double beyond
//! the finite range is an error. Strings may hold any escape of RFC 8259;
//! a raw control character is an error. Duplicate keys: the last wins.
//! Nesting deeper than [`MAX_DEPTH`] is [`ParseError::TooDeep`].
//!
//! Printing is MySQL's `Json_wrapper::to_string`: `", "` between array
//! elements and object members, `": "` after keys, keys in the object's
//! order (invariant 1 of the module), doubles with their shortest digits
//! and `.0` added when those have neither a point nor an exponent,
//! DECIMALs with their scale, DATE / DATETIME / TIME quoted, the latter
//! two with six fractional digits (`my_TIME_to_str(.., 6)`), and strings
//! escaped as MySQL's `double_quote` does (`\"`, `\\`, `\b \f \n \r \t`,
//! other bytes below 0x1f as `\u00xx`; nothing else, so `/` and non-ASCII
//! characters are left as they are).

use super::{Json, Object, MAX_DEPTH};
use crate::row::{float, time};

/// Why text is not a JSON document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// rapidjson's message and the byte offset it reports.
    Syntax { message: &'static str, position: usize },
    /// Arrays and objects nest deeper than [`MAX_DEPTH`] (MySQL's 3157).
    TooDeep,
}

const EMPTY: &str = "The document is empty.";
const NOT_SINGULAR: &str = "The document root must not be followed by other values.";
const INVALID_VALUE: &str = "Invalid value.";
const MISS_NAME: &str = "Missing a name for object member.";
const MISS_COLON: &str = "Missing a colon after a name of object member.";
const MISS_COMMA_OR_CURLY: &str = "Missing a comma or '}' after an object member.";
const MISS_COMMA_OR_SQUARE: &str = "Missing a comma or ']' after an array element.";
const BAD_HEX: &str = "Incorrect hex digit after \\u escape in string.";
const BAD_SURROGATE: &str = "The surrogate pair in string is invalid.";
const BAD_ESCAPE: &str = "Invalid escape character in string.";
const MISS_QUOTE: &str = "Missing a closing quotation mark in string.";
const BAD_ENCODING: &str = "Invalid encoding in string.";
const TOO_BIG: &str = "Number too big to be stored in double.";
const MISS_FRACTION: &str = "Miss fraction part in number.";
const MISS_EXPONENT: &str = "Miss exponent in number.";

type Parsed<T> = std::result::Result<T, ParseError>;

fn syntax<T>(message: &'static str, position: usize) -> Parsed<T> {
    Err(ParseError::Syntax { message, position })
}

/// Parses a whole document.
pub fn parse(s: &str) -> Parsed<Json> {
    let mut p = Parser { b: s.as_bytes(), pos: 0 };
    p.skip_ws();
    if p.peek().is_none() {
        return syntax(EMPTY, p.pos);
    }
    let v = p.value(0)?;
    p.skip_ws();
    if p.peek().is_some() {
        return syntax(NOT_SINGULAR, p.pos);
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A value at nesting `level` (the number of arrays and objects
    /// around it).
    fn value(&mut self, level: usize) -> Parsed<Json> {
        match self.peek() {
            Some(b'n') => self.word(b"null", Json::Null),
            Some(b't') => self.word(b"true", Json::Bool(true)),
            Some(b'f') => self.word(b"false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'{') | Some(b'[') if level >= MAX_DEPTH => Err(ParseError::TooDeep),
            Some(b'{') => self.object(level),
            Some(b'[') => self.array(level),
            _ => self.number(),
        }
    }

    /// `null`, `true`, `false`: the first letter is there; an error is
    /// at the first letter that differs (rapidjson's `Consume` chain).
    fn word(&mut self, w: &[u8], v: Json) -> Parsed<Json> {
        self.pos += 1;
        for &c in &w[1..] {
            if !self.consume(c) {
                return syntax(INVALID_VALUE, self.pos);
            }
        }
        Ok(v)
    }

    fn object(&mut self, level: usize) -> Parsed<Json> {
        self.pos += 1;
        self.skip_ws();
        let mut o = Object::new();
        if self.consume(b'}') {
            return Ok(Json::Object(o));
        }
        loop {
            if self.peek() != Some(b'"') {
                return syntax(MISS_NAME, self.pos);
            }
            let key = self.string()?;
            self.skip_ws();
            if !self.consume(b':') {
                return syntax(MISS_COLON, self.pos);
            }
            self.skip_ws();
            let v = self.value(level + 1)?;
            o.insert(key, v);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(o));
                }
                _ => return syntax(MISS_COMMA_OR_CURLY, self.pos),
            }
        }
    }

    fn array(&mut self, level: usize) -> Parsed<Json> {
        self.pos += 1;
        self.skip_ws();
        let mut a = Vec::new();
        if self.consume(b']') {
            return Ok(Json::Array(a));
        }
        loop {
            a.push(self.value(level + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(a));
                }
                _ => return syntax(MISS_COMMA_OR_SQUARE, self.pos),
            }
        }
    }

    fn hex4(&mut self, escape_at: usize) -> Parsed<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.peek().and_then(|c| (c as char).to_digit(16));
            match d {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                }
                None => return syntax(BAD_HEX, escape_at),
            }
        }
        Ok(v)
    }

    /// A string; the opening quote is at `pos`.
    fn string(&mut self) -> Parsed<String> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else { return syntax(MISS_QUOTE, self.pos) };
            match c {
                b'"' => {
                    self.pos += 1;
                    // The input is UTF-8 and escapes add whole characters.
                    return String::from_utf8(out).or_else(|_| syntax(BAD_ENCODING, self.pos));
                }
                b'\\' => {
                    let escape_at = self.pos;
                    self.pos += 1;
                    let e = self.peek();
                    self.pos += 1;
                    let simple = match e {
                        Some(b'"') => Some(b'"'),
                        Some(b'\\') => Some(b'\\'),
                        Some(b'/') => Some(b'/'),
                        Some(b'b') => Some(0x08),
                        Some(b'f') => Some(0x0c),
                        Some(b'n') => Some(b'\n'),
                        Some(b'r') => Some(b'\r'),
                        Some(b't') => Some(b'\t'),
                        _ => None,
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    if e != Some(b'u') {
                        return syntax(BAD_ESCAPE, escape_at);
                    }
                    let mut cp = self.hex4(escape_at)?;
                    if (0xD800..0xDC00).contains(&cp) {
                        if !(self.consume(b'\\') && self.consume(b'u')) {
                            return syntax(BAD_SURROGATE, escape_at);
                        }
                        let lo = self.hex4(escape_at)?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return syntax(BAD_SURROGATE, escape_at);
                        }
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (0xDC00..0xE000).contains(&cp) {
                        return syntax(BAD_SURROGATE, escape_at);
                    }
                    let ch =
                        char::from_u32(cp).ok_or(ParseError::Syntax { message: BAD_SURROGATE, position: escape_at })?;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return syntax(BAD_ENCODING, self.pos),
                c => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn number(&mut self) -> Parsed<Json> {
        let start = self.pos;
        let negative = self.consume(b'-');
        let digits = |p: &mut Self| {
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
        };
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => digits(self),
            _ => return syntax(INVALID_VALUE, self.pos),
        }
        let mut integer = true;
        if self.consume(b'.') {
            integer = false;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return syntax(MISS_FRACTION, self.pos);
            }
            digits(self);
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return syntax(MISS_EXPONENT, self.pos);
            }
            digits(self);
        }
        // ASCII digits and signs only, so this is UTF-8.
        let text = std::str::from_utf8(&self.b[start..self.pos]).unwrap_or("0");
        if integer {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Json::Int(i));
            }
            if !negative {
                if let Ok(u) = text.parse::<u64>() {
                    return Ok(Json::UInt(u));
                }
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Json::Double(float::normalize(f))),
            _ => syntax(TOO_BIG, start),
        }
    }
}

/// Appends `j`'s normalised text to `out`.
pub fn write(j: &Json, out: &mut String) {
    match j {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(i) => out.push_str(&i.to_string()),
        Json::UInt(u) => out.push_str(&u.to_string()),
        Json::Double(f) => write_double(*f, out),
        Json::Decimal(d) => out.push_str(&d.to_string()),
        Json::Str(s) => write_string(s, out),
        Json::Date(d) => {
            out.push('"');
            out.push_str(&d.to_string());
            out.push('"');
        }
        Json::DateTime(dt) => {
            out.push('"');
            out.push_str(&dt.format(6));
            out.push('"');
        }
        Json::Time(us) => {
            out.push('"');
            out.push_str(&time::format(*us, 6));
            out.push('"');
        }
        Json::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(v, out);
            }
            out.push(']');
        }
        Json::Object(o) => {
            out.push('{');
            for (i, (k, v)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_string(k, out);
                out.push_str(": ");
                write(v, out);
            }
            out.push('}');
        }
    }
}

/// A double as MySQL prints it inside JSON: its shortest digits, with
/// `.0` when they would read back as an integer.
pub fn write_double(f: f64, out: &mut String) {
    let s = float::format_double(f);
    let looks_integral = !s.contains(['.', 'e']);
    out.push_str(&s);
    if looks_integral {
        out.push_str(".0");
    }
}

/// A string quoted and escaped as MySQL's `double_quote`.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // MySQL escapes bytes below 0x1f (not 0x1f itself).
            c if (c as u32) < 0x1f => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        parse(s).unwrap().to_string()
    }

    fn err(s: &str) -> (&'static str, usize) {
        match parse(s) {
            Err(ParseError::Syntax { message, position }) => (message, position),
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn output_is_mysql_normalised_text() {
        // The examples of MySQL 8.0's manual ("Normalization, Merging,
        // and Autowrapping of JSON Values").
        assert_eq!(norm(r#"{"x": 17, "x": "red"}"#), r#"{"x": "red"}"#);
        assert_eq!(norm(r#"{"x": 17, "x": "red", "x": [3, 5, 7]}"#), r#"{"x": [3, 5, 7]}"#);
        assert_eq!(norm(r#"{"a":1,"b":[1,2]}"#), r#"{"a": 1, "b": [1, 2]}"#);
        // Keys by length first, then bytes.
        assert_eq!(norm(r#"{"bb":1,"a":2,"c":3,"B":4}"#), r#"{"B": 4, "a": 2, "c": 3, "bb": 1}"#);
        assert_eq!(
            norm("[1.0, 1e2, 0.5, -3, 18446744073709551615, 1E-7]"),
            "[1.0, 100.0, 0.5, -3, 18446744073709551615, 0.0000001]"
        );
        assert_eq!(norm(r#""a\/b\u00e9\n\u001f""#), "\"a/bé\\n\u{1f}\"");
        assert_eq!(norm(" [ ] "), "[]");
        assert_eq!(norm("{}"), "{}");
        assert_eq!(norm("\"\\ud83d\\ude00\""), "\"😀\"");
    }

    #[test]
    fn numbers_keep_their_kind() {
        assert_eq!(parse("9223372036854775807").unwrap(), Json::Int(i64::MAX));
        assert_eq!(parse("9223372036854775808").unwrap(), Json::UInt(1 << 63));
        assert_eq!(parse("-9223372036854775809").unwrap(), Json::Double(-9223372036854775809.0));
        assert_eq!(parse("-0").unwrap(), Json::Int(0));
        assert_eq!(parse("1.5").unwrap(), Json::Double(1.5));
    }

    #[test]
    fn errors_carry_rapidjsons_message_and_position() {
        assert_eq!(err(""), (EMPTY, 0));
        assert_eq!(err("  "), (EMPTY, 2));
        assert_eq!(err("abc"), (INVALID_VALUE, 0));
        assert_eq!(err("tru"), (INVALID_VALUE, 3));
        assert_eq!(err("[1,]"), (INVALID_VALUE, 3));
        assert_eq!(err("[1 2]"), (MISS_COMMA_OR_SQUARE, 3));
        assert_eq!(err(r#"{"a":1"#), (MISS_COMMA_OR_CURLY, 6));
        assert_eq!(err(r#"{"a" 1}"#), (MISS_COLON, 5));
        assert_eq!(err(r#"{a:1}"#), (MISS_NAME, 1));
        assert_eq!(err(r#"{"a":1,}"#), (MISS_NAME, 7));
        assert_eq!(err(r#""abc"#), (MISS_QUOTE, 4));
        assert_eq!(err(r#""a\x""#), (BAD_ESCAPE, 2));
        assert_eq!(err(r#""\u12g4""#), (BAD_HEX, 1));
        assert_eq!(err(r#""\ud800x""#), (BAD_SURROGATE, 1));
        assert_eq!(err("\"a\u{1}\""), (BAD_ENCODING, 2));
        assert_eq!(err("1."), (MISS_FRACTION, 2));
        assert_eq!(err("1e+"), (MISS_EXPONENT, 3));
        assert_eq!(err("-"), (INVALID_VALUE, 1));
        assert_eq!(err("1e999"), (TOO_BIG, 0));
        assert_eq!(err("1 2"), (NOT_SINGULAR, 2));
    }

    #[test]
    fn nesting_beyond_the_maximum_depth_is_refused() {
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert_eq!(parse(&ok).unwrap().depth(), MAX_DEPTH);
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep), Err(ParseError::TooDeep));
        let deep_objects = r#"{"a":"#.repeat(MAX_DEPTH + 1) + "1" + &"}".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep_objects), Err(ParseError::TooDeep));
    }
}
