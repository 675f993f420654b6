//! Query text normalisation for the plan cache: the literals of a
//! SELECT / INSERT / UPDATE / DELETE become `?` markers and their values
//! are kept, so `SELECT c FROM t WHERE id=5` and `... id=7` share one
//! parsed and planned statement (as prepared statements do).
//!
//! Only what is certainly a value is replaced: plain numbers and strings
//! outside the select list (whose text names result columns) and outside
//! ORDER BY / GROUP BY (where a number is a column position). Anything
//! unusual — comments, escapes in strings, introducers (`_utf8'x'`,
//! `X'..'`), hex numbers, an existing `?` — gives up (`None`), and the
//! text is parsed as it is.

use quire_engine::row::Value;

use crate::expr::number;

/// The normalised text and the literal values, in order.
pub fn normalize(sql: &str) -> Option<(String, Vec<Value>)> {
    let b = sql.as_bytes();
    let first = sql.trim_start().get(..6)?;
    if !["SELECT", "INSERT", "UPDATE", "DELETE"].iter().any(|k| k.eq_ignore_ascii_case(first)) {
        return None;
    }
    let mut out = String::with_capacity(sql.len());
    // About one value per comma: a bulk INSERT's list is not regrown.
    let mut vals = Vec::with_capacity(b.iter().filter(|&&c| c == b',').count() + 1);
    let mut i = 0;
    // Inside the select list (SELECT .. FROM) or an ORDER/GROUP BY list.
    let mut in_projection = first.eq_ignore_ascii_case("SELECT");
    let mut in_by = false;
    let mut prev_word = Word::Other;
    let mut selects = 0;
    // Parentheses open: the words that end lists count only outside them
    // (`EXTRACT(YEAR FROM d)`, `TRIM(x FROM s)`, `SUBSTRING(s FROM 1 FOR
    // 2)` are still the select list).
    let mut depth = 0i32;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' => {
                let q = c;
                let mut j = i + 1;
                let mut s = Vec::new();
                loop {
                    let ch = *b.get(j)?;
                    if ch == b'\\' {
                        return None;
                    }
                    if ch == q {
                        if b.get(j + 1) == Some(&q) {
                            s.push(q);
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    s.push(ch);
                    j += 1;
                }
                let text = String::from_utf8(s).ok()?;
                if in_projection || in_by {
                    out.push_str(&sql[i..=j]);
                } else {
                    out.push('?');
                    vals.push(Value::Str(text));
                }
                i = j + 1;
                prev_word = Word::Other;
            }
            b'`' => {
                let j = i + 1 + sql[i + 1..].find('`')?;
                out.push_str(&sql[i..=j]);
                i = j + 1;
                prev_word = Word::Other;
            }
            b'0'..=b'9' | b'.' if c != b'.' || b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let mut j = i;
                while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                    j += 1;
                }
                if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                    j += 1;
                    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                        j += 1;
                    }
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                if j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'_') {
                    return None; // 0x1F, 1abc: not a plain number
                }
                let text = &sql[i..j];
                if in_projection || in_by {
                    out.push_str(text);
                } else {
                    out.push('?');
                    vals.push(number(text).ok()?);
                }
                i = j;
                prev_word = Word::Other;
            }
            b'?' | b'#' => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'/' if b.get(i + 1) == Some(&b'*') => return None,
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'@' || c == b'$' => {
                let mut j = i;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'@' | b'$' | b'.')) {
                    j += 1;
                }
                if j < b.len() && (b[j] == b'\'' || b[j] == b'"') {
                    return None; // an introducer or X'..'
                }
                let w = Word::of(&sql[i..j]);
                match w {
                    // A subquery, derived table or set operation: literals
                    // in its select lists name columns the outer query sees.
                    Word::Select if selects > 0 => return None,
                    Word::Select => selects += 1,
                    _ if depth > 0 => {}
                    Word::From => in_projection = false,
                    Word::By if matches!(prev_word, Word::Order | Word::Group) => in_by = true,
                    Word::Union => in_by = false,
                    Word::EndsLists => {
                        in_by = false;
                        in_projection = false;
                    }
                    _ => {}
                }
                out.push_str(&sql[i..j]);
                prev_word = w;
                i = j;
            }
            _ if !c.is_ascii() => return None,
            _ => {
                match c {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                out.push(c as char);
                if !c.is_ascii_whitespace() {
                    prev_word = Word::Other;
                }
                i += 1;
            }
        }
    }
    Some((out, vals))
}

/// The words [`normalize`] follows to know whether a literal is a value or
/// part of a select / ORDER BY / GROUP BY list, matched without allocating.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Select,
    From,
    By,
    Order,
    Group,
    Union,
    /// LIMIT, HAVING, FOR, LOCK, WHERE: the end of the lists above.
    EndsLists,
    Other,
}

impl Word {
    fn of(w: &str) -> Word {
        const WORDS: [(&str, Word); 11] = [
            ("SELECT", Word::Select),
            ("FROM", Word::From),
            ("BY", Word::By),
            ("ORDER", Word::Order),
            ("GROUP", Word::Group),
            ("UNION", Word::Union),
            ("LIMIT", Word::EndsLists),
            ("HAVING", Word::EndsLists),
            ("FOR", Word::EndsLists),
            ("LOCK", Word::EndsLists),
            ("WHERE", Word::EndsLists),
        ];
        if w.len() > 6 {
            return Word::Other;
        }
        WORDS.iter().find(|(k, _)| k.eq_ignore_ascii_case(w)).map_or(Word::Other, |&(_, v)| v)
    }
}

