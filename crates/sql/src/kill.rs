//! `KILL [CONNECTION | QUERY] id` and `SHOW [FULL] PROCESSLIST`, over the
//! process list (`process.rs`).
//!
//! Privileges, as MySQL and MariaDB: a user may kill and see only its own
//! connections, unless it has ALL on `*.*` (quire's stand-in for SUPER /
//! CONNECTION_ADMIN / PROCESS). Answers, as MariaDB 10.11 gives them:
//! - an id no connection has: 1094 "Unknown thread id: N";
//! - someone else's connection without the privilege: 1095;
//! - KILL QUERY of another connection: OK; its statement stops with 1317;
//! - KILL [CONNECTION] of another: OK; its socket is shut down at once, so
//!   an idle victim's next command and a busy victim's answer find the
//!   connection gone (the client reports 2013 / 2006);
//! - a connection killing its own query gets 1317, killing itself 1927
//!   and is then closed.

use std::sync::Arc;

use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::process::ProcessRow;
use crate::{Output, Session, Value};

/// Splits `KILL [CONNECTION | QUERY] expr` into (query, expr text);
/// `None` if `sql` is not a KILL.
pub fn parse(sql: &str) -> Option<(bool, String)> {
    let t = sql.trim().trim_end_matches(';').trim_end();
    let rest = strip_word(t, "KILL")?;
    if let Some(r) = strip_word(rest, "QUERY") {
        return Some((true, r.to_string()));
    }
    if let Some(r) = strip_word(rest, "CONNECTION") {
        return Some((false, r.to_string()));
    }
    Some((false, rest.to_string()))
}

/// `s` without its leading keyword `w` (a whole word) and the spaces after.
fn strip_word<'a>(s: &'a str, w: &str) -> Option<&'a str> {
    let head = s.get(..w.len())?;
    let rest = &s[w.len()..];
    let whole = rest.starts_with(|c: char| c.is_whitespace());
    (head.eq_ignore_ascii_case(w) && whole).then(|| rest.trim_start())
}

pub(crate) fn is_admin(s: &Session) -> bool {
    s.shared.catalog.user(&s.user).is_some_and(|u| u.grants.contains("*"))
}

/// Runs KILL; `id` is the expression naming the connection.
pub fn kill(s: &mut Session, query: bool, id: &str) -> Result<Output> {
    let v = s.eval_constant(id)?;
    let shown = crate::expr::as_string(&v);
    let unknown = || SqlError::new(1094, "HY000", format!("Unknown thread id: {shown}"));
    let n = crate::expr::to_i128(&v).and_then(|n| u32::try_from(n).ok()).ok_or_else(unknown)?;
    let target = s.shared.processes.get(n).ok_or_else(unknown)?;
    if !is_admin(s) && target.user().as_deref() != Some(s.user.as_str()) {
        return Err(SqlError::new(1095, "HY000", format!("You are not owner of thread {n}")));
    }
    if Arc::ptr_eq(&target, &s.process) {
        // The answer still goes out; the connection closes after it.
        target.kill(!query, false);
        return Err(if query { SqlError::interrupted() } else { SqlError::connection_killed() });
    }
    target.kill(!query, true);
    Ok(Output::ok())
}

/// SHOW PROCESSLIST's columns (MySQL's: MariaDB adds Progress).
pub fn processlist_columns() -> Vec<ColMeta> {
    let id = MetaType::Int { unsigned: true, width: 8 };
    let text = |len| MetaType::Str { len, fixed: false };
    vec![
        ColMeta::expr("Id", id),
        ColMeta::expr("User", text(32)),
        ColMeta::expr("Host", text(261)),
        ColMeta::expr("db", text(64)),
        ColMeta::expr("Command", text(16)),
        ColMeta::expr("Time", MetaType::Int { unsigned: false, width: 4 }),
        ColMeta::expr("State", text(64)),
        ColMeta::expr("Info", text(65_535)),
    ]
}

/// SHOW [FULL] PROCESSLIST: every connection for an administrator, else
/// the user's own.
pub fn show_processlist(s: &Session, full: bool) -> Result<Output> {
    Ok(Output::Rows { columns: processlist_columns(), rows: processlist_rows(s, full) })
}

/// The process list's rows `s`'s user may see (SHOW PROCESSLIST and
/// information_schema.PROCESSLIST).
pub fn processlist_rows(s: &Session, full: bool) -> Vec<Vec<Value>> {
    let admin = is_admin(s);
    s.shared
        .processes
        .all()
        .iter()
        .map(|p| p.row(full))
        .filter(|r| admin || (r.user == s.user && r.command != "Connect"))
        .map(|r: ProcessRow| {
            vec![
                Value::UInt(u64::from(r.id)),
                Value::Str(r.user),
                Value::Str(r.host),
                r.db.map_or(Value::Null, Value::Str),
                Value::Str(r.command.into()),
                Value::Int(r.time_secs.min(i64::MAX as u64) as i64),
                Value::Str(r.state.into()),
                r.info.map_or(Value::Null, Value::Str),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn kill_forms_split_into_kind_and_expression() {
        assert_eq!(parse("KILL 5"), Some((false, "5".into())));
        assert_eq!(parse("kill query 7;"), Some((true, "7".into())));
        assert_eq!(parse("KILL CONNECTION 9"), Some((false, "9".into())));
        assert_eq!(parse("KILL connection_id()"), Some((false, "connection_id()".into())));
        assert_eq!(parse("KILL QUERY CONNECTION_ID()"), Some((true, "CONNECTION_ID()".into())));
        assert_eq!(parse("KILLER 5"), None);
        assert_eq!(parse("SELECT 1"), None);
    }
}
