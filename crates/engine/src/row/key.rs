//! Memcomparable key encoding: the bytes of two encoded keys compare as the
//! SQL values do (under the column's collation). Every column's encoding is
//! self-delimiting, so a composite key is the concatenation of its parts and
//! a prefix of columns is a byte prefix (docs/FORMAT.md, "Index keys").
//!
//! ```text
//! nullable column   0x00 = NULL (sorts first) | 0x01 then the value
//! signed int        big-endian, width of the type, sign bit flipped
//! unsigned int      big-endian, width of the type
//! DECIMAL(p,s)      coefficient at scale s: 8 bytes (p <= 18) or 16, sign-flipped big-endian
//! FLOAT             4 bytes big-endian of the IEEE single, sign bit flipped
//!                   for positives, all bits for negatives (-0 keyed as 0)
//! DOUBLE            8 bytes, the same for the IEEE double
//! DATE              3 bytes big-endian of (y*13+m)*32+d
//! DATETIME          8 bytes sign-flipped big-endian of the packed value
//! TIME              8 bytes sign-flipped big-endian of the microseconds
//! CHAR/VARCHAR      collation weights in 8-byte chunks (last one padded with
//!                   the weight of a space), each chunk followed by a marker:
//!                   1 = the rest sorts below spaces, 2 = end, 3 = the rest
//!                   sorts above spaces. Trailing spaces are dropped first.
//!                   This gives PAD SPACE comparison exactly.
//! BINARY/VARBINARY  the bytes in 8-byte chunks (the last one padded with
//!                   0x00), each followed by a marker: 9 = more chunks
//!                   follow, else the count of real bytes in this chunk
//!                   (0..=8). Byte-wise comparison, no padding: 'a' < 'a\0'.
//! ENUM / SET        the index / bitmap, big-endian, the row form's width
//!                   (so an ENUM key orders by index, as MySQL sorts it)
//! YEAR              1 byte, as in the row (0, or year - 1900)
//! BIT(n)            big-endian, ceil(n/8) bytes
//! ```
//!
//! utf8mb4_general_ci weights are 2 bytes per character: the simple
//! uppercase of the character, with Latin-1 accented letters folded to
//! their base letter; characters outside the BMP weigh U+FFFD (as MySQL's
//! general_ci does). utf8mb4_bin weights are the UTF-8 bytes.

use super::{Collation, Column, ColumnType, Value};

const CHUNK: usize = 8;
const MARK_BELOW: u8 = 1;
const MARK_END: u8 = 2;
const MARK_ABOVE: u8 = 3;
/// A binary string's chunk marker: more chunks follow.
const MARK_BYTES_MORE: u8 = CHUNK as u8 + 1;

/// The encoded length of a value of a fixed-width type (not a string).
fn fixed_width(ty: ColumnType) -> Option<usize> {
    Some(match ty {
        t if t.is_integer() => t.int_width(),
        ColumnType::Decimal { precision, .. } => {
            if precision <= 18 {
                8
            } else {
                16
            }
        }
        ColumnType::Float { .. } => 4,
        ColumnType::Double { .. } => 8,
        ColumnType::Date => 3,
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } | ColumnType::Time { .. } => 8,
        ColumnType::Enum { members } | ColumnType::Set { members } => members.width(),
        ColumnType::Year => 1,
        ColumnType::Bit { bits } => super::bit::width(bits),
        _ => return None,
    })
}

/// Upper bound of the encoded length of a column's values.
pub fn max_encoded_len(c: &Column) -> usize {
    let null = c.nullable as usize;
    if let Some(w) = fixed_width(c.ty) {
        return null + w;
    }
    null + match c.ty {
        ColumnType::Char { len } | ColumnType::Varchar { len } => {
            let w = (len as usize * c.collation.bytes_per_char()).max(1);
            w.div_ceil(CHUNK) * (CHUNK + 1)
        }
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => {
            (len as usize).max(1).div_ceil(CHUNK) * (CHUNK + 1)
        }
        _ => 0,
    }
}

