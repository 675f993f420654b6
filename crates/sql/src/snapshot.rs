//! `START TRANSACTION WITH CONSISTENT SNAPSHOT` (what `mariadb-dump
//! --single-transaction` sends, inside a versioned comment), which
//! sqlparser does not parse.
//!
//! MySQL's grammar: `START TRANSACTION [characteristic [, characteristic]
//! ...]`, a characteristic being `WITH CONSISTENT SNAPSHOT`, `READ ONLY` or
//! `READ WRITE` (MariaDB accepts a characteristic twice). A statement
//! naming the snapshot is read here into its access modes and run by
//! `Session::start_transaction` with the read view opened at once; every
//! other START TRANSACTION is left to sqlparser.

use sqlparser::ast::{TransactionAccessMode, TransactionMode};
use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::error::{Result, SqlError};

/// The access modes of a `START TRANSACTION` naming `WITH CONSISTENT
/// SNAPSHOT`; `None` for any other statement. Versioned comments
/// (`/*!40100 ... */`) are read as their contents, as everywhere.
pub fn parse(sql: &str) -> Result<Option<Vec<TransactionMode>>> {
    let head = sql.trim_start().as_bytes();
    if head.len() < 5 || !head[..5].eq_ignore_ascii_case(b"START") {
        return Ok(None);
    }
    let Ok(tokens) = Tokenizer::new(&MySqlDialect {}, sql).tokenize() else { return Ok(None) };
    let words: Vec<Token> =
        tokens.into_iter().filter(|t| !matches!(t, Token::Whitespace(_) | Token::SemiColon)).collect();
    let kw = |i: usize, k: &str| matches!(words.get(i), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(k));
    if !(kw(0, "START") && kw(1, "TRANSACTION")) {
        return Ok(None);
    }
    let mut modes = Vec::new();
    let mut snapshot = false;
    let mut i = 2;
    while i < words.len() {
        if kw(i, "WITH") && kw(i + 1, "CONSISTENT") && kw(i + 2, "SNAPSHOT") {
            snapshot = true;
            i += 3;
        } else if kw(i, "READ") && kw(i + 1, "ONLY") {
            modes.push(TransactionMode::AccessMode(TransactionAccessMode::ReadOnly));
            i += 2;
        } else if kw(i, "READ") && kw(i + 1, "WRITE") {
            modes.push(TransactionMode::AccessMode(TransactionAccessMode::ReadWrite));
            i += 2;
        } else {
            return Ok(None); // sqlparser answers (or refuses) the rest
        }
        match words.get(i) {
            None => break,
            Some(Token::Comma) if i + 1 < words.len() => i += 1,
            Some(t) => return Err(SqlError::syntax(format!("near '{t}'"))),
        }
    }
    if !snapshot {
        return Ok(None);
    }
    if modes.len() > 1 && modes.windows(2).any(|w| w[0] != w[1]) {
        // MariaDB: "READ ONLY, READ WRITE" contradict each other.
        return Err(SqlError::syntax("near 'READ WRITE'"));
    }
    Ok(Some(modes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_characteristic_is_read_in_any_position_and_inside_versioned_comments() {
        assert_eq!(parse("START TRANSACTION WITH CONSISTENT SNAPSHOT").unwrap(), Some(vec![]));
        assert_eq!(parse("start transaction /*!40100 WITH CONSISTENT SNAPSHOT */").unwrap(), Some(vec![]));
        let ro = TransactionMode::AccessMode(TransactionAccessMode::ReadOnly);
        assert_eq!(parse("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT;").unwrap(), Some(vec![ro]));
        assert_eq!(parse("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY").unwrap(), Some(vec![ro]));
    }

    #[test]
    fn other_start_transactions_are_left_to_sqlparser_and_bad_lists_refused() {
        assert_eq!(parse("START TRANSACTION").unwrap(), None);
        assert_eq!(parse("START TRANSACTION READ ONLY").unwrap(), None);
        assert_eq!(parse("SELECT 1").unwrap(), None);
        assert_eq!(parse("START TRANSACTION WITH CONSISTENT").unwrap(), None);
        assert_eq!(parse("START TRANSACTION WITH CONSISTENT SNAPSHOT,").unwrap_err().code, 1064);
        assert_eq!(parse("START TRANSACTION WITH CONSISTENT SNAPSHOT READ ONLY").unwrap_err().code, 1064);
        assert_eq!(parse("START TRANSACTION READ ONLY, READ WRITE, WITH CONSISTENT SNAPSHOT").unwrap_err().code, 1064);
    }
}
