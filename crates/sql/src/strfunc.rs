//! String functions beyond the basics of `func.rs`: searching (LOCATE,
//! INSTR, POSITION, FIELD, FIND_IN_SET, STRCMP), padding and cutting
//! (LPAD, RPAD, SUBSTRING_INDEX, REVERSE, SPACE), codes (ASCII, ORD),
//! lengths (BIT_LENGTH, OCTET_LENGTH), QUOTE, ELT, and digests (MD5,
//! SHA1 / SHA, SHA2).
//!
//! Positions count characters from 1, as MySQL's do. Searches and
//! comparisons follow the default collation, utf8mb4_general_ci
//! (case-insensitive; `compare` with that collation decides equality and
//! order), except SUBSTRING_INDEX, which MySQL matches byte for byte.
//! NULL in an argument that is read gives NULL.

use quire_engine::row::{Collation, Value};
use sha1::Digest;

use crate::error::Result;
use crate::expr::{as_string, compare, to_i128};

/// The functions of this module, with the argument counts MySQL accepts.
pub const FUNCS: &[(&str, usize, usize)] = &[
    ("locate", 2, 3),
    ("instr", 2, 2),
    ("lpad", 3, 3),
    ("rpad", 3, 3),
    ("substring_index", 3, 3),
    ("reverse", 1, 1),
    ("space", 1, 1),
    ("ascii", 1, 1),
    ("ord", 1, 1),
    ("bit_length", 1, 1),
    ("octet_length", 1, 1),
    ("field", 2, usize::MAX),
    ("elt", 2, usize::MAX),
    ("find_in_set", 2, 2),
    ("strcmp", 2, 2),
    ("quote", 1, 1),
    ("md5", 1, 1),
    ("sha1", 1, 1),
    ("sha", 1, 1),
    ("sha2", 2, 2),
];

/// The longest string LPAD, RPAD, SPACE build (`max_allowed_packet`'s
/// default; MySQL returns NULL with a warning beyond it).
const MAX_RESULT: i128 = 64 * 1024 * 1024;

/// Folded for a case-insensitive search under the default collation.
fn fold(s: &str) -> Vec<char> {
    s.chars().flat_map(char::to_lowercase).collect()
}

/// Where `needle` first occurs in `hay` at or after character `from` (0
/// based), as a 1-based character position; 0 when it does not.
fn find_from(hay: &str, needle: &str, from: usize) -> i64 {
    let h: Vec<char> = hay.chars().collect();
    let n = fold(needle);
    if n.is_empty() {
        return if from <= h.len() { from as i64 + 1 } else { 0 };
    }
    let folded: Vec<Vec<char>> = h.iter().map(|c| c.to_lowercase().collect()).collect();
    for start in from..h.len() {
        let mut k = 0;
        let mut i = start;
        while k < n.len() && i < h.len() {
            let f = &folded[i];
            if n.len() - k < f.len() || n[k..k + f.len()] != f[..] {
                break;
            }
            k += f.len();
            i += 1;
        }
        if k == n.len() {
            return start as i64 + 1;
        }
    }
    0
}