/// Upper bound of the encoded length of a column's values cut to
/// `prefix` characters (text) or bytes (binary), if given.
pub fn max_encoded_len_prefix(c: &Column, prefix: Option<u32>) -> usize {
    let Some(n) = prefix else { return max_encoded_len(c) };
    let null = c.nullable as usize;
    let w = if c.ty.is_binary() { n as usize } else { n as usize * c.collation.bytes_per_char() };
    null + w.max(1).div_ceil(CHUNK) * (CHUNK + 1)
}

/// Appends the encoding of `v` cut to its first `prefix` characters (a
/// text value) or bytes (a binary one), as a prefix index keys it
/// (`IndexDef::prefix`); the whole value when `prefix` is `None` or the
/// value is shorter. The result is the encoding of the cut value, so it
/// compares as the prefixes do and stays self-delimiting.
pub fn encode_prefix(c: &Column, v: &Value, prefix: Option<u32>, out: &mut Vec<u8>) {
    match (prefix, v) {
        (Some(n), Value::Str(s)) => {
            let end = s.char_indices().nth(n as usize).map_or(s.len(), |(i, _)| i);
            if end < s.len() {
                return encode(c, &Value::Str(s[..end].to_string()), out);
            }
        }
        (Some(n), Value::Bytes(b)) if b.len() > n as usize => {
            return encode(c, &Value::Bytes(b[..n as usize].to_vec()), out);
        }
        _ => {}
    }
    encode(c, v, out)
}

/// Appends the encoding of `v` (already coerced to `c`'s type) to `out`.
pub fn encode(c: &Column, v: &Value, out: &mut Vec<u8>) {
    if c.nullable {
        if v.is_null() {
            out.push(0);
            return;
        }
        out.push(1);
    }
    match (c.ty, v) {
        (t, Value::Int(i)) if t.is_integer() => {
            let w = t.int_width();
            let flipped = (*i as u64) ^ (1u64 << (w * 8 - 1));
            out.extend_from_slice(&flipped.to_be_bytes()[8 - w..]);
        }
        (t, Value::UInt(u)) if t.is_integer() => {
            let w = t.int_width();
            out.extend_from_slice(&u.to_be_bytes()[8 - w..]);
        }
        (ColumnType::Decimal { precision, scale, .. }, Value::Decimal(d)) => {
            let coef = d.rescale(scale).map(|d| d.coef).unwrap_or(0);
            if precision <= 18 {
                out.extend_from_slice(&((coef as i64 as u64) ^ (1 << 63)).to_be_bytes());
            } else {
                out.extend_from_slice(&((coef as u128) ^ (1 << 127)).to_be_bytes());
            }
        }
        (ColumnType::Float { .. }, Value::Double(f)) => {
            out.extend_from_slice(&super::float::order_bits_f32(*f as f32).to_be_bytes())
        }
        (ColumnType::Double { .. }, Value::Double(f)) => {
            out.extend_from_slice(&super::float::order_bits(*f).to_be_bytes())
        }
        (ColumnType::Date, Value::Date(d)) => out.extend_from_slice(&d.packed().to_be_bytes()[1..]),
        (ColumnType::DateTime { .. }, Value::DateTime(d)) => {
            out.extend_from_slice(&((d.packed() as u64) ^ (1 << 63)).to_be_bytes())
        }
        (ColumnType::Timestamp { .. }, Value::DateTime(d)) => {
            let utc = super::tz::timestamp_to_utc(*d);
            out.extend_from_slice(&((utc.packed() as u64) ^ (1 << 63)).to_be_bytes())
        }
        (_, Value::Str(s)) => encode_string(c.collation, s, out),
        (_, Value::Time(us)) => out.extend_from_slice(&((*us as u64) ^ (1 << 63)).to_be_bytes()),
        (_, Value::Bytes(b)) => encode_bytes(b, out),
        (_, Value::Choice(c)) => out.extend_from_slice(&c.n.to_be_bytes()[8 - c.members.width()..]),
        (ColumnType::Year, Value::Int(y)) => out.push(super::year::to_byte(*y)),
        (ColumnType::Bit { bits }, Value::UInt(u)) => {
            out.extend_from_slice(&u.to_be_bytes()[8 - super::bit::width(bits)..])
        }
        (ty, v) => debug_assert!(false, "value {v:?} was not coerced to {ty:?}"),
    }
}

