//! JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_REMOVE, JSON_ARRAY_APPEND
//! and JSON_ARRAY_INSERT: a document changed at paths, pair by pair, each
//! change seeing the ones before it (MySQL's order).
//!
//! A path here names one place (wildcards: 3149). Its last leg is what
//! changes; the legs before it must reach an existing value, else the
//! pair does nothing. A member leg on an object sets the key (SET and
//! INSERT add a missing one, SET and REPLACE change an existing one); a
//! cell leg `[n]` on an array changes the n-th element or, beyond the
//! end, appends; on a value that is not an array, `[0]` / `[last]` is
//! the value itself and a later cell wraps it in an array with the new
//! value after it (MySQL's autowrap). The path `$` replaces the whole
//! document (SET, REPLACE) and cannot be removed (3153).
//!
//! JSON_ARRAY_INSERT's path must end in a cell `[n]` (3165 otherwise):
//! the value goes in before the n-th element of the array the legs
//! before it reach (`[last]` before the last one), at the end when `n`
//! is past it; nothing happens when they reach no array (no autowrap).

use quire_engine::row::json::Json;
use quire_engine::row::Value;

use super::path::{locate_mut, wildcard_error, Leg, Path};
use super::{doc, path_arg, value};
use crate::error::{Result, SqlError};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Set,
    Insert,
    Replace,
}

impl Mode {
    fn adds(self) -> bool {
        self != Mode::Replace
    }
    fn changes(self) -> bool {
        self != Mode::Insert
    }
}

/// Runs one of the module's functions; `None` for a NULL result.
pub fn call(name: &str, args: &[Value]) -> Result<Option<Json>> {
    let Some(d) = doc(&args[0], 1, name)? else { return Ok(None) };
    let mut d = d.into_owned();
    // Read every path first: a bad or wild one is an error whatever the
    // values, and a NULL path makes the result NULL.
    let step = if name == "json_remove" { 1 } else { 2 };
    let mut paths = Vec::new();
    for p in args[1..].iter().step_by(step) {
        let Some(p) = path_arg(p)? else { return Ok(None) };
        if p.has_wildcard() {
            return Err(wildcard_error());
        }
        paths.push(p);
    }
    if name == "json_remove" {
        for p in &paths {
            remove(&mut d, p)?;
        }
        return Ok(Some(d));
    }
    for (p, v) in paths.iter().zip(args[2..].iter().step_by(2)) {
        let v = value(v)?;
        match name {
            "json_array_append" => append(&mut d, p, v),
            "json_array_insert" => array_insert(&mut d, p, v)?,
            "json_set" => set(&mut d, p, v, Mode::Set),
            "json_insert" => set(&mut d, p, v, Mode::Insert),
            "json_replace" => set(&mut d, p, v, Mode::Replace),
            other => return Err(SqlError::internal(format!("{other} is not a JSON change"))),
        }
    }
    Ok(Some(d))
}

fn set(d: &mut Json, p: &Path, v: Json, mode: Mode) {
    let Some((last, parent_legs)) = p.legs.split_last() else {
        if mode.changes() {
            *d = v;
        }
        return;
    };
    let Some(parent) = locate_mut(d, parent_legs) else { return };
    match (last, parent) {
        (Leg::Member(k), Json::Object(o)) => {
            let exists = o.get(k).is_some();
            if (exists && mode.changes()) || (!exists && mode.adds()) {
                o.insert(k.clone(), v);
            }
        }
        (Leg::Cell(ix), Json::Array(a)) => match ix.resolve(a.len()) {
            Some(i) if mode.changes() => a[i] = v,
            Some(_) => {}
            None if mode.adds() => a.push(v),
            None => {}
        },
        (Leg::Cell(ix), parent) => {
            if ix.resolve(1) == Some(0) {
                if mode.changes() {
                    *parent = v;
                }
            } else if mode.adds() {
                let old = std::mem::replace(parent, Json::Null);
                *parent = Json::Array(vec![old, v]);
            }
        }
        _ => {}
    }
}

fn append(d: &mut Json, p: &Path, v: Json) {
    let Some(target) = locate_mut(d, &p.legs) else { return };
    match target {
        Json::Array(a) => a.push(v),
        other => {
            let old = std::mem::replace(other, Json::Null);
            *other = Json::Array(vec![old, v]);
        }
    }
}

/// 3165: JSON_ARRAY_INSERT's path does not end in an array cell.
fn not_a_cell() -> SqlError {
    SqlError::new(3165, "42000", "A path expression is not a path to a cell in an array.")
}

fn array_insert(d: &mut Json, p: &Path, v: Json) -> Result<()> {
    let Some((Leg::Cell(ix), parent_legs)) = p.legs.split_last() else { return Err(not_a_cell()) };
    if let Some(Json::Array(a)) = locate_mut(d, parent_legs) {
        let at = match *ix {
            super::path::Index::Start(n) => n.min(a.len() as u64) as usize,
            super::path::Index::End(n) => (a.len() as u64).saturating_sub(n + 1) as usize,
        };
        a.insert(at, v);
    }
    Ok(())
}

