//! JSON_SEARCH(doc, 'one' | 'all', pattern [, escape [, path] ...]): the
//! paths of the string values of a document that match a LIKE pattern.
//!
//! The places the given paths name (`$` when none is given; wildcards
//! allowed) are walked in document order (object members in MySQL's key
//! order), and every string scalar inside them whose text matches the
//! pattern (`%`, `_`, the escape character — `\` when NULL or empty —
//! compared as LIKE compares in the default collation) is a hit, named
//! by its own path (`$.a[2]`, `$."a b"`), each once. 'one' answers the
//! first hit, 'all' the hit or, when more, an array of them; no hit is
//! NULL, and so is a NULL document, mode, pattern or path.

use quire_engine::row::json::{text as json_text, Json};
use quire_engine::row::Value;

use super::path::{Leg, Path};
use super::{doc, path_arg};
use crate::error::{Result, SqlError};

/// One concrete step to a value.
#[derive(Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Cell(usize),
}

/// The text of a concrete path, as MySQL prints it.
fn path_text(steps: &[Step]) -> String {
    let mut s = String::from("$");
    for st in steps {
        match st {
            Step::Cell(i) => s.push_str(&format!("[{i}]")),
            Step::Key(k) if is_identifier(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Key(k) => {
                s.push('.');
                json_text::write_string(k, &mut s);
            }
        }
    }
    s
}

/// Whether a key may stand unquoted in a path (an ECMAScript identifier).
fn is_identifier(k: &str) -> bool {
    let mut cs = k.chars();
    let ok_first = |c: char| c == '_' || c == '$' || c.is_alphabetic();
    cs.next().is_some_and(ok_first) && cs.all(|c| ok_first(c) || c.is_alphanumeric())
}

/// The places `legs` name in `v`, with their concrete paths (as
/// `Path::find`, which does not keep the way there).
fn places<'a>(v: &'a Json, legs: &[Leg], at: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, &'a Json)>) {
    let Some((leg, rest)) = legs.split_first() else {
        out.push((at.clone(), v));
        return;
    };
    let mut go = |step: Option<Step>, child: &'a Json, legs: &[Leg], out: &mut Vec<(Vec<Step>, &'a Json)>| {
        let pushed = step.map(|s| at.push(s)).is_some();
        places(child, legs, at, out);
        if pushed {
            at.pop();
        }
    };
    match (leg, v) {
        (Leg::Member(k), Json::Object(o)) => {
            if let Some(m) = o.get(k) {
                go(Some(Step::Key(k.clone())), m, rest, out);
            }
        }
        (Leg::AnyMember, Json::Object(o)) => {
            for (k, m) in o.iter() {
                go(Some(Step::Key(k.clone())), m, rest, out);
            }
        }
        (Leg::Cell(ix), Json::Array(a)) => {
            if let Some(i) = ix.resolve(a.len()) {
                go(Some(Step::Cell(i)), &a[i], rest, out);
            }
        }
        (Leg::Range(x, y), Json::Array(a)) => {
            for i in Leg::range(*x, *y, a.len()) {
                go(Some(Step::Cell(i)), &a[i], rest, out);
            }
        }
        (Leg::AnyCell, Json::Array(a)) => {
            for (i, e) in a.iter().enumerate() {
                go(Some(Step::Cell(i)), e, rest, out);
            }
        }
        (Leg::Cell(ix), _) if ix.resolve(1) == Some(0) => go(None, v, rest, out),
        (Leg::Range(x, y), _) if Leg::range(*x, *y, 1).contains(&0) => go(None, v, rest, out),
        (Leg::Ellipsis, _) => {
            go(None, v, rest, out);
            match v {
                Json::Array(a) => {
                    for (i, e) in a.iter().enumerate() {
                        go(Some(Step::Cell(i)), e, legs, out);
                    }
                }
                Json::Object(o) => {
                    for (k, e) in o.iter() {
                        go(Some(Step::Key(k.clone())), e, legs, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// The strings inside `v` matching `pattern`, by path, in document order.
fn hits(v: &Json, pattern: &str, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>, one: bool) {
    if one && !out.is_empty() {
        return;
    }
    match v {
        Json::Str(s) if crate::expr::like(s, pattern) => out.push(at.clone()),
        Json::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                at.push(Step::Cell(i));
                hits(e, pattern, at, out, one);
                at.pop();
            }
        }
        Json::Object(o) => {
            for (k, e) in o.iter() {
                at.push(Step::Key(k.clone()));
                hits(e, pattern, at, out, one);
                at.pop();
            }
        }
        _ => {}
    }
}

/// `pattern` with `escape` made LIKE's `\` (and a `\` that is not the
/// escape character a literal backslash).
fn with_escape(pattern: &str, escape: char) -> String {
    if escape == '\\' {
        return pattern.to_string();
    }
    let mut out = String::with_capacity(pattern.len());
    let mut cs = pattern.chars().peekable();
    while let Some(c) = cs.next() {
        if c == escape && cs.peek().is_some() {
            out.push('\\');
            out.extend(cs.next());
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    out
}

/// JSON_SEARCH.
pub fn call(args: &[Value]) -> Result<Option<Json>> {
    const F: &str = "json_search";
    let Some(d) = doc(&args[0], 1, F)? else { return Ok(None) };
    if args[1].is_null() || args[2].is_null() || args.iter().skip(4).any(Value::is_null) {
        return Ok(None);
    }
    let one = match crate::expr::as_string(&args[1]).to_ascii_lowercase().as_str() {
        "one" => true,
        "all" => false,
        _ => {
            return Err(SqlError::new(
                3154,
                "42000",
                "The oneOrAll argument to json_search may take these values: 'one' or 'all'.",
            ))
        }
    };
    let escape = match args.get(3) {
        None | Some(Value::Null) => '\\',
        Some(e) => {
            let e = crate::expr::as_string(e);
            let mut cs = e.chars();
            match (cs.next(), cs.next()) {
                (None, _) => '\\',
                (Some(c), None) => c,
                _ => return Err(SqlError::new(1210, "HY000", "Incorrect arguments to ESCAPE")),
            }
        }
    };
    let pattern = with_escape(&crate::expr::as_string(&args[2]), escape);
    let paths = if args.len() > 4 {
        args[4..].iter().map(path_arg).collect::<Result<Vec<_>>>()?.into_iter().flatten().collect()
    } else {
        vec![Path { legs: Vec::new() }]
    };
    let mut found: Vec<Vec<Step>> = Vec::new();
    for p in &paths {
        let mut starts = Vec::new();
        places(&d, &p.legs, &mut Vec::new(), &mut starts);
        for (mut at, v) in starts {
            let mut more = Vec::new();
            hits(v, &pattern, &mut at, &mut more, one);
            for h in more {
                if !found.contains(&h) {
                    found.push(h);
                }
            }
            if one && !found.is_empty() {
                break;
            }
        }
    }
    let mut texts: Vec<Json> = found.iter().map(|s| Json::Str(path_text(s))).collect();
    Ok(match texts.len() {
        0 => None,
        1 => Some(texts.swap_remove(0)),
        _ if one => Some(texts.swap_remove(0)),
        _ => Some(Json::Array(texts)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> String {
        let args: Vec<Value> =
            args.iter().map(|a| if *a == "NULL" { Value::Null } else { Value::Str((*a).into()) }).collect();
        call(&args).unwrap().map_or("NULL".into(), |j| j.to_string())
    }

    #[test]
    fn search_follows_mysqls_manual() {
        let j = r#"["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]"#;
        assert_eq!(run(&[j, "one", "abc"]), r#""$[0]""#);
        assert_eq!(run(&[j, "all", "abc"]), r#"["$[0]", "$[2].x"]"#);
        assert_eq!(run(&[j, "all", "ghi"]), "NULL");
        assert_eq!(run(&[j, "all", "10"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "10", "NULL", "$"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "10", "NULL", "$[*]"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "10", "NULL", "$**.k"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "10", "NULL", "$[*][0].k"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "10", "NULL", "$[1]"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "10", "NULL", "$[1][0]"]), r#""$[1][0].k""#);
        assert_eq!(run(&[j, "all", "abc", "NULL", "$[2]"]), r#""$[2].x""#);
        assert_eq!(run(&[j, "all", "%a%"]), r#"["$[0]", "$[2].x"]"#);
        assert_eq!(run(&[j, "all", "%b%"]), r#"["$[0]", "$[2].x", "$[3].y"]"#);
        assert_eq!(run(&[j, "all", "%b%", "NULL", "$[0]"]), r#""$[0]""#);
        assert_eq!(run(&[j, "all", "%b%", "NULL", "$[2]"]), r#""$[2].x""#);
        assert_eq!(run(&[j, "all", "%b%", "NULL", "$[1]"]), "NULL");
        assert_eq!(run(&[j, "all", "%b%", "", "$[1]"]), "NULL");
        assert_eq!(run(&[j, "all", "%b%", "", "$[3]"]), r#""$[3].y""#);
        assert_eq!(run(&[r#"{"a b": "x_y"}"#, "one", "x|_y", "|"]), r#""$.\"a b\"""#);
        assert_eq!(run(&[r#"{"a b": "xzy"}"#, "one", "x|_y", "|"]), "NULL");
    }
}
