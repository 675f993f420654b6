//! JSON_CONTAINS, JSON_CONTAINS_PATH, JSON_OVERLAPS and MEMBER OF.
//!
//! Containment is MySQL's (`contains_wr` in its json_dom.cc): a scalar
//! contains what equals it; an object contains an object whose every key
//! it has with a value containing that key's value; an array contains a
//! value (or each element of an array) that one of its elements equals
//! or, being an array or object itself, contains — an array candidate
//! element only inside an array element.
//!
//! Overlap and membership are by element equality (JSON's comparison),
//! not containment: two arrays overlap when an element of one equals an
//! element of the other, two objects when they share a key with equal
//! values; a value that is not an array meets an array as the array of
//! itself; an object and a scalar, or two unequal scalars, do not
//! overlap. `v MEMBER OF (a)` is whether `v` (a `val`: a string is a JSON
//! string) equals an element of `a` (a non-array `a` as `[a]`).

use std::cmp::Ordering;

use quire_engine::row::json::{order, Json};
use quire_engine::row::Value;

use super::path::{wildcard_error, Path};
use super::{doc, path_arg};
use crate::error::{Result, SqlError};

/// Whether `target` contains `candidate` (module note).
pub fn json_contains(target: &Json, candidate: &Json) -> bool {
    match target {
        Json::Object(t) => match candidate {
            Json::Object(c) => {
                c.len() <= t.len() && c.iter().all(|(k, cv)| t.get(k).is_some_and(|tv| json_contains(tv, cv)))
            }
            _ => false,
        },
        Json::Array(t) => {
            let one = [candidate];
            let items: Vec<&Json> = match candidate {
                Json::Array(c) => c.iter().collect(),
                _ => one.to_vec(),
            };
            items.iter().all(|c| match c {
                Json::Array(_) => t.iter().any(|e| matches!(e, Json::Array(_)) && json_contains(e, c)),
                _ => t.iter().any(|e| match e {
                    Json::Array(_) | Json::Object(_) => json_contains(e, c),
                    _ => order::compare(e, c) == Ordering::Equal,
                }),
            })
        }
        _ => order::compare(target, candidate) == Ordering::Equal,
    }
}

fn same(a: &Json, b: &Json) -> bool {
    order::compare(a, b) == Ordering::Equal
}

/// Whether `a` and `b` overlap (module note).
pub fn overlaps(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Array(x), Json::Array(y)) => x.iter().any(|e| y.iter().any(|f| same(e, f))),
        (Json::Array(x), other) | (other, Json::Array(x)) => x.iter().any(|e| same(e, other)),
        (Json::Object(x), Json::Object(y)) => x.iter().any(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        (Json::Object(_), _) | (_, Json::Object(_)) => false,
        _ => same(a, b),
    }
}

/// JSON_OVERLAPS(doc, doc).
pub fn json_overlaps(args: &[Value]) -> Result<Value> {
    const F: &str = "json_overlaps";
    let Some(a) = doc(&args[0], 1, F)? else { return Ok(Value::Null) };
    let Some(b) = doc(&args[1], 2, F)? else { return Ok(Value::Null) };
    Ok(Value::Int(overlaps(&a, &b) as i64))
}

/// `value MEMBER OF (array)`.
pub fn member_of(args: &[Value]) -> Result<Value> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let Some(a) = doc(&args[1], 2, "member of")? else { return Ok(Value::Null) };
    let v = super::value(&args[0])?;
    Ok(Value::Int(match &*a {
        Json::Array(x) => x.iter().any(|e| same(e, &v)),
        other => same(other, &v),
    } as i64))
}

/// JSON_CONTAINS(target, candidate[, path]).
pub fn contains(args: &[Value]) -> Result<Value> {
    const F: &str = "json_contains";
    let Some(target) = doc(&args[0], 1, F)? else { return Ok(Value::Null) };
    let Some(candidate) = doc(&args[1], 2, F)? else { return Ok(Value::Null) };
    let at = match args.get(2) {
        None => Some(&*target),
        Some(p) => {
            let Some(p) = path_arg(p)? else { return Ok(Value::Null) };
            if p.has_wildcard() {
                return Err(wildcard_error());
            }
            p.find(&target).into_iter().next()
        }
    };
    Ok(match at {
        None => Value::Null,
        Some(t) => Value::Int(json_contains(t, &candidate) as i64),
    })
}

/// JSON_CONTAINS_PATH(doc, 'one' | 'all', path, ...).
pub fn contains_path(args: &[Value]) -> Result<Value> {
    const F: &str = "json_contains_path";
    let Some(d) = doc(&args[0], 1, F)? else { return Ok(Value::Null) };
    if args[1..].iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let all = match crate::expr::as_string(&args[1]).to_ascii_lowercase().as_str() {
        "one" => false,
        "all" => true,
        _ => {
            return Err(SqlError::new(
                3154,
                "42000",
                "The oneOrAll argument to json_contains_path may take these values: 'one' or 'all'.",
            ))
        }
    };
    // Every path is read (a bad one is an error) before any is tried.
    let paths = args[2..].iter().map(path_arg).collect::<Result<Vec<Option<Path>>>>()?;
    let mut hits = paths.iter().flatten().map(|p| !p.find(&d).is_empty());
    let r = if all { hits.all(|h| h) } else { hits.any(|h| h) };
    Ok(Value::Int(r as i64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::row::json::text::parse;

    fn c(t: &str, c: &str) -> bool {
        json_contains(&parse(t).unwrap(), &parse(c).unwrap())
    }

    #[test]
    fn containment_follows_mysql() {
        // The manual's examples.
        let j = r#"{"a": 1, "b": 2, "c": {"d": 4}}"#;
        assert!(c(j, r#"{"a": 1}"#));
        assert!(!c(j, "1"));
        assert!(c(r#"{"d": 4}"#, r#"{"d": 4}"#));
        assert!(c("[1, 2, [3, 4]]", "[1, 3]"));
        assert!(c("[1, 2, [3, 4]]", "[[3]]"));
        assert!(!c("[1, 2, [3, 4]]", "[[1]]"));
        assert!(c("[1, 2, {\"a\": [5]}]", "{\"a\": 5}"));
        assert!(c("[1, 2]", "[]"));
        assert!(c("1", "1.0"));
        assert!(!c("[1]", "[1, 2]"));
        assert!(!c("\"a\"", "[\"a\"]"));
    }

    #[test]
    fn overlaps_follow_mysqls_manual() {
        let o = |a: &str, b: &str| overlaps(&parse(a).unwrap(), &parse(b).unwrap());
        assert!(o("[1,3,5,7]", "[2,5,7]"));
        assert!(!o("[1,3,5,7]", "[2,6,8]"));
        assert!(!o("[[1,2],[3,4],5]", "[1,[2,3],[4,5]]"));
        assert!(o("[[1,2],[3,4],5]", "[5]"));
        assert!(o(r#"{"a":1,"b":10,"d":10}"#, r#"{"c":1,"e":10,"f":1,"d":10}"#));
        assert!(!o(r#"{"a":1,"b":10,"d":10}"#, r#"{"a":5,"e":10,"f":1,"d":20}"#));
        assert!(o("5", "5"));
        assert!(!o("5", "6"));
        assert!(o(r#"[4,5,6,7]"#, "6"));
        assert!(!o(r#"[4,5,"6",7]"#, "6"));
        assert!(!o(r#"[4,5,6,7]"#, r#""6""#));
        assert!(o(r#"[{"a": 1}]"#, r#"{"a": 1}"#));
        assert!(!o(r#"{"a": 1}"#, "1"));
    }
}