fn eq_ci(a: &str, b: &str) -> bool {
    compare(&Value::Str(a.into()), &Value::Str(b.into()), Collation::Utf8mb4GeneralCi)
        == Some(std::cmp::Ordering::Equal)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Calls function `name` of [`FUNCS`] (its argument count checked).
pub fn call(name: &str, args: &[Value]) -> Result<Value> {
    // Functions that read every argument are NULL when any is.
    let reads_all = !matches!(name, "field" | "elt" | "quote");
    if reads_all && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let s = |i: usize| as_string(&args[i]);
    let int = |i: usize| to_i128(&args[i]).unwrap_or(0);
    Ok(match name {
        "locate" => {
            let from = if args.len() == 3 { int(2) } else { 1 };
            if from < 1 {
                Value::Int(0)
            } else {
                Value::Int(find_from(&s(1), &s(0), (from - 1).min(usize::MAX as i128) as usize))
            }
        }
        "instr" => Value::Int(find_from(&s(0), &s(1), 0)),
        "lpad" | "rpad" => {
            let (text, len, pad) = (s(0), int(1), s(2));
            if !(0..=MAX_RESULT).contains(&len) {
                return Ok(Value::Null);
            }
            let len = len as usize;
            let chars: Vec<char> = text.chars().collect();
            if chars.len() >= len {
                Value::Str(chars[..len].iter().collect())
            } else if pad.is_empty() {
                Value::Null
            } else {
                let fill: String = pad.chars().cycle().take(len - chars.len()).collect();
                Value::Str(if name == "lpad" { fill + &text } else { text + &fill })
            }
        }
        "substring_index" => {
            let (text, delim, count) = (s(0), s(1), int(2));
            if delim.is_empty() || count == 0 {
                return Ok(Value::Str(String::new()));
            }
            let parts: Vec<&str> = text.split(delim.as_str()).collect();
            let n = parts.len() as i128;
            Value::Str(if count > 0 {
                parts[..count.min(n) as usize].join(&delim)
            } else {
                parts[(n - (-count).min(n)) as usize..].join(&delim)
            })
        }
        "reverse" => Value::Str(s(0).chars().rev().collect()),
        "space" => {
            let n = int(0);
            if n > MAX_RESULT {
                return Ok(Value::Null);
            }
            Value::Str(" ".repeat(n.max(0) as usize))
        }
        "ascii" => Value::Int(s(0).bytes().next().map_or(0, i64::from)),
        // The first character's bytes as a big-endian number.
        "ord" => Value::Int(s(0).chars().next().map_or(0, |c| {
            let mut b = [0u8; 4];
            c.encode_utf8(&mut b).bytes().fold(0i64, |acc, x| acc * 256 + i64::from(x))
        })),
        "bit_length" => Value::Int(s(0).len() as i64 * 8),
        "octet_length" => Value::Int(s(0).len() as i64),
        "field" => {
            if args[0].is_null() {
                return Ok(Value::Int(0));
            }
            let numeric = args.iter().all(|v| matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_)));
            let hit = args[1..].iter().position(|v| {
                !v.is_null()
                    && if numeric {
                        compare(&args[0], v, Collation::Utf8mb4GeneralCi) == Some(std::cmp::Ordering::Equal)
                    } else {
                        eq_ci(&s(0), &as_string(v))
                    }
            });
            Value::Int(hit.map_or(0, |i| i as i64 + 1))
        }
        "elt" => {
            let Some(n) = to_i128(&args[0]) else { return Ok(Value::Null) };
            match usize::try_from(n).ok().filter(|&n| n >= 1 && n < args.len()) {
                Some(i) if !args[i].is_null() => Value::Str(as_string(&args[i])),
                _ => Value::Null,
            }
        }
        // Of a SET value: the member's place in the SET's definition
        // when the value holds it (MariaDB's answer), not in the text.
        "find_in_set" if matches!(&args[1], Value::Choice(c) if c.members.set) => {
            let Value::Choice(c) = &args[1] else { return Ok(Value::Null) };
            let at = c.members.find(Collation::Utf8mb4GeneralCi, &s(0)).filter(|&i| c.n & (1 << (i - 1)) != 0);
            Value::Int(at.map_or(0, |i| i as i64))
        }
        "find_in_set" => {
            let (needle, list) = (s(0), s(1));
            if needle.contains(',') {
                return Ok(Value::Int(0));
            }
            if list.is_empty() {
                return Ok(Value::Int(0));
            }
            let hit = list.split(',').position(|item| eq_ci(item, &needle));
            Value::Int(hit.map_or(0, |i| i as i64 + 1))
        }
        "strcmp" => Value::Int(match compare(&args[0], &args[1], Collation::Utf8mb4GeneralCi) {
            Some(std::cmp::Ordering::Less) => -1,
            Some(std::cmp::Ordering::Greater) => 1,
            _ => 0,
        }),
        "quote" => match &args[0] {
            Value::Null => Value::Str("NULL".into()),
            v => {
                let mut out = String::from("'");
                for c in as_string(v).chars() {
                    match c {
                        '\'' => out.push_str("\\'"),
                        '\\' => out.push_str("\\\\"),
                        '\0' => out.push_str("\\0"),
                        '\u{1a}' => out.push_str("\\Z"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
                Value::Str(out)
            }
        },
        "md5" => Value::Str(hex(&md5::Md5::digest(s(0).as_bytes()))),
        "sha1" | "sha" => Value::Str(hex(&sha1::Sha1::digest(s(0).as_bytes()))),
        "sha2" => {
            let text = s(0);
            let b = text.as_bytes();
            Value::Str(match int(1) {
                0 | 256 => hex(&sha2::Sha256::digest(b)),
                224 => hex(&sha2::Sha224::digest(b)),
                384 => hex(&sha2::Sha384::digest(b)),
                512 => hex(&sha2::Sha512::digest(b)),
                _ => return Ok(Value::Null),
            })
        }
        _ => return Err(crate::error::SqlError::internal(format!("{name} is not a string function"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_s(name: &str, args: &[Value]) -> Value {
        call(name, args).unwrap()
    }

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn searches_count_characters_from_one_and_ignore_case() {
        assert_eq!(call_s("locate", &[s("BAR"), s("foobarbar")]), Value::Int(4));
        assert_eq!(call_s("locate", &[s("bar"), s("foobarbar"), Value::Int(5)]), Value::Int(7));
        assert_eq!(call_s("instr", &[s("ñandú"), s("dú")]), Value::Int(4));
        assert_eq!(call_s("find_in_set", &[s("B"), s("a,b,c")]), Value::Int(2));
        assert_eq!(call_s("field", &[s("b"), s("a"), s("B")]), Value::Int(2));
    }

    #[test]
    fn digests_match_their_published_vectors() {
        assert_eq!(call_s("md5", &[s("abc")]), s("900150983cd24fb0d6963f7d28e17f72"));
        assert_eq!(call_s("sha1", &[s("abc")]), s("a9993e364706816aba3e25717850c26c9cd0d89d"));
        assert_eq!(
            call_s("sha2", &[s("abc"), Value::Int(256)]),
            s("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
    }
}
