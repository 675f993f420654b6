//! MySQL's LOAD DATA syntax, which sqlparser does not parse (it knows only
//! Hive's `LOAD DATA ... INPATH`): read here with sqlparser's tokenizer
//! and its expression parser for the SET clause.
//!
//! ```text
//! LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file'
//!     [REPLACE | IGNORE] INTO TABLE tbl
//!     [CHARACTER SET charset]
//!     [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
//!     [LINES [STARTING BY 's'] [TERMINATED BY 's']]
//!     [IGNORE n {LINES | ROWS}]
//!     [(col_or_@var, ...)]
//!     [SET col = expr, ...]
//! ```
//!
//! The FIELDS / LINES clauses are shared with SELECT ... INTO OUTFILE
//! ([`parse_format`]).

use sqlparser::ast;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use super::format::Format;
use crate::error::{Result, SqlError};

/// What a duplicate key does to a loaded row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDuplicate {
    Error,
    Ignore,
    Replace,
}

/// One parsed LOAD DATA statement.
#[derive(Clone, Debug)]
pub struct LoadStmt {
    pub local: bool,
    pub file: String,
    pub on_duplicate: OnDuplicate,
    pub table: ast::ObjectName,
    /// CHARACTER SET of the file (lower case), if given.
    pub charset: Option<String>,
    pub format: Format,
    /// IGNORE n LINES.
    pub skip_lines: u64,
    /// The column list: column names and `@var`s (with the `@`); empty:
    /// all visible columns in order.
    pub items: Vec<String>,
    /// SET col = expr.
    pub sets: Vec<(String, ast::Expr)>,
}

fn syntax(e: impl std::fmt::Display) -> SqlError {
    SqlError::syntax(format!("near LOAD DATA: {e}"))
}

/// Whether `sql` starts with LOAD DATA (so that [`parse`] owns it).
pub fn is_load(sql: &str) -> bool {
    let mut w = sql.split_whitespace();
    matches!((w.next(), w.next()), (Some(a), Some(b)) if a.eq_ignore_ascii_case("LOAD") && b.eq_ignore_ascii_case("DATA"))
}

/// Whether `sql` has an `INTO OUTFILE` or `INTO DUMPFILE` clause (not built:
/// such statements are refused with 1235).
pub fn into_file(sql: &str) -> bool {
    let Ok(tokens) = sqlparser::tokenizer::Tokenizer::new(&MySqlDialect {}, sql).tokenize() else { return false };
    let words: Vec<&sqlparser::tokenizer::Word> =
        tokens.iter().filter_map(|t| if let Token::Word(w) = t { Some(w) } else { None }).collect();
    let plain = |w: &sqlparser::tokenizer::Word, s: &str| w.quote_style.is_none() && w.value.eq_ignore_ascii_case(s);
    words.windows(2).any(|p| plain(p[0], "INTO") && (plain(p[1], "OUTFILE") || plain(p[1], "DUMPFILE")))
}

