//! `ZEROFILL` column attribute (`INT(5) ZEROFILL`, `DECIMAL(6,2) UNSIGNED
//! ZEROFILL`, ...): the column is UNSIGNED and its values are sent as
//! text padded with zeros to its display width (`Column::zerofill`, the
//! server's text rows).
//!
//! sqlparser reads no ZEROFILL. A CREATE / ALTER TABLE that failed to
//! parse is retried with each unquoted `ZEROFILL` written `UNSIGNED` (or
//! dropped next to an `UNSIGNED`), and the columns that had one are marked
//! afterwards with a [`ast::ColumnOption::DialectSpecific`] `ZEROFILL`
//! option, which `ddl::schema_of` reads and which prints back as
//! `ZEROFILL` (ALTER TABLE re-reads a column from its text: the retry
//! marks it again).
//!
//! A column is found from its ZEROFILL by walking back over `UNSIGNED`,
//! the type's `(...)` and the type word (two for `DOUBLE PRECISION`): the
//! word before is the column's name, in CREATE TABLE and in ALTER
//! TABLE's ADD / MODIFY / CHANGE alike.

use quire_engine::row::{zerofill_width, Column};
use sqlparser::ast;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::error::{Result, SqlError};

/// The statement without ZEROFILL and the names of the columns that had
/// it, if it is a CREATE / ALTER TABLE with one.
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
    let mut out = String::with_capacity(text.len());
    for (k, &i) in significant.iter().enumerate() {
        // Whitespace between significant tokens is copied as it was.
        let from = if k == 0 { 0 } else { significant[k - 1] + 1 };
        for t in &tokens[from..i] {
            out.push_str(&t.to_string());
        }
        if word(&tokens[i]).as_deref() != Some("ZEROFILL") {
            out.push_str(&tokens[i].to_string());
            continue;
        }
        let before = significant[..k].iter().map(|&j| &tokens[j]).rev();
        names.push(column_before(before)?);
        let next = significant.get(k + 1).and_then(|&j| word(&tokens[j]));
        let prev = k.checked_sub(1).and_then(|p| word(&tokens[significant[p]]));
        if next.as_deref() != Some("UNSIGNED") && prev.as_deref() != Some("UNSIGNED") {
            out.push_str("UNSIGNED");
        }
    }
    if let Some(&last) = significant.last() {
        for t in &tokens[last + 1..] {
            out.push_str(&t.to_string());
        }
    }
    (!names.is_empty()).then_some((out, names))
}

/// The column name before a ZEROFILL, from the tokens before it (nearest
/// first, whitespace left out).
fn column_before<'a>(mut before: impl Iterator<Item = &'a Token>) -> Option<String> {
    let mut t = before.next()?;
    if matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("unsigned")) {
        t = before.next()?;
    }
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
    if ty.value.eq_ignore_ascii_case("precision") {
        before.next()?;
    }
    match before.next()? {
        Token::Word(name) => Some(name.value.clone()),
        _ => None,
    }
}

/// The option that marks a column as ZEROFILL.
fn option() -> ast::ColumnOption {
    ast::ColumnOption::DialectSpecific(vec![Token::make_keyword("ZEROFILL")])
}

/// Whether `o` is the ZEROFILL mark.
pub fn is_mark(o: &ast::ColumnOption) -> bool {
    matches!(o, ast::ColumnOption::DialectSpecific(t)
        if matches!(t.as_slice(), [Token::Word(w)] if w.value.eq_ignore_ascii_case("zerofill")))
}

/// Marks one column definition as ZEROFILL. The mark goes first, so
/// that the definition prints back with ZEROFILL right after the type,
/// where [`strip`] finds its column again.
pub fn mark_column(c: &mut ast::ColumnDef) {
    c.options.insert(0, ast::ColumnOptionDef { name: None, option: option() });
}

/// Marks the columns named in `names` in the parsed statements.
pub fn mark(stmts: &mut [ast::Statement], names: &[String]) {
    mark_with(stmts, names, &option());
}

