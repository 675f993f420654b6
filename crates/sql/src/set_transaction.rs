//! `SET [GLOBAL | SESSION | LOCAL] TRANSACTION <characteristics>`: what each
//! scope means, and the repair of the scope the parser drops.
//!
//! As in MySQL and MariaDB:
//! - without a scope the characteristics apply to the session's next
//!   transaction only (an autocommit statement is a transaction), and not
//!   while a transaction is open (error 1568);
//! - `SESSION` / `LOCAL` is `SET SESSION transaction_isolation = ...` (and
//!   `transaction_read_only` for READ ONLY / READ WRITE): every later
//!   transaction of the session, allowed inside a transaction;
//! - `GLOBAL` is `SET GLOBAL transaction_isolation = ...`: sessions
//!   started afterwards, not the current one.
//!
//! sqlparser reads the scope keyword and then forgets it (its
//! `Set::SetTransaction` has only PostgreSQL's `session` flag), so
//! [`apply_scopes`] finds each statement's scope in the tokens and turns
//! the scoped forms into the variable assignments they mean; only the
//! next-transaction form stays a `SetTransaction`.

use quire_engine::txn::Isolation;
use sqlparser::ast::{self, ContextModifier, TransactionIsolationLevel, TransactionMode};
use sqlparser::dialect::MySqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::error::{Result, SqlError};

/// The scope of one `SET ... TRANSACTION` statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    NextTransaction,
    Session,
    Global,
}

/// The scope of each `SET ... TRANSACTION` statement of `sql`, in order.
fn scopes(sql: &str) -> Vec<Scope> {
    let Ok(tokens) = Tokenizer::new(&MySqlDialect {}, sql).tokenize() else { return Vec::new() };
    let significant = tokens.into_iter().filter(|t| !matches!(t, Token::Whitespace(_))).collect::<Vec<_>>();
    let mut out = Vec::new();
    for stmt in significant.split(|t| *t == Token::SemiColon) {
        let kw = |i: usize| match stmt.get(i) {
            Some(Token::Word(w)) => w.keyword,
            _ => Keyword::NoKeyword,
        };
        if kw(0) != Keyword::SET {
            continue;
        }
        let scope = match (kw(1), kw(2)) {
            (Keyword::TRANSACTION, _) => Scope::NextTransaction,
            (Keyword::SESSION | Keyword::LOCAL, Keyword::TRANSACTION | Keyword::CHARACTERISTICS) => Scope::Session,
            (Keyword::GLOBAL, Keyword::TRANSACTION) => Scope::Global,
            _ => continue,
        };
        out.push(scope);
    }
    out
}

/// Rewrites the scoped `SET ... TRANSACTION` statements of `stmts` (parsed
/// from `sql`) into the assignments they mean; errors for levels MySQL
/// does not have.
pub fn apply_scopes(sql: &str, stmts: &mut [ast::Statement]) -> Result<()> {
    let is_set_trx = |s: &ast::Statement| matches!(s, ast::Statement::Set(ast::Set::SetTransaction { .. }));
    if !stmts.iter().any(is_set_trx) {
        return Ok(());
    }
    let mut found = scopes(sql).into_iter();
    for stmt in stmts.iter_mut().filter(|s| is_set_trx(s)) {
        let ast::Statement::Set(ast::Set::SetTransaction { modes, snapshot, .. }) = stmt else { continue };
        if snapshot.is_some() {
            return Err(SqlError::syntax("SET TRANSACTION SNAPSHOT is not MySQL syntax"));
        }
        for m in modes.iter() {
            if let TransactionMode::IsolationLevel(l) = m {
                isolation_level(l)?;
            }
        }
        let scope = match found.next() {
            Some(Scope::NextTransaction) => continue,
            Some(Scope::Session) => ContextModifier::Session,
            Some(Scope::Global) => ContextModifier::Global,
            None => return Err(SqlError::internal("SET TRANSACTION statement not found in the text")),
        };
        let assign = |name: &str, value: &str| ast::SetAssignment {
            scope: Some(scope),
            name: ast::ObjectName::from(vec![ast::Ident::new(name)]),
            value: ast::Expr::value(ast::Value::SingleQuotedString(value.to_string())),
        };
        let mut assignments = Vec::new();
        for m in modes.iter() {
            assignments.push(match m {
                TransactionMode::IsolationLevel(l) => assign("transaction_isolation", isolation_level(l)?.name()),
                TransactionMode::AccessMode(ast::TransactionAccessMode::ReadOnly) => {
                    assign("transaction_read_only", "ON")
                }
                TransactionMode::AccessMode(ast::TransactionAccessMode::ReadWrite) => {
                    assign("transaction_read_only", "OFF")
                }
            });
        }
        *stmt = ast::Statement::Set(ast::Set::MultipleAssignments { assignments });
    }
    Ok(())
}

/// The engine's level for a parsed isolation level.
pub fn isolation_level(l: &TransactionIsolationLevel) -> Result<Isolation> {
    Ok(match l {
        TransactionIsolationLevel::ReadUncommitted => Isolation::ReadUncommitted,
        TransactionIsolationLevel::ReadCommitted => Isolation::ReadCommitted,
        TransactionIsolationLevel::RepeatableRead => Isolation::RepeatableRead,
        TransactionIsolationLevel::Serializable => Isolation::Serializable,
        other => return Err(SqlError::syntax(format!("isolation level {other} is not MySQL syntax"))),
    })
}

/// The level a `transaction_isolation` value names (the variable only
/// holds the four names).
pub fn isolation_named(name: &str) -> Isolation {
    match name.to_ascii_uppercase().replace(' ', "-").as_str() {
        "READ-UNCOMMITTED" => Isolation::ReadUncommitted,
        "READ-COMMITTED" => Isolation::ReadCommitted,
        "SERIALIZABLE" => Isolation::Serializable,
        _ => Isolation::RepeatableRead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_statement_gets_its_own_scope() {
        use Scope::*;
        assert_eq!(scopes("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"), vec![NextTransaction]);
        assert_eq!(scopes("set session transaction isolation level read committed"), vec![Session]);
        assert_eq!(scopes("SET LOCAL TRANSACTION READ ONLY"), vec![Session]);
        assert_eq!(scopes("/* c */ SET GLOBAL TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"), vec![Global]);
        assert_eq!(
            scopes("SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE; SELECT 1; SET TRANSACTION READ WRITE"),
            vec![Global, NextTransaction]
        );
        assert_eq!(scopes("SET SESSION autocommit = 0; SET @transaction = 1"), vec![]);
    }

    #[test]
    fn scoped_forms_become_variable_assignments() {
        let sql = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY";
        let mut stmts = crate::session::parse(sql).unwrap();
        apply_scopes(sql, &mut stmts).unwrap();
        let ast::Statement::Set(ast::Set::MultipleAssignments { assignments }) = &stmts[0] else {
            panic!("{:?}", stmts[0])
        };
        let got: Vec<String> = assignments.iter().map(|a| format!("{:?} {}={}", a.scope, a.name, a.value)).collect();
        assert_eq!(
            got,
            ["Some(Session) transaction_isolation='READ-COMMITTED'", "Some(Session) transaction_read_only='ON'"]
        );
        let sql = "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE";
        let mut stmts = crate::session::parse(sql).unwrap();
        apply_scopes(sql, &mut stmts).unwrap();
        assert!(matches!(stmts[0], ast::Statement::Set(ast::Set::SetTransaction { .. })));
    }
}
