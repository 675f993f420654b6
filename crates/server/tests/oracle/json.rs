//! Comparing answers whose cells are JSON documents: MariaDB prints JSON
//! as written, quire (as MySQL 8.0) normalised, so a cell that is JSON on
//! both sides is compared as a JSON value (numbers as doubles).

use mysql::Conn;

use super::{answer, Answer};

/// A JSON document as a value to compare, numbers as doubles; `None` if
/// the text is not JSON.
pub fn as_json(s: &str) -> Option<serde_json::Value> {
    fn norm(v: serde_json::Value) -> serde_json::Value {
        use serde_json::Value as V;
        match v {
            V::Number(n) => serde_json::json!(n.as_f64()),
            V::Array(a) => V::Array(a.into_iter().map(norm).collect()),
            V::Object(o) => V::Object(o.into_iter().map(|(k, v)| (k, norm(v))).collect()),
            other => other,
        }
    }
    serde_json::from_str::<serde_json::Value>(s).ok().map(norm)
}

fn same_cell(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x == y || (as_json(x).is_some() && as_json(x) == as_json(y)),
        _ => a == b,
    }
}

/// Runs each statement on both and asserts the same answers, cells that
/// are JSON compared as JSON values.
pub fn same_json_answers(q: &mut Conn, m: &mut Conn, statements: &[&str]) {
    for sql in statements {
        let (a, b) = (answer(q, sql), answer(m, sql));
        match (&a, &b) {
            (Answer::Rows(x), Answer::Rows(y)) => {
                let same = x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(r, s)| r.len() == s.len() && r.iter().zip(s).all(|(p, q)| same_cell(p, q)));
                assert!(same, "quire and MariaDB differ on: {sql}\nquire:   {x:?}\nMariaDB: {y:?}");
            }
            _ => assert_eq!(a, b, "quire and MariaDB differ on: {sql}"),
        }
    }
}
