//! Binary strings in expressions: hex and bit literals, the `_binary`
//! introducer, CAST(.. AS BINARY[(n)]) / BINARY x, and the string
//! functions on [`Value::Bytes`] operands (which work on bytes, not
//! characters, as MySQL's do on the `binary` character set).
//!
//! Invariants:
//! 1. A function here returns `Value::Bytes` exactly when MySQL's result
//!    has the binary character set: one bytes operand makes CONCAT,
//!    SUBSTRING, LEFT ... binary; HEX and LENGTH give text and numbers.
//! 2. Hex literals (`X'0A'`, `0x0A`) and bit literals (`b'101'`, `0b101`)
//!    are binary strings, except as an operand of arithmetic or of a
//!    comparison with a number, where they are the unsigned integer of
//!    their bytes (MySQL 8.0's rule for both spellings; MariaDB reads
//!    `X'..'` as a string there — the parser cannot tell the spellings
//!    apart). This is decided when compiling: a VARBINARY column's value
//!    in arithmetic reads as its text, as MySQL's does.
//! 3. Text is never made of bytes that are not UTF-8: a function that
//!    builds text from such an operand is an error (1300), not U+FFFD.

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::expr::{as_string, to_i128, BinOp, Expr};

/// The functions of this module callable by name, with their argument
/// counts.
pub const FUNCS: &[(&str, usize, usize)] = &[("unhex", 1, 1), ("bin", 1, 1)];

/// The bytes of a hex literal's digits (`0A FF`); an odd count has a
/// leading 0 (as `0xA` is).
pub fn hex_literal(h: &str) -> Result<Vec<u8>> {
    let padded = if h.len() % 2 == 1 { format!("0{h}") } else { h.to_string() };
    decode_hex(&padded).ok_or_else(|| SqlError::syntax(format!("bad hexadecimal literal X'{h}'")))
}

fn decode_hex(h: &str) -> Option<Vec<u8>> {
    if h.len() % 2 == 1 {
        return None;
    }
    (0..h.len() / 2).map(|i| u8::from_str_radix(h.get(2 * i..2 * i + 2)?, 16).ok()).collect()
}

/// The bytes of a bit literal's digits (`b'101'` is 0x05): right-aligned
/// in ceil(bits / 8) bytes.
pub fn bit_literal(b: &str) -> Result<Vec<u8>> {
    if !b.bytes().all(|c| c == b'0' || c == b'1') {
        return Err(SqlError::syntax(format!("bad bit literal b'{b}'")));
    }
    let n = b.len().div_ceil(8);
    let mut out = vec![0u8; n];
    for (i, c) in b.bytes().rev().enumerate() {
        if c == b'1' {
            out[n - 1 - i / 8] |= 1 << (i % 8);
        }
    }
    Ok(out)
}

/// Bytes as a big-endian unsigned integer (the last 8 when longer, as
/// MySQL keeps the low 64 bits).
pub fn bytes_to_u64(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| acc.wrapping_shl(8) | u64::from(x))
}

/// A hex or bit literal as the number it is in numeric context; any
/// other expression unchanged.
pub fn numeric_literal(e: Expr) -> Expr {
    match e {
        Expr::Lit(Value::Bytes(b)) => Expr::Lit(Value::UInt(bytes_to_u64(&b))),
        e => e,
    }
}

fn is_numeric(e: &Expr) -> bool {
    matches!(e, Expr::Lit(Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)) | Expr::Neg(_))
        || matches!(e, Expr::Bin(op, ..) if is_arithmetic(*op))
}

fn is_arithmetic(op: BinOp) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::IntDiv | BinOp::Mod)
}

