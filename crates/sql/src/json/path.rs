//! JSON path expressions (MySQL 8.0's language) and finding what they
//! name in a document.
//!
//! ```text
//! path   := '$' leg*
//! leg    := '.' key | '.*' | '[' index ']' | '[' index 'to' index ']'
//!         | '[*]' | '**'
//! key    := an ECMAScript identifier | a JSON string ("quoted key")
//! index  := n | 'last' | 'last' '-' n
//! ```
//!
//! Spaces may stand between legs. A path may not end in `**`. A bad path
//! is 3143 with the byte position where reading it failed (MySQL's).
//!
//! Matching follows MySQL: `[n]`, `[last]` and ranges applied to a value
//! that is not an array treat it as an array of one element (autowrap:
//! `$[0]` of `1` is `1`); `**` matches the value it is applied to and
//! every value inside it, in document order, and the leg after it is
//! applied to each; a value reached twice is reported once.

use quire_engine::row::json::text as json_text;
use quire_engine::row::json::Json;

use crate::error::{Result, SqlError};

/// A position in an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// `n`: the n-th element, from 0.
    Start(u64),
    /// `last - n`.
    End(u64),
}

impl Index {
    /// The element this names in an array of `len` elements.
    pub fn resolve(self, len: usize) -> Option<usize> {
        let len = len as u64;
        match self {
            Index::Start(n) => (n < len).then_some(n as usize),
            Index::End(n) => (n < len).then(|| (len - 1 - n) as usize),
        }
    }
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Leg {
    Member(String),
    AnyMember,
    Cell(Index),
    Range(Index, Index),
    AnyCell,
    /// `**`.
    Ellipsis,
}

impl Leg {
    fn is_wildcard(&self) -> bool {
        matches!(self, Leg::AnyMember | Leg::AnyCell | Leg::Ellipsis | Leg::Range(..))
    }

    /// The elements a range names in an array of `len` elements.
    pub(crate) fn range(a: Index, b: Index, len: usize) -> std::ops::Range<usize> {
        let lo = match a {
            Index::Start(n) => n.min(len as u64) as usize,
            Index::End(n) => (len as u64).saturating_sub(n + 1) as usize,
        };
        let hi = match b {
            Index::Start(n) => n.saturating_add(1).min(len as u64) as usize,
            Index::End(n) => (len as u64).saturating_sub(n) as usize,
        };
        lo..hi.max(lo)
    }
}

/// A parsed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub legs: Vec<Leg>,
}

/// 3143 for a path that does not read.
fn bad_path(position: usize) -> SqlError {
    SqlError::new(
        3143,
        "42000",
        format!("Invalid JSON path expression. The error is around character position {position}."),
    )
}

/// 3149: a path that must name one place has a wildcard.
pub fn wildcard_error() -> SqlError {
    SqlError::new(3149, "42000", "In this situation, path expressions may not contain the * and ** tokens.")
}

impl Path {
    pub fn parse(s: &str) -> Result<Path> {
        let b = s.as_bytes();
        let ws = |mut i: usize| {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            i
        };
        let mut i = ws(0);
        if b.get(i) != Some(&b'$') {
            return Err(bad_path(i));
        }
        i += 1;
        let mut legs = Vec::new();
        loop {
            i = ws(i);
            let Some(&c) = b.get(i) else { break };
            match c {
                b'.' => {
                    i = ws(i + 1);
                    match b.get(i) {
                        Some(b'*') => {
                            legs.push(Leg::AnyMember);
                            i += 1;
                        }
                        Some(b'"') => {
                            let end = quoted_end(b, i).ok_or_else(|| bad_path(i))?;
                            match json_text::parse(&s[i..end]) {
                                Ok(Json::Str(k)) => legs.push(Leg::Member(k)),
                                _ => return Err(bad_path(i)),
                            }
                            i = end;
                        }
                        _ => {
                            let end = identifier_end(s, i);
                            if end == i {
                                return Err(bad_path(i));
                            }
                            legs.push(Leg::Member(s[i..end].to_string()));
                            i = end;
                        }
                    }
                }
                b'[' => {
                    i = ws(i + 1);
                    if b.get(i) == Some(&b'*') {
                        i = ws(i + 1);
                        legs.push(Leg::AnyCell);
                    } else {
                        let (a, next) = index(s, i)?;
                        i = ws(next);
                        if s[i..].starts_with("to") && b.get(i + 2).is_some_and(|c| c.is_ascii_whitespace()) {
                            let (z, next) = index(s, ws(i + 2))?;
                            i = ws(next);
                            legs.push(Leg::Range(a, z));
                        } else {
                            legs.push(Leg::Cell(a));
                        }
                    }
                    if b.get(i) != Some(&b']') {
                        return Err(bad_path(i));
                    }
                    i += 1;
                }
                b'*' if b.get(i + 1) == Some(&b'*') => {
                    legs.push(Leg::Ellipsis);
                    i += 2;
                }
                _ => return Err(bad_path(i)),
            }
        }
        if legs.last() == Some(&Leg::Ellipsis) {
            return Err(bad_path(b.len()));
        }
        Ok(Path { legs })
    }