/// Consumes the unquoted word `w` if it is next.
pub(crate) fn word(p: &mut Parser, w: &str) -> bool {
    let yes = matches!(&p.peek_token_ref().token, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    if yes {
        p.next_token();
    }
    yes
}

fn expect_word(p: &mut Parser, w: &str) -> Result<()> {
    if word(p, w) {
        Ok(())
    } else {
        Err(syntax(format!("expected {w}, found {}", p.peek_token_ref().token)))
    }
}

fn string(p: &mut Parser) -> Result<String> {
    p.parse_literal_string().map_err(syntax)
}

/// Parses a LOAD DATA statement (`sql` starts with LOAD DATA).
pub fn parse(sql: &str) -> Result<LoadStmt> {
    let dialect = MySqlDialect {};
    let mut p = Parser::new(&dialect).try_with_sql(sql).map_err(syntax)?;
    expect_word(&mut p, "LOAD")?;
    expect_word(&mut p, "DATA")?;
    let _ = word(&mut p, "LOW_PRIORITY") || word(&mut p, "CONCURRENT");
    let local = word(&mut p, "LOCAL");
    expect_word(&mut p, "INFILE")?;
    let file = string(&mut p)?;
    let on_duplicate = if word(&mut p, "REPLACE") {
        OnDuplicate::Replace
    } else if word(&mut p, "IGNORE") {
        OnDuplicate::Ignore
    } else {
        OnDuplicate::Error
    };
    expect_word(&mut p, "INTO")?;
    expect_word(&mut p, "TABLE")?;
    let table = p.parse_object_name(false).map_err(syntax)?;
    if word(&mut p, "PARTITION") {
        return Err(SqlError::unsupported("LOAD DATA ... PARTITION"));
    }
    let charset = parse_charset(&mut p)?;
    let format = parse_format(&mut p)?;
    let mut skip_lines = 0;
    if word(&mut p, "IGNORE") {
        skip_lines = p.parse_literal_uint().map_err(syntax)?;
        if !(word(&mut p, "LINES") || word(&mut p, "ROWS")) {
            return Err(syntax("expected LINES or ROWS"));
        }
    }
    let mut items = Vec::new();
    if p.consume_token(&Token::LParen) && !p.consume_token(&Token::RParen) {
        loop {
            items.push(p.parse_identifier().map_err(syntax)?.value);
            if p.consume_token(&Token::RParen) {
                break;
            }
            p.expect_token(&Token::Comma).map_err(syntax)?;
        }
    }
    let mut sets = Vec::new();
    if word(&mut p, "SET") {
        loop {
            let col = p.parse_identifier().map_err(syntax)?.value;
            p.expect_token(&Token::Eq).map_err(syntax)?;
            sets.push((col, p.parse_expr().map_err(syntax)?));
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    let _ = p.consume_token(&Token::SemiColon);
    if p.peek_token_ref().token != Token::EOF {
        return Err(syntax(format!("unexpected {}", p.peek_token_ref().token)));
    }
    Ok(LoadStmt { local, file, on_duplicate, table, charset, format, skip_lines, items, sets })
}

/// `[CHARACTER SET | CHARSET] name`.
pub(crate) fn parse_charset(p: &mut Parser) -> Result<Option<String>> {
    let given = if word(p, "CHARACTER") {
        expect_word(p, "SET")?;
        true
    } else {
        word(p, "CHARSET")
    };
    if !given {
        return Ok(None);
    }
    let t = p.next_token().token;
    let name = match t {
        Token::Word(w) => w.value,
        Token::SingleQuotedString(s) => s,
        other => return Err(syntax(format!("expected a character set, found {other}"))),
    };
    Ok(Some(name.to_ascii_lowercase()))
}

/// The FIELDS and LINES clauses (MySQL's defaults for what is not given).
pub(crate) fn parse_format(p: &mut Parser) -> Result<Format> {
    let mut f = Format::default();
    if word(p, "FIELDS") || word(p, "COLUMNS") {
        let mut any = false;
        loop {
            if word(p, "TERMINATED") {
                expect_word(p, "BY")?;
                f.field_term = string(p)?.into_bytes();
            } else if word(p, "OPTIONALLY") {
                expect_word(p, "ENCLOSED")?;
                expect_word(p, "BY")?;
                f.enclosed = one_char(&string(p)?)?;
                f.optionally = true;
            } else if word(p, "ENCLOSED") {
                expect_word(p, "BY")?;
                f.enclosed = one_char(&string(p)?)?;
            } else if word(p, "ESCAPED") {
                expect_word(p, "BY")?;
                f.escape = one_char(&string(p)?)?;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(syntax("FIELDS needs TERMINATED, ENCLOSED or ESCAPED BY"));
        }
    }
    if word(p, "LINES") {
        let mut any = false;
        loop {
            if word(p, "STARTING") {
                expect_word(p, "BY")?;
                f.line_start = string(p)?.into_bytes();
            } else if word(p, "TERMINATED") {
                expect_word(p, "BY")?;
                f.line_term = string(p)?.into_bytes();
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(syntax("LINES needs STARTING or TERMINATED BY"));
        }
    }
    if f.field_term.is_empty() && f.enclosed.is_none() {
        // MySQL's fixed-row format (field widths from column types).
        return Err(SqlError::unsupported("FIELDS TERMINATED BY '' (the fixed-row format)"));
    }
    if f.line_term.is_empty() {
        return Err(SqlError::unsupported("LINES TERMINATED BY ''"));
    }
    Ok(f)
}

/// ENCLOSED BY / ESCAPED BY: one byte or none (MySQL: 1083 otherwise).
fn one_char(s: &str) -> Result<Option<u8>> {
    match s.as_bytes() {
        [] => Ok(None),
        [b] => Ok(Some(*b)),
        _ => Err(SqlError::new(1083, "42000", "Field separator argument is not what is expected; check the manual")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_statement_parses_every_clause() {
        let s = parse(
            "LOAD DATA LOCAL INFILE '/x/y.csv' REPLACE INTO TABLE d.t CHARACTER SET utf8mb4 \
             FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' \
             LINES STARTING BY 'xx' TERMINATED BY '\\r\\n' IGNORE 2 LINES (a, @v, c) SET b = @v * 2, d = 1",
        )
        .unwrap();
        assert!(s.local);
        assert_eq!(s.file, "/x/y.csv");
        assert_eq!(s.on_duplicate, OnDuplicate::Replace);
        assert_eq!(s.table.to_string(), "d.t");
        assert_eq!(s.charset.as_deref(), Some("utf8mb4"));
        assert_eq!(s.format.field_term, b",");
        assert_eq!(s.format.enclosed, Some(b'"'));
        assert!(s.format.optionally);
        assert_eq!(s.format.escape, Some(b'\\'));
        assert_eq!(s.format.line_start, b"xx");
        assert_eq!(s.format.line_term, b"\r\n");
        assert_eq!(s.skip_lines, 2);
        assert_eq!(s.items, vec!["a", "@v", "c"]);
        assert_eq!(s.sets.len(), 2);
        assert_eq!(s.sets[0].1.to_string(), "@v * 2");
    }

    #[test]
    fn defaults_are_mysqls() {
        let s = parse("load data infile 'f' into table t").unwrap();
        assert_eq!(s.format, Format::default());
        assert_eq!(s.format.field_term, b"\t");
        assert_eq!(s.format.line_term, b"\n");
        assert_eq!(s.format.escape, Some(b'\\'));
        assert_eq!(s.on_duplicate, OnDuplicate::Error);
    }

    #[test]
    fn into_outfile_is_recognised() {
        assert!(into_file("SELECT * FROM t INTO OUTFILE '/tmp/x'"));
        assert!(into_file("select a into dumpfile 'x' from t"));
        assert!(!into_file("SELECT 'into outfile' FROM t"));
    }

    #[test]
    fn trailing_garbage_and_long_enclosure_are_errors() {
        assert_eq!(parse("LOAD DATA INFILE 'f' INTO TABLE t junk").unwrap_err().code, 1064);
        assert_eq!(parse("LOAD DATA INFILE 'f' INTO TABLE t FIELDS ENCLOSED BY 'ab'").unwrap_err().code, 1083);
    }
}