/// A normalised `INSERT ... VALUES (..), (..), ...` whose tuples are all
/// the same text (the usual bulk load: literals only, so every tuple reads
/// `(?, ?, ?)`): the length of its prefix up to the end of the first tuple
/// and the number of tuples. Such a statement is planned once as that
/// one-tuple prefix and run with the template repeated over the values
/// (`Session::query_inner`): a 10 000-row INSERT is then never handed to
/// the SQL parser. `None` when the tuples differ or anything follows them.
pub fn repeated_tuples(norm: &str) -> Option<(usize, usize)> {
    let b = norm.as_bytes();
    if !norm.trim_start().get(..6)?.eq_ignore_ascii_case("INSERT") {
        return None;
    }
    let start = find_word(norm, "VALUES").or_else(|| find_word(norm, "VALUE"))?;
    let first = start + norm[start..].find('(')?;
    if !norm[start..first].bytes().skip(6).all(|c| c.is_ascii_whitespace()) {
        return None;
    }
    let end = tuple_end(b, first)?;
    let tuple = &b[first..end];
    let mut n = 1;
    let mut i = end;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i) {
            None => break,
            Some(b';') if b[i + 1..].iter().all(u8::is_ascii_whitespace) => break,
            Some(b',') => {}
            Some(_) => return None,
        }
        i += 1;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if !b[i..].starts_with(tuple) {
            return None;
        }
        i += tuple.len();
        n += 1;
    }
    Some((end, n))
}

/// The byte offset of the first occurrence of `word` (any case) standing
/// alone, outside backquotes.
fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            i += 1 + s[i + 1..].find('`')? + 1;
            continue;
        }
        let alone = |k: usize| b.get(k).is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
        if b.len() - i >= word.len()
            && b[i..i + word.len()].eq_ignore_ascii_case(word.as_bytes())
            && (i == 0 || alone(i - 1))
            && alone(i + word.len())
        {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The end (exclusive) of the parenthesised tuple opening at `open`.
fn tuple_end(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'`' => i += b[i + 1..].iter().position(|&c| c == b'`')? + 1,
            b'\'' | b'"' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_become_markers_outside_select_lists_and_order_by() {
        let (t, v) = normalize("SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c").unwrap();
        assert_eq!(t, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c");
        assert_eq!(v, [Value::Int(5), Value::Int(104)]);
        let (t, v) = normalize("SELECT 1, 'a' FROM t WHERE s = 'it''s' ORDER BY 1 LIMIT 10").unwrap();
        assert_eq!(t, "SELECT 1, 'a' FROM t WHERE s = ? ORDER BY 1 LIMIT ?");
        assert_eq!(v, [Value::Str("it's".into()), Value::Int(10)]);
        let (t, _) = normalize("INSERT INTO t1 (id, k) VALUES (0, -1.5e3)").unwrap();
        assert_eq!(t, "INSERT INTO t1 (id, k) VALUES (?, -?)");
    }

    #[test]
    fn from_and_for_inside_parentheses_do_not_end_the_select_list() {
        let (t, v) =
            normalize("SELECT EXTRACT(YEAR FROM d), 1 + 2, SUBSTRING(s FROM 2 FOR 3), 'a' FROM t WHERE id = 5")
                .unwrap();
        assert_eq!(t, "SELECT EXTRACT(YEAR FROM d), 1 + 2, SUBSTRING(s FROM 2 FOR 3), 'a' FROM t WHERE id = ?");
        assert_eq!(v, [Value::Int(5)]);
        let (t, _) = normalize("SELECT TRIM('x' FROM s) FROM t WHERE (a = 1) ORDER BY 1 LIMIT 3").unwrap();
        assert_eq!(t, "SELECT TRIM('x' FROM s) FROM t WHERE (a = ?) ORDER BY 1 LIMIT ?");
    }

    #[test]
    fn anything_unusual_is_left_to_the_parser() {
        assert!(normalize("SELECT * FROM t WHERE s = 'a\\'b'").is_none());
        assert!(normalize("SELECT * FROM t WHERE s = _utf8mb4'x'").is_none());
        assert!(normalize("SELECT * FROM t WHERE id = 0x1F").is_none());
        assert!(normalize("SELECT * FROM t /* hint */ WHERE id = 1").is_none());
        assert!(normalize("CREATE TABLE t (id INT)").is_none());
    }

    #[test]
    fn identical_tuples_of_a_bulk_insert_are_found() {
        let (t, v) =
            normalize("INSERT INTO sbtest1(k, c, pad) VALUES(5, 'a', 'b'),(6, 'c', 'd'), (7, 'e', 'f');").unwrap();
        assert_eq!(repeated_tuples(&t), Some(("INSERT INTO sbtest1(k, c, pad) VALUES(?, ?, ?)".len(), 3)));
        assert_eq!(v.len(), 9);
        let one = normalize("insert into t values (1, now())").unwrap().0;
        assert_eq!(repeated_tuples(&one), Some((one.len(), 1)));
        // Tuples of other shapes, a tail, or no VALUES: not a template.
        for sql in [
            "INSERT INTO t VALUES (1, 2), (3, NOW())",
            "INSERT INTO t VALUES (1), (2) ON DUPLICATE KEY UPDATE a = 1",
            "INSERT INTO t SELECT * FROM u",
            "INSERT INTO t SET a = 1",
            "SELECT * FROM t WHERE a IN (1), (2)",
        ] {
            let n = normalize(sql).map(|(t, _)| t).unwrap_or_else(|| sql.to_string());
            assert_eq!(repeated_tuples(&n).filter(|&(_, n)| n > 1), None, "{sql}");
        }
        let q = normalize("INSERT INTO `values`(`(`) VALUES ((1)), ((2))").unwrap().0;
        assert_eq!(repeated_tuples(&q), Some(("INSERT INTO `values`(`(`) VALUES ((?))".len(), 2)));
    }
}