/// The operands of `l op r` with hex and bit literals made numbers where
/// MySQL reads them as numbers (invariant 2).
pub fn numeric_operands(op: BinOp, l: Expr, r: Expr) -> (Expr, Expr) {
    let literal = |e: &Expr| matches!(e, Expr::Lit(Value::Bytes(_)));
    if !literal(&l) && !literal(&r) {
        return (l, r);
    }
    if is_arithmetic(op) {
        return (numeric_literal(l), numeric_literal(r));
    }
    let comparison =
        matches!(op, BinOp::Eq | BinOp::NullSafeEq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    if comparison && (is_numeric(&l) || is_numeric(&r)) {
        return (numeric_literal(l), numeric_literal(r));
    }
    (l, r)
}

/// `_charset 'literal'`: `_binary` makes a binary string; the UTF-8
/// character sets keep (or make) text; others are refused.
pub fn introduced(prefix: &str, e: Expr) -> Result<Expr> {
    let cs = prefix.trim_start_matches('_').to_ascii_lowercase();
    let Expr::Lit(v) = e else {
        return Err(SqlError::syntax(format!("{prefix} must introduce a literal")));
    };
    Ok(Expr::Lit(match (cs.as_str(), v) {
        ("binary", Value::Str(s)) => Value::Bytes(s.into_bytes()),
        ("binary", v @ Value::Bytes(_)) => v,
        ("utf8mb4" | "utf8" | "utf8mb3", v @ Value::Str(_)) => v,
        ("utf8mb4" | "utf8" | "utf8mb3", Value::Bytes(b)) => Value::Str(utf8(b, prefix)?),
        ("latin1" | "ascii", Value::Str(s)) => Value::Str(s),
        ("utf8mb4" | "utf8" | "utf8mb3" | "binary" | "latin1" | "ascii", other) => other,
        _ => return Err(SqlError::new(1115, "42000", format!("Unknown character set: '{cs}'"))),
    }))
}

fn utf8(b: Vec<u8>, what: &str) -> Result<String> {
    String::from_utf8(b).map_err(|e| invalid_utf8(e.as_bytes(), what))
}

/// 1300 for bytes that are no UTF-8 text, naming the first bad ones as
/// MySQL does.
pub fn invalid_utf8(b: &[u8], _what: &str) -> SqlError {
    let at = std::str::from_utf8(b).err().map_or(0, |e| e.valid_up_to());
    let shown: String = b[at..].iter().take(3).map(|x| format!("\\x{x:02X}")).collect();
    SqlError::new(1300, "HY000", format!("Invalid utf8mb4 character string: '{shown}'"))
}

/// CAST(x AS BINARY[(n)]) (and `BINARY x`): `None` for another type.
pub fn cast(ty: &str, x: Expr) -> Result<Option<Expr>> {
    let t = ty.trim();
    let Some(rest) = t.strip_prefix("BINARY") else { return Ok(None) };
    let rest = rest.trim();
    let mut args = vec![x];
    if let Some(n) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let n: i64 = n.trim().parse().map_err(|_| SqlError::syntax(format!("bad length in CAST AS {t}")))?;
        args.push(Expr::Lit(Value::Int(n)));
    } else if !rest.is_empty() {
        return Ok(None);
    }
    Ok(Some(Expr::Func("cast_binary".into(), args)))
}

/// A value's bytes (text as its UTF-8, numbers as their text).
pub fn bytes_of(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b.clone(),
        Value::Str(s) => s.as_bytes().to_vec(),
        Value::Null => Vec::new(),
        other => other.to_string().into_bytes(),
    }
}

/// Bytes as text the way MariaDB shows a binary value in text (SHOW
/// CREATE TABLE's DEFAULT, SHOW COLUMNS): UTF-8 as it is, each byte of an
/// invalid sequence as `?`.
pub fn lossy_text(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    let mut rest = b;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (ok, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(ok).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                out.extend(std::iter::repeat_n('?', n));
                rest = &bad[n..];
            }
        }
    }
}

