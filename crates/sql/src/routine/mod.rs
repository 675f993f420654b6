//! Stored programs' compound statements (MySQL's `BEGIN ... END`
//! language), shared by triggers and, later, stored procedures and
//! functions.
//!
//! - `ast`: the statements.
//! - `parse`: the procedural parser over `sqlparser`'s tokens; embedded
//!   expressions and SQL statements are kept as text.
//! - `exec`: preparation (names to frame slots, SQL parsed and bound)
//!   and the interpreter, which runs SQL through a [`exec::Host`].

pub mod ast;
pub mod exec;
pub mod parse;