/// The weight string of `s` under `coll`, without trailing spaces when
/// `coll` is PAD SPACE (see `collation`).
pub fn weights(coll: Collation, s: &str, out: &mut Vec<u8>) {
    let s = if coll.pad_space() { s.trim_end_matches(' ') } else { s };
    match coll {
        Collation::Utf8mb4Bin => out.extend_from_slice(s.as_bytes()),
        Collation::Utf8mb4GeneralCi if s.is_ascii() => {
            // Two bytes per character, the high one zero: filled in one
            // pass over a zeroed tail (no capacity check per byte).
            let start = out.len();
            out.resize(start + s.len() * 2, 0);
            for (w, b) in out[start..].chunks_exact_mut(2).zip(s.bytes()) {
                w[1] = b.to_ascii_uppercase();
            }
        }
        Collation::Utf8mb4GeneralCi => {
            for ch in s.chars() {
                out.extend_from_slice(&general_ci_weight(ch).to_be_bytes());
            }
        }
        other => other.other_weights(s, out),
    }
}

/// The weight a PAD SPACE collation pads with; for NO PAD, zero bytes: no
/// weight is 0, so a zero-padded chunk sorts below any longer string's and
/// every rest is "above" (marker 3), which is NO PAD's prefix-first order.
fn pad_weight(coll: Collation) -> &'static [u8] {
    match coll.pad_weight() {
        [] => &[0, 0],
        p => p,
    }
}

fn general_ci_weight(ch: char) -> u16 {
    let c = ch as u32;
    if c > 0xFFFF {
        return 0xFFFD;
    }
    let folded = match ch {
        'À'..='Å' | 'à'..='å' => 'A',
        'Ç' | 'ç' => 'C',
        'È'..='Ë' | 'è'..='ë' => 'E',
        'Ì'..='Ï' | 'ì'..='ï' => 'I',
        'Ñ' | 'ñ' => 'N',
        'Ò'..='Ö' | 'ò'..='ö' => 'O',
        'Ù'..='Ü' | 'ù'..='ü' => 'U',
        'Ý' | 'ý' | 'ÿ' => 'Y',
        'ß' => 'S',
        _ => {
            let mut up = ch.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) if (u as u32) <= 0xFFFF => u,
                _ => ch,
            }
        }
    };
    folded as u32 as u16
}

fn encode_string(coll: Collation, s: &str, out: &mut Vec<u8>) {
    let mut w = Vec::with_capacity(s.len() * 2);
    weights(coll, s, &mut w);
    let pad = pad_weight(coll);
    let mut i = 0;
    loop {
        let end = (i + CHUNK).min(w.len());
        out.extend_from_slice(&w[i..end]);
        let mut filled = end - i;
        while filled < CHUNK {
            let take = pad.len().min(CHUNK - filled);
            out.extend_from_slice(&pad[..take]);
            filled += take;
        }
        i = end;
        if i >= w.len() {
            out.push(MARK_END);
            return;
        }
        out.push(if rest_below_spaces(&w[i..], pad) { MARK_BELOW } else { MARK_ABOVE });
    }
}

/// A binary string: chunks of its bytes, each with a marker (see the
/// module note).
fn encode_bytes(b: &[u8], out: &mut Vec<u8>) {
    let mut chunks = b.chunks(CHUNK).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[0; CHUNK]);
        out.push(0);
        return;
    }
    while let Some(c) = chunks.next() {
        out.extend_from_slice(c);
        out.resize(out.len() + CHUNK - c.len(), 0);
        out.push(if chunks.peek().is_some() { MARK_BYTES_MORE } else { c.len() as u8 });
    }
}

/// Whether the weight string `rest` (non-empty, not all spaces after
/// trimming) sorts below an endless run of spaces.
fn rest_below_spaces(rest: &[u8], pad: &[u8]) -> bool {
    for (i, &b) in rest.iter().enumerate() {
        let p = pad[i % pad.len()];
        if b != p {
            return b < p;
        }
    }
    false
}

