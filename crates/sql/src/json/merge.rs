//! JSON_MERGE_PRESERVE (and its deprecated name JSON_MERGE) and
//! JSON_MERGE_PATCH: documents folded left to right, two at a time.
//!
//! PRESERVE (MySQL's `merge_doms`): two arrays concatenate; two objects
//! merge, a key both have taking the PRESERVE merge of the two values;
//! anything else is the two as arrays (a non-array wrapped in one)
//! concatenated. Nothing is lost. A NULL argument makes the result NULL.
//!
//! PATCH (RFC 7396, MySQL's `merge_patch`): a patch that is not an
//! object replaces the target; an object patch is applied to the target
//! (an empty object when the target is not one) member by member, a
//! `null` member removing the key, others patched in recursively. NULL
//! follows MySQL: a NULL argument makes the result NULL unless a later
//! patch is not an object (which then replaces everything before it).

use quire_engine::row::json::{Json, Object};
use quire_engine::row::Value;

use super::doc;
use crate::error::Result;

/// The PRESERVE merge of `a` and `b`.
pub fn preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Array(mut x), Json::Array(y)) => {
            x.extend(y);
            Json::Array(x)
        }
        (Json::Object(mut x), Json::Object(y)) => {
            for (k, v) in y.iter() {
                let merged = match x.remove(k) {
                    Some(old) => preserve(old, v.clone()),
                    None => v.clone(),
                };
                x.insert(k.clone(), merged);
            }
            Json::Object(x)
        }
        (Json::Array(mut x), y) => {
            x.push(y);
            Json::Array(x)
        }
        (x, Json::Array(y)) => {
            let mut out = Vec::with_capacity(y.len() + 1);
            out.push(x);
            out.extend(y);
            Json::Array(out)
        }
        (x, y) => Json::Array(vec![x, y]),
    }
}

/// RFC 7396: `patch` applied to `target`.
pub fn patch(target: Json, patch_: &Json) -> Json {
    let Json::Object(p) = patch_ else { return patch_.clone() };
    let mut t = match target {
        Json::Object(o) => o,
        _ => Object::new(),
    };
    for (k, v) in p.iter() {
        if matches!(v, Json::Null) {
            t.remove(k);
        } else {
            let old = t.remove(k).unwrap_or(Json::Null);
            t.insert(k.clone(), patch(old, v));
        }
    }
    Json::Object(t)
}

/// JSON_MERGE_PRESERVE / JSON_MERGE / JSON_MERGE_PATCH of `args` (two or
/// more documents); `None` for NULL.
pub fn call(name: &str, args: &[Value]) -> Result<Option<Json>> {
    // Every argument is read (an invalid one is 3141) before NULL decides.
    let docs = args.iter().enumerate().map(|(i, a)| doc(a, i + 1, name)).collect::<Result<Vec<_>>>()?;
    if name != "json_merge_patch" {
        let mut it = docs.into_iter();
        let Some(Some(first)) = it.next() else { return Ok(None) };
        let mut acc = first.into_owned();
        for d in it {
            let Some(d) = d else { return Ok(None) };
            acc = preserve(acc, d.into_owned());
        }
        return Ok(Some(acc));
    }
    let mut acc: Option<Json> = None;
    for (i, d) in docs.iter().enumerate() {
        acc = match (i, acc, d) {
            (_, _, None) => None,
            (0, _, Some(d)) => Some(d.clone().into_owned()),
            (_, None, Some(d)) if !matches!(**d, Json::Object(_)) => Some(d.clone().into_owned()),
            (_, None, Some(_)) => None,
            (_, Some(a), Some(d)) => Some(patch(a, d)),
        };
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: &str, docs: &[Option<&str>]) -> String {
        let args: Vec<Value> = docs.iter().map(|d| d.map_or(Value::Null, |s| Value::Str(s.into()))).collect();
        call(f, &args).unwrap().map_or("NULL".into(), |j| j.to_string())
    }

    #[test]
    fn preserve_follows_mysqls_manual() {
        let p = |a: &str, b: &str| run("json_merge_preserve", &[Some(a), Some(b)]);
        assert_eq!(p("[1, 2]", "[true, false]"), "[1, 2, true, false]");
        assert_eq!(p(r#"{"name": "x"}"#, r#"{"id": 47}"#), r#"{"id": 47, "name": "x"}"#);
        assert_eq!(p("1", "true"), "[1, true]");
        assert_eq!(p("[1, 2]", r#"{"id": 47}"#), r#"[1, 2, {"id": 47}]"#);
        assert_eq!(
            run(
                "json_merge_preserve",
                &[Some(r#"{ "a": 1, "b": 2 }"#), Some(r#"{ "a": 3, "c": 4 }"#), Some(r#"{ "a": 5, "d": 6 }"#)]
            ),
            r#"{"a": [1, 3, 5], "b": 2, "c": 4, "d": 6}"#
        );
        assert_eq!(run("json_merge", &[Some("[1]"), None]), "NULL");
    }

    #[test]
    fn patch_follows_rfc_7396_and_mysqls_manual() {
        let p = |a: &str, b: &str| run("json_merge_patch", &[Some(a), Some(b)]);
        assert_eq!(p("[1, 2]", "[true, false]"), "[true, false]");
        assert_eq!(p(r#"{"name": "x"}"#, r#"{"id": 47}"#), r#"{"id": 47, "name": "x"}"#);
        assert_eq!(p("1", "true"), "true");
        assert_eq!(p("[1, 2]", r#"{"id": 47}"#), r#"{"id": 47}"#);
        assert_eq!(p(r#"{"a": 1, "b": 2}"#, r#"{"b": null}"#), r#"{"a": 1}"#);
        assert_eq!(p(r#"{"a": {"x": 1}}"#, r#"{"a": {"y": 2}}"#), r#"{"a": {"x": 1, "y": 2}}"#);
        assert_eq!(run("json_merge_patch", &[None, Some("{}")]), "NULL");
        assert_eq!(run("json_merge_patch", &[None, Some("[1]")]), "[1]");
        assert_eq!(run("json_merge_patch", &[Some("{}"), None, Some("{}")]), "NULL");
    }
}