/// A binary DEFAULT as SHOW CREATE TABLE prints it (MariaDB's way: the
/// value as text, quoted).
pub fn default_sql(b: &[u8]) -> String {
    let mut out = String::from("'");
    for c in lossy_text(b).chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x1a' => out.push_str("\\Z"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Bytes as MySQL quotes a bad value in a message: from the first byte
/// that is not UTF-8, at most 6 bytes, printable ASCII as it is and the
/// others as `\xNN`, `...` when cut.
pub fn printable(b: &[u8]) -> String {
    let at = std::str::from_utf8(b).err().map_or(0, |e| e.valid_up_to());
    let mut out: String = b[at..]
        .iter()
        .take(6)
        .map(|&x| if (0x20..0x7f).contains(&x) { char::from(x).to_string() } else { format!("\\x{x:02X}") })
        .collect();
    if b.len() - at > 6 {
        out.push_str("...");
    }
    out
}

/// `BINARY x op y`: the parser makes it CAST((x op y) AS BINARY), but
/// BINARY binds tighter than any operator in MySQL, so the cast goes onto
/// the leftmost operand: (BINARY x) op y. (An explicit CAST(x = y AS
/// BINARY) is read the same way; that spelling is rare.)
pub fn rebind_binary_cast(e: &sqlparser::ast::Expr) -> Option<sqlparser::ast::Expr> {
    use sqlparser::ast::Expr as E;
    let cast = |x: &E| E::Cast {
        kind: sqlparser::ast::CastKind::Cast,
        expr: Box::new(x.clone()),
        data_type: sqlparser::ast::DataType::Binary(None),
        format: None,
    };
    let lead = |x: &E| rebind_binary_cast(x).unwrap_or_else(|| cast(x));
    Some(match e {
        E::BinaryOp { left, op, right } => {
            E::BinaryOp { left: Box::new(lead(left)), op: op.clone(), right: right.clone() }
        }
        E::Like { negated, any, expr, pattern, escape_char } => E::Like {
            negated: *negated,
            any: *any,
            expr: Box::new(lead(expr)),
            pattern: pattern.clone(),
            escape_char: escape_char.clone(),
        },
        E::Between { expr, negated, low, high } => {
            E::Between { expr: Box::new(lead(expr)), negated: *negated, low: low.clone(), high: high.clone() }
        }
        E::InList { expr, list, negated } => {
            E::InList { expr: Box::new(lead(expr)), list: list.clone(), negated: *negated }
        }
        E::IsNull(x) => E::IsNull(Box::new(lead(x))),
        E::IsNotNull(x) => E::IsNotNull(Box::new(lead(x))),
        _ => return None,
    })
}

/// Functions that build text from their operands: with a binary operand
/// that is not UTF-8 they are 1300 (invariant 3).
const TEXT_BUILDERS: &[&str] = &[
    "lpad",
    "rpad",
    "substring_index",
    "quote",
    "elt",
    "field",
    "find_in_set",
    "strcmp",
    "insert",
    "date_format",
    "str_to_date",
    "cast_char",
];

/// A function call with a binary operand (or one that makes bytes):
/// `None` when it is not one, for `func::call` to answer. Cheap when no
/// operand is binary.
pub fn call(name: &str, args: &[Value]) -> Result<Option<Value>> {
    let binary_arg = args.iter().any(|a| matches!(a, Value::Bytes(_)));
    if !binary_arg && !matches!(name, "unhex" | "cast_binary" | "bin") {
        return Ok(None);
    }
    if args.iter().any(Value::is_null) && !matches!(name, "concat_ws" | "coalesce" | "ifnull" | "if" | "nullif") {
        // The functions below are NULL on a NULL operand; the others
        // (CONCAT_WS, COALESCE ...) are answered by `func::call`.
        if handles(name) {
            return Ok(Some(Value::Null));
        }
    }
    let a0 = || args.first().map(bytes_of).unwrap_or_default();
    let int = |i: usize| args.get(i).and_then(to_i128).unwrap_or(0);
    Ok(Some(match name {
        "unhex" => {
            let t = as_string(&args[0]);
            let t = if t.len() % 2 == 1 { format!("0{t}") } else { t };
            decode_hex(&t).map_or(Value::Null, Value::Bytes)
        }
        "bin" => match to_i128(&args[0]) {
            Some(n) => Value::Str(format!("{:b}", n as i64 as u64)),
            None => Value::Null,
        },
        "cast_binary" => {
            let mut b = a0();
            if let Some(n) = args.get(1) {
                let n = to_i128(n).unwrap_or(0).max(0) as usize;
                // Truncation is warned by the caller (`cast_binary_warning`).
                b.resize(n, 0);
            }
            Value::Bytes(b)
        }
        "hex" => Value::Str(a0().iter().map(|b| format!("{b:02X}")).collect()),
        "concat" => Value::Bytes(args.iter().flat_map(bytes_of).collect()),
        "concat_ws" => {
            if args[0].is_null() {
                Value::Null
            } else {
                let sep = bytes_of(&args[0]);
                let parts: Vec<Vec<u8>> = args[1..].iter().filter(|v| !v.is_null()).map(bytes_of).collect();
                Value::Bytes(parts.join(sep.as_slice()))
            }
        }
        "length" | "octet_length" | "char_length" | "character_length" => Value::Int(a0().len() as i64),
        "bit_length" => Value::Int(a0().len() as i64 * 8),
        // Case has no meaning for bytes: UPPER and LOWER leave them.
        "upper" | "ucase" | "lower" | "lcase" => Value::Bytes(a0()),
        "trim" => Value::Bytes(trim(&a0(), true, true)),
        "ltrim" => Value::Bytes(trim(&a0(), true, false)),
        "rtrim" => Value::Bytes(trim(&a0(), false, true)),
        "reverse" => Value::Bytes(a0().into_iter().rev().collect()),
        "ascii" | "ord" => Value::Int(a0().first().copied().map_or(0, i64::from)),
        "substring" | "substr" => {
            let s = a0();
            let pos = int(1);
            let start = if pos > 0 {
                (pos - 1) as usize
            } else if pos < 0 {
                s.len().saturating_sub(pos.unsigned_abs() as usize)
            } else {
                s.len()
            };
            let len = if args.len() > 2 { int(2).max(0) as usize } else { s.len() };
            Value::Bytes(s.iter().skip(start).take(len).copied().collect())
        }
        "left" | "right" => {
            let s = a0();
            let n = (int(1).max(0) as usize).min(s.len());
            Value::Bytes(if name == "left" { s[..n].to_vec() } else { s[s.len() - n..].to_vec() })
        }
        "repeat" => {
            let s = a0();
            let n = int(1).clamp(0, 1 << 30) as usize;
            if s.len().saturating_mul(n) > 64 << 20 {
                Value::Null
            } else {
                Value::Bytes(s.repeat(n))
            }
        }
        "replace" => {
            let (s, from, to) = (a0(), bytes_of(&args[1]), bytes_of(&args[2]));
            Value::Bytes(replace(&s, &from, &to))
        }
        "instr" => Value::Int(find(&a0(), &bytes_of(&args[1]), 0)),
        "locate" => {
            let from = if args.len() > 2 { int(2) } else { 1 };
            if from < 1 {
                Value::Int(0)
            } else {
                Value::Int(find(&bytes_of(&args[1]), &a0(), from as usize - 1))
            }
        }
        "md5" | "sha1" | "sha" | "sha2" => {
            // Digests of the bytes themselves: text stands in for them
            // only when they are UTF-8.
            return digest(name, args);
        }
        n if TEXT_BUILDERS.contains(&n) => {
            for a in args {
                if let Value::Bytes(b) = a {
                    if std::str::from_utf8(b).is_err() {
                        return Err(invalid_utf8(b, n));
                    }
                }
            }
            return Ok(None);
        }
        _ => return Ok(None),
    }))
}

fn handles(name: &str) -> bool {
    matches!(
        name,
        "unhex"
            | "bin"
            | "cast_binary"
            | "hex"
            | "concat"
            | "length"
            | "octet_length"
            | "char_length"
            | "character_length"
            | "bit_length"
            | "upper"
            | "ucase"
            | "lower"
            | "lcase"
            | "trim"
            | "ltrim"
            | "rtrim"
            | "reverse"
            | "ascii"
            | "ord"
            | "substring"
            | "substr"
            | "left"
            | "right"
            | "repeat"
            | "replace"
            | "instr"
            | "locate"
            | "md5"
            | "sha1"
            | "sha"
            | "sha2"
    )
}

fn trim(b: &[u8], start: bool, end: bool) -> Vec<u8> {
    let mut s = b;
    while start && s.first() == Some(&b' ') {
        s = &s[1..];
    }
    while end && s.last() == Some(&b' ') {
        s = &s[..s.len() - 1];
    }
    s.to_vec()
}

fn replace(s: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The 1-based position of `needle` in `hay` at or after byte `from`; 0
/// when absent.
fn find(hay: &[u8], needle: &[u8], from: usize) -> i64 {
    if from > hay.len() {
        return 0;
    }
    if needle.is_empty() {
        return from as i64 + 1;
    }
    hay[from..].windows(needle.len()).position(|w| w == needle).map_or(0, |p| (p + from) as i64 + 1)
}

fn digest(name: &str, args: &[Value]) -> Result<Option<Value>> {
    use sha1::Digest;
    let b = args.first().map(bytes_of).unwrap_or_default();
    let hex = |d: &[u8]| d.iter().map(|x| format!("{x:02x}")).collect::<String>();
    Ok(Some(match name {
        "md5" => Value::Str(hex(&md5::Md5::digest(&b))),
        "sha1" | "sha" => Value::Str(hex(&sha1::Sha1::digest(&b))),
        _ => {
            let bits = args.get(1).and_then(to_i128).unwrap_or(-1);
            let d = match bits {
                0 | 256 => sha2::Sha256::digest(&b).to_vec(),
                224 => sha2::Sha224::digest(&b).to_vec(),
                384 => sha2::Sha384::digest(&b).to_vec(),
                512 => sha2::Sha512::digest(&b).to_vec(),
                _ => return Ok(Some(Value::Null)),
            };
            Value::Str(hex(&d))
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_make_the_bytes_mysql_makes() {
        assert_eq!(hex_literal("0AFF").unwrap(), vec![0x0a, 0xff]);
        assert_eq!(hex_literal("A").unwrap(), vec![0x0a]);
        assert!(hex_literal("zz").is_err());
        assert_eq!(bit_literal("101").unwrap(), vec![5]);
        assert_eq!(bit_literal("1000000001").unwrap(), vec![2, 1]);
        assert_eq!(bit_literal("").unwrap(), Vec::<u8>::new());
        assert_eq!(bytes_to_u64(&[0x41]), 65);
    }

    #[test]
    fn string_functions_on_bytes_work_on_bytes() {
        let b = |x: &[u8]| Value::Bytes(x.to_vec());
        let c = |n: &str, a: &[Value]| call(n, a).unwrap().unwrap();
        assert_eq!(c("substring", &[b(&[0, 0xff, 0x80]), Value::Int(2)]), b(&[0xff, 0x80]));
        assert_eq!(c("left", &[b(&[0, 0xff, 0x80]), Value::Int(1)]), b(&[0]));
        assert_eq!(c("length", &[b(&[0xe2, 0x82, 0xac])]), Value::Int(3));
        assert_eq!(c("char_length", &[b(&[0xe2, 0x82, 0xac])]), Value::Int(3));
        assert_eq!(c("concat", &[b(&[0xff]), Value::Int(1)]), b(&[0xff, b'1']));
        assert_eq!(c("hex", &[b(&[0x0a, 0xff])]), Value::Str("0AFF".into()));
        assert_eq!(c("unhex", &[Value::Str("0aFF".into())]), b(&[0x0a, 0xff]));
        assert_eq!(c("unhex", &[Value::Str("zz".into())]), Value::Null);
        assert!(call("lpad", &[b(&[0xff]), Value::Int(3), Value::Str("x".into())]).is_err());
        assert_eq!(call("abs", &[Value::Int(1)]).unwrap(), None);
    }
}
