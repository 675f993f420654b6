//! `ALTER TABLE t [ops,] ENGINE [=] name`, which sqlparser cannot read:
//! `admin::parse` recognises a trailing ENGINE option and hands the rest
//! of the text here. ENGINE=InnoDB rebuilds the table in place of itself
//! (what InnoDB does for it, reported as MariaDB reports it: 0 rows).
//! quire has no other engine: with NO_ENGINE_SUBSTITUTION in `sql_mode`
//! (the default) any other name is 1286, as MySQL answers for an engine it
//! lacks; without it InnoDB is used with warning 1266, MySQL's
//! substitution.

use sqlparser::ast;

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// Splits `ALTER TABLE ... [,] ENGINE [=] name` into the statement
/// without the option, the engine name, and whether the option was the
/// only one.
pub fn split(sql: &str, tokens: &[String]) -> Option<(String, String, bool)> {
    let is = |t: Option<&String>, w: &str| t.is_some_and(|t| t.eq_ignore_ascii_case(w));
    if !(is(tokens.first(), "ALTER") && is(tokens.get(1), "TABLE")) {
        return None;
    }
    let n = tokens.len();
    let engine_at = if n >= 5 && is(tokens.get(n - 3), "ENGINE") && tokens[n - 2] == "=" {
        n - 3
    } else if n >= 4 && is(tokens.get(n - 2), "ENGINE") {
        n - 2
    } else {
        return None;
    };
    let only = engine_at == 3 || (engine_at == 5 && tokens[3] == ".");
    let engine = tokens[n - 1].trim_start_matches('\u{1}').to_string();
    let upper = sql.to_ascii_uppercase();
    let at = upper.rfind("ENGINE")?;
    let rest = sql[..at].trim_end().trim_end_matches(',').trim_end().to_string();
    Some((rest, engine, only))
}

pub fn run(s: &mut Session, rest: &str, engine: &str, only: bool) -> Result<Output> {
    if !engine.eq_ignore_ascii_case("InnoDB") {
        let mode = s.with_env(false, |env| env.sysvar("sql_mode", false))?;
        if mode.to_string().to_ascii_uppercase().contains("NO_ENGINE_SUBSTITUTION") {
            return Err(SqlError::new(1286, "42000", format!("Unknown storage engine '{engine}'")));
        }
    }
    // With no other operation the table is rebuilt as it is.
    let sql = if only { format!("{rest} ALGORITHM=DEFAULT") } else { rest.to_string() };
    let stmt = crate::session::parse(&sql)?.into_iter().next();
    let Some(ast::Statement::AlterTable(at)) = stmt else {
        return Err(SqlError::syntax(rest));
    };
    if !engine.eq_ignore_ascii_case("InnoDB") {
        let (_, table) = crate::admin::split_name(s, &at.name)?;
        let c = Condition::new(Level::Warning, 1266, format!("Using storage engine InnoDB for table '{table}'"));
        s.with_env(false, |env| env.warn(c))?;
    }
    crate::admin::alter_table(s, &at)
}
