//! JSON_PRETTY: MySQL's indented text of a document — each array
//! element and object member on its own line, two spaces a level,
//! `"key": value`, empty arrays and objects as `[]` / `{}`, scalars as
//! the normalised text prints them. (MariaDB's JSON_PRETTY is its
//! JSON_DETAILED, which lays documents out differently.)

use quire_engine::row::json::{text as json_text, Json};

/// The pretty text of `j`.
pub fn pretty(j: &Json) -> String {
    let mut out = String::new();
    write(j, 0, &mut out);
    out
}

fn newline(level: usize, out: &mut String) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write(j: &Json, level: usize, out: &mut String) {
    match j {
        Json::Array(a) if !a.is_empty() => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(level + 1, out);
                write(e, level + 1, out);
            }
            newline(level, out);
            out.push(']');
        }
        Json::Object(o) if !o.is_empty() => {
            out.push('{');
            for (i, (k, v)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(level + 1, out);
                json_text::write_string(k, out);
                out.push_str(": ");
                write(v, level + 1, out);
            }
            newline(level, out);
            out.push('}');
        }
        other => json_text::write(other, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::row::json::text::parse;

    #[test]
    fn pretty_text_is_mysqls() {
        // The manual's examples.
        assert_eq!(pretty(&parse("123").unwrap()), "123");
        assert_eq!(pretty(&parse("[1,3,5]").unwrap()), "[\n  1,\n  3,\n  5\n]");
        assert_eq!(
            pretty(&parse(r#"{"a":"10","b":"15","x":"25"}"#).unwrap()),
            "{\n  \"a\": \"10\",\n  \"b\": \"15\",\n  \"x\": \"25\"\n}"
        );
        assert_eq!(
            pretty(&parse(r#"["a",1,{"key1": "value1"},"5", {"key2":["value3","valueX"]}, []]"#).unwrap()),
            "[\n  \"a\",\n  1,\n  {\n    \"key1\": \"value1\"\n  },\n  \"5\",\n  {\n    \"key2\": [\n      \"value3\",\n      \"valueX\"\n    ]\n  },\n  []\n]"
        );
    }
}
