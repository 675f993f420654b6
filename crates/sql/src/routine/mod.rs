//! Stored programs' compound statements (MySQL's `BEGIN ... END`
//! language), shared by triggers, stored procedures and functions, and
//! events.
//!
//! - `ast`: the statements.
//! - `parse`: the procedural parser over `sqlparser`'s tokens; embedded
//!   expressions and SQL statements are kept as text.
//! - `session_stmts`: the session's statements a body may hold (dynamic
//!   SQL, DDL, SHOW, SET of system variables) and what each kind of
//!   program may not hold.
//! - `exec`: preparation (names to frame slots, SQL parsed and bound)
//!   and the interpreter, which runs SQL through a [`exec::Host`].
//! - `run`: a trigger's or stored function's statement run in the
//!   invoking statement's transaction.
//! - `client`: GET DIAGNOSTICS and RESIGNAL as a client's statements.

pub mod ast;
pub mod client;
pub mod exec;
pub mod parse;
pub mod run;
mod session_stmts;

/// The database a stored program's DDL names: `db` as written, else the
/// session's current one (1046).
pub(crate) fn db_of(s: &crate::session::Session, db: &Option<String>) -> crate::error::Result<String> {
    match db {
        Some(d) => Ok(d.clone()),
        None => s.db.clone().ok_or_else(crate::error::SqlError::no_database),
    }
}

/// A system variable's value as text (the sql_mode, character sets and
/// zone a stored program keeps from its creating session).
pub(crate) fn sysvar_text(s: &crate::session::Session, name: &str) -> String {
    s.sysvar_value(name).map(|v| crate::expr::as_string(&v)).unwrap_or_default()
}