    pub fn has_wildcard(&self) -> bool {
        self.legs.iter().any(Leg::is_wildcard)
    }

    /// The values the path names in `doc`, in document order, each once.
    pub fn find<'a>(&self, doc: &'a Json) -> Vec<&'a Json> {
        let mut out = Vec::new();
        seek(doc, &self.legs, &mut out);
        if self.legs.contains(&Leg::Ellipsis) {
            let mut seen = std::collections::HashSet::new();
            out.retain(|v| seen.insert(*v as *const Json));
        }
        out
    }
}

/// Where a quoted key starting at `start` (its `"`) ends (after its
/// closing `"`).
fn quoted_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Where an unquoted key starting at `start` ends: letters, digits, `_`
/// and `$` (not a digit first) and any non-ASCII character, as
/// ECMAScript identifiers allow.
fn identifier_end(s: &str, start: usize) -> usize {
    let mut end = start;
    for (k, c) in s[start..].char_indices() {
        let ok = c == '_' || c == '$' || !c.is_ascii() || c.is_ascii_alphabetic() || (k > 0 && c.is_ascii_digit());
        if !ok {
            break;
        }
        end = start + k + c.len_utf8();
    }
    end
}

/// An array index at `i`: `n`, `last` or `last - n`; returns it and
/// where it ends.
fn index(s: &str, i: usize) -> Result<(Index, usize)> {
    let b = s.as_bytes();
    let digits = |from: usize| -> Result<(u64, usize)> {
        let mut j = from;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == from {
            return Err(bad_path(from));
        }
        // MySQL's indexes are 32-bit.
        let n: u64 = s[from..j].parse().ok().filter(|&n| n <= u64::from(u32::MAX)).ok_or_else(|| bad_path(from))?;
        Ok((n, j))
    };
    if s[i..].starts_with("last") {
        let mut j = i + 4;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if b.get(j) == Some(&b'-') {
            j += 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            let (n, end) = digits(j)?;
            return Ok((Index::End(n), end));
        }
        return Ok((Index::End(0), i + 4));
    }
    let (n, end) = digits(i)?;
    Ok((Index::Start(n), end))
}

fn seek<'a>(v: &'a Json, legs: &[Leg], out: &mut Vec<&'a Json>) {
    let Some((leg, rest)) = legs.split_first() else {
        out.push(v);
        return;
    };
    match (leg, v) {
        (Leg::Member(k), Json::Object(o)) => {
            if let Some(m) = o.get(k) {
                seek(m, rest, out);
            }
        }
        (Leg::AnyMember, Json::Object(o)) => {
            for (_, m) in o.iter() {
                seek(m, rest, out);
            }
        }
        (Leg::Cell(ix), Json::Array(a)) => {
            if let Some(i) = ix.resolve(a.len()) {
                seek(&a[i], rest, out);
            }
        }
        (Leg::Range(x, y), Json::Array(a)) => {
            for e in &a[Leg::range(*x, *y, a.len())] {
                seek(e, rest, out);
            }
        }
        (Leg::AnyCell, Json::Array(a)) => {
            for e in a {
                seek(e, rest, out);
            }
        }
        // Autowrap: a value that is not an array is an array of itself.
        (Leg::Cell(ix), _) if ix.resolve(1) == Some(0) => seek(v, rest, out),
        (Leg::Range(x, y), _) if Leg::range(*x, *y, 1).contains(&0) => seek(v, rest, out),
        (Leg::Ellipsis, _) => descend(v, rest, out),
        _ => {}
    }
}