/// Gives the columns named in `names` option `mark` first (it prints
/// right after the type, where the text's attribute was).
pub(crate) fn mark_with(stmts: &mut [ast::Statement], names: &[String], mark: &ast::ColumnOption) {
    let named = |n: &ast::Ident| names.iter().any(|x| x.eq_ignore_ascii_case(&n.value));
    let first = |options: &mut Vec<ast::ColumnOptionDef>| {
        options.insert(0, ast::ColumnOptionDef { name: None, option: mark.clone() })
    };
    for s in stmts {
        match s {
            ast::Statement::CreateTable(ct) => {
                ct.columns.iter_mut().filter(|c| named(&c.name)).for_each(|c| first(&mut c.options));
            }
            ast::Statement::AlterTable(at) => {
                for op in &mut at.operations {
                    match op {
                        ast::AlterTableOperation::AddColumn { column_def: c, .. } if named(&c.name) => {
                            first(&mut c.options)
                        }
                        ast::AlterTableOperation::ModifyColumn { col_name: n, options, .. }
                        | ast::AlterTableOperation::ChangeColumn { new_name: n, options, .. }
                            if named(n) =>
                        {
                            options.insert(0, mark.clone())
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// Makes `col` ZEROFILL (its type already UNSIGNED, from the rewritten
/// text): `dt` gives an integer's display width. ZEROFILL on a type that
/// is not numeric is 1064, as MariaDB's grammar has it.
pub fn apply(col: &mut Column, dt: &ast::DataType) -> Result<()> {
    let text = dt.to_string();
    let display =
        text.find('(').and_then(|i| text[i + 1..].split([')', ',']).next()).and_then(|a| a.trim().parse::<u32>().ok());
    let integer = col.ty.is_integer();
    if display.is_some_and(|w| integer && w > 255) {
        return Err(SqlError::new(1439, "42000", format!("Display width out of range for '{}' (max = 255)", col.name)));
    }
    let display = display.map(|w| w as u8);
    col.zerofill = Some(
        zerofill_width(col.ty, display.filter(|_| integer))
            .ok_or_else(|| SqlError::syntax(format!("ZEROFILL on column '{}' of type {}", col.name, col.ty.sql())))?,
    );
    Ok(())
}

/// `text` padded with zeros to a ZEROFILL column's width.
pub fn padded(zerofill: Option<u8>, text: String) -> String {
    match zerofill {
        Some(w) if text.len() < usize::from(w) => format!("{}{text}", "0".repeat(usize::from(w) - text.len())),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn zerofill_becomes_unsigned_and_names_its_column() {
        let (t, n) =
            strip("CREATE TABLE t (a INT(5) ZEROFILL NOT NULL, `b c` DECIMAL(6,2) UNSIGNED ZEROFILL)").unwrap();
        assert_eq!(t, "CREATE TABLE t (a INT(5) UNSIGNED NOT NULL, `b c` DECIMAL(6,2) UNSIGNED )");
        assert_eq!(n, ["a", "b c"]);
        let (t, n) = strip("alter table t modify x double precision zerofill, change y z float zerofill").unwrap();
        assert_eq!(t, "alter table t modify x double precision UNSIGNED, change y z float UNSIGNED");
        assert_eq!(n, ["x", "z"]);
        assert_eq!(strip("SELECT 1 AS zerofill"), None);
        assert_eq!(strip("CREATE TABLE t (a int, zerofill int)"), None);
        assert_eq!(strip("CREATE TABLE t (a varchar(5) COMMENT 'zerofill')"), None);
    }

    #[test]
    fn a_marked_definition_prints_back_with_zerofill_after_its_type() {
        let stmts = crate::session::parse("ALTER TABLE t ADD COLUMN w SMALLINT ZEROFILL DEFAULT 3").unwrap();
        let text = stmts[0].to_string();
        assert!(text.contains("SMALLINT UNSIGNED ZEROFILL DEFAULT 3"), "{text}");
        assert_eq!(strip(&text).map(|(_, n)| n), Some(vec!["w".to_string()]));
    }
}
