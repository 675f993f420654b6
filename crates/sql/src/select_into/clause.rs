//! Finding and reading a SELECT's `INTO OUTFILE` / `INTO DUMPFILE` /
//! `INTO @var, ...` clause, which sqlparser does not know (it reads only
//! `INTO table` before FROM).
//!
//! The statement is tokenized (with the same rewrites `depth::parse_sql`
//! makes: compound interval units, `0b101`), the clause is found at
//! parenthesis depth 0 wherever MySQL allows it (after the select list or
//! at the end), read, and cut out; the other tokens are the SELECT that
//! runs. A second such clause is a syntax error (1064), as in MySQL.

use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace, Word};

use crate::error::{Result, SqlError};
use crate::load::format::Format;
use crate::load::parse::{parse_charset, parse_format};

/// Where a SELECT's rows go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `INTO OUTFILE 'file' [CHARACTER SET cs] [FIELDS ...] [LINES ...]`.
    Outfile { file: String, charset: Option<String>, format: Format },
    /// `INTO DUMPFILE 'file'`: the row's bytes, nothing between them.
    Dumpfile { file: String },
    /// `INTO @a, @b`: user variables (names lower case, without the `@`).
    Vars(Vec<String>),
}

/// A statement with its INTO clause cut out.
#[derive(Debug)]
pub struct Split {
    /// The SELECT that produces the rows.
    pub tokens: Vec<Token>,
    /// The length of the statement's text (for the parser's stack).
    pub text_len: usize,
    /// The clause came after FROM (MariaDB 10.11 warns 1287 that this
    /// placement is deprecated).
    pub trailing: bool,
    pub target: Target,
}

fn plain(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

fn user_var(t: &Token) -> Option<&Word> {
    match t {
        Token::Word(w) if w.quote_style.is_none() && w.value.starts_with('@') && !w.value.starts_with("@@") => Some(w),
        _ => None,
    }
}

/// Whether the text may hold a SELECT with such a clause: it starts as a
/// query does and says INTO somewhere (cheap; most statements stop here).
fn may_have_into(sql: &str) -> bool {
    let t = sql.trim_start().as_bytes();
    let starts = |w: &[u8]| t.len() >= w.len() && t[..w.len()].eq_ignore_ascii_case(w);
    (starts(b"select") || starts(b"with") || starts(b"(")) && t.windows(4).any(|w| w.eq_ignore_ascii_case(b"into"))
}

/// The index of the next token after `i` that is not whitespace.
fn next_solid(tokens: &[Token], mut i: usize) -> Option<usize> {
    while i < tokens.len() {
        if !matches!(tokens[i], Token::Whitespace(_)) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Where an INTO clause of ours starts (the INTO token), at depth 0.
fn find(tokens: &[Token], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate().skip(from) {
        match t {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            t if depth == 0 && plain(t, "INTO") => {
                let n = next_solid(tokens, i + 1)?;
                let next = &tokens[n];
                if plain(next, "OUTFILE") || plain(next, "DUMPFILE") || user_var(next).is_some() {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn syntax(e: impl std::fmt::Display) -> SqlError {
    SqlError::syntax(format!("near INTO: {e}"))
}

/// The file name after OUTFILE / DUMPFILE: a quoted string.
fn file_name(p: &mut Parser) -> Result<String> {
    match p.next_token().token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
        other => Err(syntax(format!("expected a file name, found {other}"))),
    }
}

/// Reads the clause starting at `tokens[at]` (INTO); its target and the
/// index just past it.
fn read(tokens: &[Token], at: usize) -> Result<(Target, usize)> {
    let kind = next_solid(tokens, at + 1).ok_or_else(|| syntax("INTO what"))?;
    let start = kind + 1;
    if user_var(&tokens[kind]).is_some() {
        let mut vars = Vec::new();
        let mut i = kind;
        loop {
            let w = user_var(&tokens[i]).ok_or_else(|| syntax(format!("expected @variable, found {}", tokens[i])))?;
            vars.push(w.value[1..].to_ascii_lowercase());
            match next_solid(tokens, i + 1) {
                Some(c) if tokens[c] == Token::Comma => {
                    i = next_solid(tokens, c + 1).ok_or_else(|| syntax("a variable after ,"))?;
                }
                _ => return Ok((Target::Vars(vars), i + 1)),
            }
        }
    }
    let dialect = MySqlDialect {};
    let mut p = Parser::new(&dialect).with_tokens(tokens[start..].to_vec());
    let file = file_name(&mut p)?;
    let target = if plain(&tokens[kind], "DUMPFILE") {
        Target::Dumpfile { file }
    } else {
        let charset = parse_charset(&mut p)?;
        let format = parse_format(&mut p)?;
        Target::Outfile { file, charset, format }
    };
    Ok((target, start + p.index()))
}

/// The statement split at its INTO clause; `None` when it has none of
/// ours (it then runs as any other statement).
pub fn split(sql: &str) -> Option<Result<Split>> {
    if !may_have_into(sql) {
        return None;
    }
    let tokens = match crate::temporal::compound_unit_tokens(sql) {
        Some(t) => t,
        None => Tokenizer::new(&MySqlDialect {}, sql).tokenize().ok()?,
    };
    let tokens = crate::bit_literal::rewrite(sql, Some(tokens))?;
    let at = find(&tokens, 0)?;
    Some(read(&tokens, at).and_then(|(target, end)| {
        if find(&tokens, end).is_some() {
            return Err(syntax("a second INTO clause"));
        }
        let mut rest = tokens[..at].to_vec();
        rest.push(Token::Whitespace(Whitespace::Space));
        rest.extend_from_slice(&tokens[end.min(tokens.len())..]);
        let trailing = tokens[..at].iter().any(|t| plain(t, "FROM"));
        Ok(Split { tokens: rest, text_len: sql.len(), trailing, target })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest(s: &Split) -> String {
        s.tokens.iter().map(|t| t.to_string()).collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_clause_is_cut_out_wherever_it_stands() {
        let s = split("SELECT a, b INTO @x, @Y FROM t WHERE a = 1").unwrap().unwrap();
        assert_eq!(s.target, Target::Vars(vec!["x".into(), "y".into()]));
        assert_eq!(rest(&s), "SELECT a, b FROM t WHERE a = 1");
        let s = split("select * from t order by a into outfile '/tmp/f' fields terminated by ',' lines terminated by '\\r\\n' for update")
            .unwrap()
            .unwrap();
        let Target::Outfile { file, format, charset } = &s.target else { panic!("{:?}", s.target) };
        assert_eq!((file.as_str(), charset), ("/tmp/f", &None));
        assert_eq!((format.field_term.as_slice(), format.line_term.as_slice()), (&b","[..], &b"\r\n"[..]));
        assert_eq!(rest(&s), "select * from t order by a for update");
        let s = split("SELECT 0b11 INTO DUMPFILE 'd'").unwrap().unwrap();
        assert_eq!(s.target, Target::Dumpfile { file: "d".into() });
    }

    #[test]
    fn other_statements_and_subqueries_are_left_alone() {
        assert!(split("INSERT INTO t VALUES (1)").is_none());
        assert!(split("SELECT 'into outfile x'").is_none());
        assert!(split("SELECT (SELECT 1 INTO @x)").is_none());
        assert_eq!(split("SELECT 1 INTO @a INTO @b").unwrap().unwrap_err().code, 1064);
        assert_eq!(split("SELECT 1 INTO OUTFILE x").unwrap().unwrap_err().code, 1064);
    }
}