/// `**` then `rest`: `rest` applied to `v` and to every value inside it.
fn descend<'a>(v: &'a Json, rest: &[Leg], out: &mut Vec<&'a Json>) {
    seek(v, rest, out);
    match v {
        Json::Array(a) => a.iter().for_each(|e| descend(e, rest, out)),
        Json::Object(o) => o.iter().for_each(|(_, e)| descend(e, rest, out)),
        _ => {}
    }
}

/// The place a path without wildcards names, for changing it; `None`
/// when it is not there. `[0]` / `[last]` of a value that is not an array
/// is the value itself (autowrap).
pub fn locate_mut<'a>(v: &'a mut Json, legs: &[Leg]) -> Option<&'a mut Json> {
    let Some((leg, rest)) = legs.split_first() else { return Some(v) };
    match (leg, v) {
        (Leg::Member(k), Json::Object(o)) => locate_mut(o.get_mut(k)?, rest),
        (Leg::Cell(ix), Json::Array(a)) => {
            let i = ix.resolve(a.len())?;
            locate_mut(&mut a[i], rest)
        }
        (Leg::Cell(ix), v) if !matches!(v, Json::Array(_)) && ix.resolve(1) == Some(0) => locate_mut(v, rest),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::row::json::text::parse;

    fn find(doc: &str, path: &str) -> Vec<String> {
        let d = parse(doc).unwrap();
        Path::parse(path).unwrap().find(&d).iter().map(|v| v.to_string()).collect()
    }

    fn bad(path: &str) -> u16 {
        Path::parse(path).unwrap_err().code
    }

    #[test]
    fn paths_read_as_mysql_writes_them() {
        let doc = r#"{"a": {"b c": [10, 20, 30]}, "x": 1, "$y": [true]}"#;
        assert_eq!(find(doc, "$"), [parse(doc).unwrap().to_string()]);
        assert_eq!(find(doc, r#"$.a."b c"[1]"#), ["20"]);
        assert_eq!(find(doc, r#" $ . a . "b c" [ last ] "#), ["30"]);
        assert_eq!(find(doc, r#"$.a."b c"[last-2]"#), ["10"]);
        assert_eq!(find(doc, r#"$.a."b c"[1 to last]"#), ["20", "30"]);
        assert_eq!(find(doc, r#"$.a."b c"[*]"#), ["10", "20", "30"]);
        // Members in MySQL's key order: "a", "x", "$y".
        assert_eq!(find(doc, "$.*"), [r#"{"b c": [10, 20, 30]}"#, "1", "[true]"]);
        assert_eq!(find(doc, "$.$y[0]"), ["true"]);
        assert_eq!(find(doc, "$.x[0]"), ["1"]);
        assert!(find(doc, "$.x[1]").is_empty());
        assert!(find(doc, "$.nope").is_empty());
        assert_eq!(find(r#"{"a": 1, "b": {"a": 2, "c": [{"a": 3}]}}"#, "$**.a"), ["1", "2", "3"]);
        assert_eq!(find("[[1]]", "$**[0]"), ["[1]", "1"]);
    }

    #[test]
    fn bad_paths_are_3143() {
        for p in ["", "a", "$.", "$a", "$[", "$[x]", "$[1", "$**", "$.1a", r#"$."a"#, "$[-1]", "$.a-b"] {
            assert_eq!(bad(p), 3143, "{p}");
        }
        assert_eq!(
            Path::parse("$a").unwrap_err().message,
            "Invalid JSON path expression. The error is around character position 1."
        );
    }
}