/// The length of `c`'s encoding at the start of `bytes` (every encoding
/// is self-delimiting), or `None` if `bytes` ends inside it. Used to cut a
/// composite key into column prefixes (index statistics).
pub fn encoded_len(c: &Column, bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    if c.nullable {
        match bytes.first()? {
            0 => return Some(1),
            _ => at = 1,
        }
    }
    let fixed = match fixed_width(c.ty) {
        Some(w) => w,
        None if c.ty.is_binary() => loop {
            let mark = *bytes.get(at + CHUNK)?;
            at += CHUNK + 1;
            if mark != MARK_BYTES_MORE {
                return Some(at);
            }
        },
        None => {
            // Strings: chunks of CHUNK weight bytes, each with a marker.
            loop {
                let mark = *bytes.get(at + CHUNK)?;
                at += CHUNK + 1;
                if mark == MARK_END {
                    return Some(at);
                }
            }
        }
    };
    (bytes.len() >= at + fixed).then_some(at + fixed)
}

/// A key encoded from `cols` as text for people (performance_schema's
/// LOCK_DATA): integers as numbers, NULL as NULL, any other column (whose
/// encoding is a weight string, not its value) as `0x` and its encoded
/// bytes; `, ` between columns. Bytes the columns do not account for
/// follow in hex.
pub fn describe<'c>(cols: impl Iterator<Item = &'c Column>, bytes: &[u8]) -> String {
    let mut parts = Vec::new();
    let mut at = 0;
    let hex = |b: &[u8]| format!("0x{}", b.iter().map(|x| format!("{x:02X}")).collect::<String>());
    for c in cols {
        let rest = &bytes[at..];
        let Some(len) = encoded_len(c, rest) else { break };
        let mut field = &rest[..len];
        at += len;
        if c.nullable {
            if field.first() == Some(&0) {
                parts.push("NULL".to_string());
                continue;
            }
            field = &field[1..];
        }
        if c.ty.is_integer() && field.len() == c.ty.int_width() {
            let mut be = [0u8; 8];
            be[8 - field.len()..].copy_from_slice(field);
            let raw = u64::from_be_bytes(be);
            parts.push(if c.ty.is_unsigned() {
                raw.to_string()
            } else {
                let w = field.len() * 8;
                let v = raw ^ (1u64 << (w - 1));
                (((v << (64 - w)) as i64) >> (64 - w)).to_string()
            });
        } else {
            parts.push(hex(field));
        }
    }
    if at < bytes.len() {
        parts.push(hex(&bytes[at..]));
    }
    parts.join(", ")
}

