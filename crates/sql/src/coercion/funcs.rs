//! The comparing string functions under a derived collation other than
//! the default (utf8mb4_general_ci, which `strfunc.rs` / `func.rs` use):
//! STRCMP, NULLIF, FIELD, FIND_IN_SET, LOCATE / INSTR / POSITION,
//! GREATEST, LEAST. Reached only inside an `Expr::Collate` node that
//! [`super::bind`] placed, so the default path pays nothing. NULL in an
//! argument that is read gives NULL, as there.

use std::cmp::Ordering;

use quire_engine::row::{Collation, Value};

use crate::error::Result;
use crate::expr::{as_string, compare, to_i128};

/// Whether `name` is one of this module's functions.
pub fn collated(name: &str) -> bool {
    matches!(name, "strcmp" | "nullif" | "field" | "find_in_set" | "locate" | "instr" | "greatest" | "least")
}

fn equal(a: &Value, b: &Value, c: Collation) -> bool {
    compare(a, b, c) == Some(Ordering::Equal)
}

/// Where `needle` first occurs in `hay` at or after character `from`
/// under `c`, 1-based; 0 when it does not. As MariaDB's `my_instr_mb`:
/// at each character, the window of the needle's byte length is compared
/// by the collation (a window that ends inside a character never
/// matches).
fn find_from(hay: &str, needle: &str, from: usize, c: Collation) -> i64 {
    let starts: Vec<usize> = hay.char_indices().map(|(i, _)| i).collect();
    if needle.is_empty() {
        return if from <= starts.len() { from as i64 + 1 } else { 0 };
    }
    let needle_v = Value::Str(needle.to_string());
    for (k, &at) in starts.iter().enumerate().skip(from) {
        let Some(w) = hay.get(at..at + needle.len()) else { continue };
        if equal(&Value::Str(w.to_string()), &needle_v, c) {
            return k as i64 + 1;
        }
    }
    0
}

/// Calls `name` (one of [`collated`]) comparing by `c`.
pub fn call(name: &str, args: &[Value], c: Collation) -> Result<Value> {
    let reads_all = !matches!(name, "field" | "nullif");
    if reads_all && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let s = |i: usize| as_string(&args[i]);
    Ok(match (name, args) {
        ("strcmp", [a, b]) => Value::Int(match compare(a, b, c) {
            Some(Ordering::Less) => -1,
            Some(Ordering::Greater) => 1,
            _ => 0,
        }),
        ("nullif", [a, b]) => {
            if !a.is_null() && !b.is_null() && equal(a, b, c) {
                Value::Null
            } else {
                a.clone()
            }
        }
        ("field", [first, rest @ ..]) => {
            if first.is_null() {
                return Ok(Value::Int(0));
            }
            let hit = rest.iter().position(|v| !v.is_null() && equal(first, v, c));
            Value::Int(hit.map_or(0, |i| i as i64 + 1))
        }
        ("find_in_set", [_, _]) => {
            let (needle, list) = (s(0), s(1));
            if needle.contains(',') || list.is_empty() {
                return Ok(Value::Int(0));
            }
            let needle = Value::Str(needle);
            let hit = list.split(',').position(|item| equal(&Value::Str(item.into()), &needle, c));
            Value::Int(hit.map_or(0, |i| i as i64 + 1))
        }
        ("locate", [_, _, ..]) => {
            let from = if args.len() == 3 { to_i128(&args[2]).unwrap_or(0) } else { 1 };
            if from < 1 {
                Value::Int(0)
            } else {
                Value::Int(find_from(&s(1), &s(0), (from - 1).min(usize::MAX as i128) as usize, c))
            }
        }
        ("instr", [_, _]) => Value::Int(find_from(&s(0), &s(1), 0, c)),
        ("greatest" | "least", [first, rest @ ..]) => {
            let mut best = first.clone();
            for v in rest {
                let o = compare(v, &best, c);
                let better = if name == "greatest" { o == Some(Ordering::Greater) } else { o == Some(Ordering::Less) };
                if better {
                    best = v.clone();
                }
            }
            best
        }
        _ => return Err(crate::error::SqlError::internal(format!("{name} under a collation"))),
    })
}