fn remove(d: &mut Json, p: &Path) -> Result<()> {
    let Some((last, parent_legs)) = p.legs.split_last() else {
        return Err(SqlError::new(3153, "42000", "The path expression '$' is not allowed in this context."));
    };
    let Some(parent) = locate_mut(d, parent_legs) else { return Ok(()) };
    match (last, parent) {
        (Leg::Member(k), Json::Object(o)) => {
            o.remove(k);
        }
        (Leg::Cell(ix), Json::Array(a)) => {
            if let Some(i) = ix.resolve(a.len()) {
                a.remove(i);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: &str, doc: &str, rest: &[&str]) -> String {
        let mut args = vec![Value::Str(doc.into())];
        args.extend(rest.iter().map(|s| Value::Str((*s).into())));
        call(f, &args).unwrap().map_or("NULL".into(), |j| j.to_string())
    }

    #[test]
    fn changes_follow_mysqls_manual() {
        // The manual's JSON_SET / JSON_INSERT / JSON_REPLACE example.
        let j = r#"{ "a": 1, "b": [2, 3]}"#;
        assert_eq!(
            run("json_set", j, &["$.a", "10", "$.c", "[true, false]"]),
            r#"{"a": "10", "b": [2, 3], "c": "[true, false]"}"#
        );
        assert_eq!(run("json_insert", j, &["$.a", "10", "$.c", "x"]), r#"{"a": 1, "b": [2, 3], "c": "x"}"#);
        assert_eq!(run("json_replace", j, &["$.a", "10", "$.c", "x"]), r#"{"a": "10", "b": [2, 3]}"#);
        assert_eq!(run("json_remove", r#"["a", ["b", "c"], "d"]"#, &["$[1]"]), r#"["a", "d"]"#);
        assert_eq!(run("json_set", "[1, 2]", &["$[5]", "x", "$[0]", "y"]), r#"["y", 2, "x"]"#);
        assert_eq!(run("json_set", "1", &["$[0]", "x"]), r#""x""#);
        assert_eq!(run("json_insert", "1", &["$[1]", "x"]), r#"[1, "x"]"#);
        assert_eq!(run("json_set", "{}", &["$.a.b", "x"]), "{}");
        assert_eq!(run("json_set", "{}", &["$", "x"]), r#""x""#);
        assert_eq!(
            run("json_array_append", r#"["a", ["b", "c"], "d"]"#, &["$[1]", "1", "$[0]", "2"]),
            r#"[["a", "2"], ["b", "c", "1"], "d"]"#
        );
        // The manual's JSON_ARRAY_INSERT example.
        let j = r#"["a", {"b": [1, 2]}, [3, 4]]"#;
        assert_eq!(run("json_array_insert", j, &["$[1]", "x"]), r#"["a", "x", {"b": [1, 2]}, [3, 4]]"#);
        assert_eq!(run("json_array_insert", j, &["$[100]", "x"]), r#"["a", {"b": [1, 2]}, [3, 4], "x"]"#);
        assert_eq!(run("json_array_insert", j, &["$[1].b[0]", "x"]), r#"["a", {"b": ["x", 1, 2]}, [3, 4]]"#);
        assert_eq!(run("json_array_insert", j, &["$[2][1]", "y"]), r#"["a", {"b": [1, 2]}, [3, "y", 4]]"#);
        assert_eq!(run("json_array_insert", j, &["$[0]", "x", "$[2][1]", "y"]), r#"["x", "a", {"b": [1, 2]}, [3, 4]]"#);
        assert_eq!(run("json_array_insert", "[1, 2, 3]", &["$[last]", "x"]), r#"[1, 2, "x", 3]"#);
        assert_eq!(run("json_array_insert", r#"{"a": 1}"#, &["$.a[0]", "x"]), r#"{"a": 1}"#);
        assert_eq!(run("json_set", "{}", &["$.a", "x"]), r#"{"a": "x"}"#);
    }

    #[test]
    fn wildcards_and_the_whole_document_are_refused() {
        let e = |f: &str, p: &str| {
            call(f, &[Value::Str("[1]".into()), Value::Str(p.into()), Value::Int(1)]).unwrap_err().code
        };
        assert_eq!(e("json_set", "$[*]"), 3149);
        assert_eq!(e("json_set", "$**[0]"), 3149);
        assert_eq!(call("json_remove", &[Value::Str("[1]".into()), Value::Str("$".into())]).unwrap_err().code, 3153);
        assert_eq!(e("json_set", "$.a b"), 3143);
        assert_eq!(e("json_array_insert", "$.a"), 3165);
        assert_eq!(e("json_array_insert", "$"), 3165);
        assert_eq!(e("json_array_insert", "$[*]"), 3149);
        assert!(call("json_set", &[Value::Str("[1]".into()), Value::Null, Value::Int(1)]).unwrap().is_none());
    }
}