/// Encodes a whole key from the values of `cols`.
pub fn encode_key<'v>(cols: impl Iterator<Item = (&'v Column, &'v Value)>, out: &mut Vec<u8>) {
    for (c, v) in cols {
        encode(c, v, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{Date, Decimal};
    use std::cmp::Ordering;

    fn enc(c: &Column, v: Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode(c, &c.coerce(v).unwrap(), &mut out);
        out
    }

    #[test]
    fn keys_describe_their_integers_and_show_the_rest_in_hex() {
        let id = Column::new("id", ColumnType::Int { unsigned: false }).not_null();
        let u = Column::new("u", ColumnType::BigInt { unsigned: true });
        let s = Column::new("s", ColumnType::Varchar { len: 10 }).not_null();
        let mut k = enc(&id, Value::Int(-5));
        k.extend(enc(&u, Value::Null));
        assert_eq!(describe([&id, &u].into_iter(), &k), "-5, NULL");
        let mut k = enc(&id, Value::Int(42));
        k.extend(enc(&u, Value::UInt(7)));
        k.extend(enc(&s, Value::Str("a".into())));
        let text = describe([&id, &u, &s].into_iter(), &k);
        assert!(text.starts_with("42, 7, 0x"), "{text}");
        assert_eq!(describe([&id].into_iter(), &enc(&id, Value::Int(i32::MIN as i64))), i32::MIN.to_string());
    }

    #[test]
    fn integers_order_like_numbers_with_null_first() {
        let c = Column::new("x", ColumnType::Int { unsigned: false });
        let vals = [
            Value::Null,
            Value::Int(i32::MIN as i64),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(7),
            Value::Int(i32::MAX as i64),
        ];
        let e: Vec<_> = vals.iter().map(|v| enc(&c, v.clone())).collect();
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        let u = Column::new("u", ColumnType::BigInt { unsigned: true }).not_null();
        assert!(enc(&u, Value::UInt(5)) < enc(&u, Value::UInt(u64::MAX)));
    }

    #[test]
    fn decimals_and_dates_order_like_values() {
        let c = Column::new("d", ColumnType::Decimal { precision: 10, scale: 2, unsigned: false }).not_null();
        let a = enc(&c, Value::Decimal(Decimal::parse("-3.5").unwrap()));
        let b = enc(&c, Value::Decimal(Decimal::parse("-3.25").unwrap()));
        let z = enc(&c, Value::Decimal(Decimal::parse("0").unwrap()));
        assert!(a < b && b < z);
        let d = Column::new("d", ColumnType::Date).not_null();
        assert!(
            enc(&d, Value::Date(Date::new(2020, 12, 31).unwrap()))
                < enc(&d, Value::Date(Date::new(2021, 1, 1).unwrap()))
        );
    }

    #[test]
    fn enums_order_by_index_and_years_and_bits_by_number() {
        let m = crate::row::Members::intern(false, vec!["z".into(), "a".into(), "m".into()]);
        let c = Column::new("e", ColumnType::Enum { members: m });
        let e: Vec<_> = ["z", "a", "M"].iter().map(|s| enc(&c, Value::Str(s.to_string()))).collect();
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(enc(&c, Value::Int(2)), e[1]);
        let y = Column::new("y", ColumnType::Year);
        let e: Vec<_> = [0, 1901, 69, 2155].iter().map(|&v| enc(&y, Value::Int(v))).collect();
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        let b = Column::new("b", ColumnType::Bit { bits: 12 });
        let e: Vec<_> = [0u64, 255, 256, 4095].iter().map(|&v| enc(&b, Value::UInt(v))).collect();
        assert!(e.windows(2).all(|w| w[0] < w[1]) && e[3].len() == 3);
    }

    #[test]
    fn times_order_like_durations() {
        let c = Column::new("t", ColumnType::Time { fsp: 6 });
        let vals = [Value::Null, Value::Time(-3_000_000_000_000), Value::Time(-1), Value::Time(0), Value::Time(5)];
        let e: Vec<_> = vals.iter().map(|v| enc(&c, v.clone())).collect();
        assert!(e.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn doubles_and_floats_order_like_numbers() {
        for ty in
            [ColumnType::Double { digits: None, unsigned: false }, ColumnType::Float { digits: None, unsigned: false }]
        {
            let c = Column::new("f", ty);
            let vals =
                [Value::Null, Value::Double(-1e30), Value::Double(-2.5), Value::Double(0.0), Value::Double(1e-30)];
            let e: Vec<_> = vals.iter().map(|v| enc(&c, v.clone())).collect();
            assert!(e.windows(2).all(|w| w[0] < w[1]), "{ty:?}");
            assert_eq!(enc(&c, Value::Double(-0.0)), enc(&c, Value::Double(0.0)));
        }
    }

    fn sql_cmp_pad_space(coll: Collation, a: &str, b: &str) -> Ordering {
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        weights(coll, a, &mut wa);
        weights(coll, b, &mut wb);
        let pad = pad_weight(coll);
        let n = wa.len().max(wb.len());
        let pad_to = |w: &mut Vec<u8>| {
            let mut i = 0;
            while w.len() < n {
                w.push(pad[i % pad.len()]);
                i += 1;
            }
        };
        pad_to(&mut wa);
        pad_to(&mut wb);
        wa.cmp(&wb)
    }

    #[test]
    fn strings_compare_with_pad_space_exactly() {
        let words = [
            "",
            " ",
            "a",
            "a ",
            "a\t",
            "A",
            "ab",
            "abcd",
            "abcd\t",
            "abcde",
            "abcdefgh",
            "abcdefgh\t",
            "abcdefghi",
            "b",
            "é",
            "E",
            "z  z",
            "ß",
            "ss",
            "Å",
            "\u{1F600}",
            "一",
        ];
        for coll in super::super::collation::ALL {
            let c = Column::new("s", ColumnType::Varchar { len: 20 }).not_null().collation(coll);
            for a in words {
                for b in words {
                    let (ea, eb) = (enc(&c, Value::Str(a.into())), enc(&c, Value::Str(b.into())));
                    assert_eq!(ea.cmp(&eb), sql_cmp_pad_space(coll, a, b), "{coll:?} {a:?} vs {b:?}");
                }
            }
        }
        let ci = Column::new("s", ColumnType::Varchar { len: 20 }).not_null();
        assert_eq!(enc(&ci, Value::Str("Hello".into())), enc(&ci, Value::Str("hELLO  ".into())));
    }

    #[test]
    fn encoded_len_cuts_composite_keys_at_column_boundaries() {
        let mut s = Column::new("s", ColumnType::Varchar { len: 40 });
        s.nullable = true;
        let mut i = Column::new("i", ColumnType::Int { unsigned: false });
        i.nullable = false;
        for text in ["", "abc", "a string longer than eight bytes"] {
            let mut k = Vec::new();
            encode(&s, &Value::Str(text.into()), &mut k);
            let first = k.len();
            encode(&i, &Value::Int(-7), &mut k);
            assert_eq!(encoded_len(&s, &k), Some(first));
            assert_eq!(encoded_len(&i, &k[first..]), Some(4));
            assert_eq!(encoded_len(&s, &k[..first - 1]), None);
        }
        let mut k = Vec::new();
        encode(&s, &Value::Null, &mut k);
        assert_eq!(encoded_len(&s, &k), Some(1));
    }

    #[test]
    fn binary_strings_order_byte_wise_without_padding() {
        let c = Column::new("b", ColumnType::VarBinary { len: 40 });
        let vals: Vec<Vec<u8>> = vec![
            vec![],
            vec![0],
            vec![0, 0],
            vec![b'a'],
            vec![b'a', 0],
            b"abcdefgh".to_vec(),
            b"abcdefgh\0".to_vec(),
            b"abcdefghi".to_vec(),
            vec![0x80],
            vec![0xff; 17],
            vec![0xff; 18],
        ];
        let mut e: Vec<_> = vals.iter().map(|v| enc(&c, Value::Bytes(v.clone()))).collect();
        e.insert(0, enc(&c, Value::Null));
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        for (v, k) in vals.iter().zip(&e[1..]) {
            let mut two = k.clone();
            two.extend_from_slice(&[7, 7]);
            assert_eq!(encoded_len(&c, &two), Some(k.len()), "{v:?}");
            assert!(k.len() <= max_encoded_len(&c));
        }
    }

    #[test]
    fn prefix_keys_are_the_keys_of_the_cut_values() {
        let s = Column::new("s", ColumnType::Text);
        let key = |v: &str, n: Option<u32>| {
            let mut out = Vec::new();
            encode_prefix(&s, &Value::Str(v.into()), n, &mut out);
            out
        };
        assert_eq!(key("abcdef", Some(3)), key("abc", None));
        assert_eq!(key("ABCxyz", Some(3)), key("abcdef", Some(3)), "case-insensitive prefixes");
        assert_eq!(key("ab", Some(3)), key("ab", None));
        assert_eq!(key("éèêë", Some(2)), key("éè", None), "characters, not bytes");
        assert!(key("abcdef", Some(3)).len() <= max_encoded_len_prefix(&s, Some(3)));
        let b = Column::new("b", ColumnType::Blob { max_bytes: 65_535 });
        let mut out = Vec::new();
        encode_prefix(&b, &Value::Bytes(vec![1, 2, 3, 4]), Some(2), &mut out);
        let mut whole = Vec::new();
        encode(&b, &Value::Bytes(vec![1, 2]), &mut whole);
        assert_eq!(out, whole);
        assert_eq!(encoded_len(&b, &out), Some(out.len()));
    }

    #[test]
    fn composite_keys_keep_column_order() {
        let a = Column::new("a", ColumnType::Varchar { len: 10 }).not_null();
        let b = Column::new("b", ColumnType::Int { unsigned: false }).not_null();
        let k = |s: &str, i: i64| {
            let mut out = Vec::new();
            encode_key([(&a, &Value::Str(s.into())), (&b, &Value::Int(i))].into_iter(), &mut out);
            out
        };
        assert!(k("a", 100) < k("ab", -5));
        assert!(k("ab", -5) < k("ab", 3));
    }
}
