//! The BINARY attribute of a string column (`CHAR(36) BINARY`, as
//! Sequelize declares a UUID): MySQL's and MariaDB's shorthand for the
//! `_bin` collation of the column's character set (the table's when the
//! column names none); an explicit COLLATE wins.
//!
//! sqlparser reads no such attribute. A CREATE / ALTER TABLE that failed
//! to parse is retried with each unquoted `BINARY` that follows a string
//! type (`CHAR`, `VARCHAR`, the `TEXT`s, `ENUM`, `SET`, with or without
//! their `(...)`) left out, and those columns are marked afterwards with
//! a [`ast::ColumnOption::DialectSpecific`] `BINARY` option, which
//! [`super::charset::apply_column`] reads and which prints back as
//! `BINARY` right after the type (ALTER TABLE re-reads a column from its
//! text: the retry marks it again). `BINARY(n)` as a type is untouched:
//! the word before it is a column name, not a string type.

use sqlparser::ast;
use sqlparser::tokenizer::{Token, Tokenizer};

const STRING_TYPES: &[&str] =
    &["CHAR", "CHARACTER", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET", "NCHAR", "NVARCHAR"];

/// The statement without the BINARY attributes and the names of the
/// columns that had one, if it is a CREATE / ALTER TABLE with one.
pub fn strip(text: &str) -> Option<(String, Vec<String>)> {
    let tokens = Tokenizer::new(&sqlparser::dialect::MySqlDialect {}, text).tokenize().ok()?;
    let word = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    if !matches!(tokens.iter().find_map(word).as_deref(), Some("CREATE" | "ALTER")) {
        return None;
    }
    let significant: Vec<usize> = (0..tokens.len()).filter(|&i| !matches!(tokens[i], Token::Whitespace(_))).collect();
    let mut names = Vec::new();
    let mut dropped = vec![false; tokens.len()];
    for (k, &i) in significant.iter().enumerate() {
        if word(&tokens[i]).as_deref() != Some("BINARY") {
            continue;
        }
        if let Some(name) = string_column_before(significant[..k].iter().rev().map(|&j| &tokens[j])) {
            names.push(name);
            dropped[i] = true;
        }
    }
    if names.is_empty() {
        return None;
    }
    let out: String = tokens.iter().zip(&dropped).filter(|(_, &d)| !d).map(|(t, _)| t.to_string()).collect();
    Some((out, names))
}

/// The column whose string type the tokens before a BINARY (nearest
/// first, whitespace left out) end with, a `CHARACTER SET cs` or
/// `CHARSET cs` after the type skipped.
fn string_column_before<'a>(mut before: impl Iterator<Item = &'a Token>) -> Option<String> {
    let is = |t: Option<&&Token>, w: &str| matches!(t, Some(Token::Word(x)) if x.value.eq_ignore_ascii_case(w));
    let rest: Vec<&Token> = before.by_ref().take(3).collect();
    let skip = if is(rest.get(1), "CHARSET") {
        2
    } else if is(rest.get(1), "SET") && is(rest.get(2), "CHARACTER") {
        3
    } else {
        0
    };
    let mut before = rest.into_iter().skip(skip).chain(before);
    let mut t = before.next()?;
    if *t == Token::RParen {
        loop {
            match before.next()? {
                Token::LParen => break,
                Token::RParen => return None,
                _ => {}
            }
        }
        t = before.next()?;
    }
    let Token::Word(ty) = t else { return None };
    if ty.quote_style.is_some() || !STRING_TYPES.iter().any(|s| ty.value.eq_ignore_ascii_case(s)) {
        return None;
    }
    match before.next()? {
        Token::Word(name) => Some(name.value.clone()),
        _ => None,
    }
}

/// The option that marks a column as BINARY.
fn option() -> ast::ColumnOption {
    ast::ColumnOption::DialectSpecific(vec![Token::make_keyword("BINARY")])
}

/// Whether `o` is the BINARY mark.
pub fn is_mark(o: &ast::ColumnOption) -> bool {
    matches!(o, ast::ColumnOption::DialectSpecific(t)
        if matches!(t.as_slice(), [Token::Word(w)] if w.value.eq_ignore_ascii_case("binary")))
}

/// Marks the columns named in `names` in the parsed statements.
pub fn mark(stmts: &mut [ast::Statement], names: &[String]) {
    super::zerofill::mark_with(stmts, names, &option());
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn binary_after_a_string_type_is_an_attribute() {
        let (text, names) = strip(
            "CREATE TABLE t (`id` CHAR(36) BINARY, b BINARY(16), e ENUM('a') BINARY NOT NULL, \
             c VARCHAR(5) CHARACTER SET latin1 BINARY, d TEXT CHARSET utf8mb4 BINARY)",
        )
        .unwrap();
        assert_eq!(
            text,
            "CREATE TABLE t (`id` CHAR(36) , b BINARY(16), e ENUM('a')  NOT NULL, \
             c VARCHAR(5) CHARACTER SET latin1 , d TEXT CHARSET utf8mb4 )"
        );
        assert_eq!(names, ["id", "e", "c", "d"]);
        assert!(strip("CREATE TABLE t (b BINARY(16), v VARBINARY(3))").is_none());
        assert!(strip("SELECT CAST(x AS BINARY)").is_none());
    }
}
