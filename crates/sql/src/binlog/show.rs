//! The statements that show and manage the binary log:
//!
//! | statement                                        | answer                                        |
//! |--------------------------------------------------|-----------------------------------------------|
//! | SHOW BINARY LOGS, SHOW MASTER LOGS               | Log_name, File_size (MariaDB's columns)       |
//! | SHOW MASTER STATUS                               | File, Position, Binlog_Do_DB, Binlog_Ignore_DB |
//! |                                                  | (and Executed_Gtid_Set when gtid_mode is not OFF) |
//! | SHOW BINARY LOG STATUS (MySQL 8.2's name)        | the same and Executed_Gtid_Set (MySQL's)      |
//! | FLUSH BINARY LOGS                                | closes the file, opens the next               |
//! | PURGE {BINARY \| MASTER} LOGS TO 'f' \| BEFORE 'd' | deletes the older files                     |
//!
//! | SHOW REPLICAS (MySQL 8.0)                        | Server_Id, Host, Port, Source_Id, Replica_UUID |
//! | SHOW SLAVE HOSTS, SHOW REPLICA HOSTS             | Server_id, Host, Port, Master_id (MariaDB's)  |
//!
//! With `log_bin` OFF, SHOW BINARY LOGS and PURGE answer 1381 ("You are
//! not using binary logging"), SHOW MASTER STATUS an empty result and
//! FLUSH BINARY LOGS OK, as MariaDB 10.11 does. SHOW BINARY LOGS and
//! SHOW MASTER / BINARY LOG STATUS need REPLICATION CLIENT, the replica
//! lists REPLICATION SLAVE (MySQL 8.0's checks), FLUSH and PURGE ALL on
//! `*.*` (quire's stand-in for RELOAD / BINLOG_ADMIN). RESET MASTER and
//! SHOW BINLOG EVENTS are refused (1235).

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::session::{text_columns, Session};
use crate::Output;

/// A binary log statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinlogStmt {
    ShowLogs,
    /// `mysql_columns`: SHOW BINARY LOG STATUS (Executed_Gtid_Set too).
    ShowStatus {
        mysql_columns: bool,
    },
    Flush,
    PurgeTo(String),
    PurgeBefore(String),
    /// SHOW REPLICAS (`mysql_columns`) / SHOW SLAVE HOSTS.
    ShowReplicas {
        mysql_columns: bool,
    },
    /// A binary log statement quire does not do yet: refused with 1235.
    Unsupported(&'static str),
}

fn is(t: &[String], i: usize, w: &str) -> bool {
    t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(w))
}

fn quoted(t: &[String], i: usize) -> Option<String> {
    t.get(i).filter(|x| x.starts_with('\u{1}')).map(|x| x[1..].to_string())
}

/// Parses the tokens of `admin::parse`; `None` if not a binlog statement.
pub fn parse(t: &[String]) -> Result<Option<BinlogStmt>> {
    let n = t.len();
    let syntax = || SqlError::syntax(format!("near '{}'", t.join(" ")));
    if is(t, 0, "SHOW") {
        if (is(t, 1, "BINARY") || is(t, 1, "MASTER")) && is(t, 2, "LOGS") && n == 3 {
            return Ok(Some(BinlogStmt::ShowLogs));
        }
        if is(t, 1, "MASTER") && is(t, 2, "STATUS") && n == 3 {
            return Ok(Some(BinlogStmt::ShowStatus { mysql_columns: false }));
        }
        if is(t, 1, "BINARY") && is(t, 2, "LOG") && is(t, 3, "STATUS") && n == 4 {
            return Ok(Some(BinlogStmt::ShowStatus { mysql_columns: true }));
        }
        if is(t, 1, "REPLICAS") && n == 2 {
            return Ok(Some(BinlogStmt::ShowReplicas { mysql_columns: true }));
        }
        if (is(t, 1, "SLAVE") || is(t, 1, "REPLICA")) && is(t, 2, "HOSTS") && n == 3 {
            return Ok(Some(BinlogStmt::ShowReplicas { mysql_columns: false }));
        }
        if is(t, 1, "BINLOG") && is(t, 2, "EVENTS") {
            return Ok(Some(BinlogStmt::Unsupported("SHOW BINLOG EVENTS")));
        }
        return Ok(None);
    }
    if is(t, 0, "FLUSH") && is(t, 1, "BINARY") && is(t, 2, "LOGS") && n == 3 {
        return Ok(Some(BinlogStmt::Flush));
    }
    if is(t, 0, "RESET") && is(t, 1, "MASTER") {
        return Ok(Some(BinlogStmt::Unsupported("RESET MASTER")));
    }
    if is(t, 0, "PURGE") && (is(t, 1, "BINARY") || is(t, 1, "MASTER")) && is(t, 2, "LOGS") {
        if is(t, 3, "TO") && n == 5 {
            return quoted(t, 4).map(|f| Some(BinlogStmt::PurgeTo(f))).ok_or_else(syntax);
        }
        if is(t, 3, "BEFORE") && n == 5 {
            return quoted(t, 4).map(|d| Some(BinlogStmt::PurgeBefore(d))).ok_or_else(syntax);
        }
        return Err(syntax());
    }
    Ok(None)
}

fn not_logging() -> SqlError {
    SqlError::new(1381, "HY000", "You are not using binary logging".to_string())
}

fn columns(stmt: &BinlogStmt) -> Vec<ColMeta> {
    match stmt {
        BinlogStmt::ShowLogs => vec![
            ColMeta::expr("Log_name", MetaType::Str { len: 255, fixed: false }),
            ColMeta::expr("File_size", MetaType::Int { unsigned: true, width: 20 }),
        ],
        BinlogStmt::ShowStatus { mysql_columns } => {
            let mut c = vec![
                ColMeta::expr("File", MetaType::Str { len: 255, fixed: false }),
                ColMeta::expr("Position", MetaType::Int { unsigned: true, width: 20 }),
            ];
            c.extend(text_columns(&["Binlog_Do_DB", "Binlog_Ignore_DB"]));
            if *mysql_columns {
                c.extend(text_columns(&["Executed_Gtid_Set"]));
            }
            c
        }
        BinlogStmt::ShowReplicas { mysql_columns } => super::source::replica_columns(*mysql_columns),
        _ => vec![],
    }
}

/// 1227 naming the privilege `what` needs.
pub(crate) fn denied(privileges: &str) -> SqlError {
    SqlError::new(
        1227,
        "42000",
        format!("Access denied; you need (at least one of) the {privileges} privilege(s) for this operation"),
    )
}

/// Runs a binary log statement.
pub fn run(s: &mut Session, stmt: &BinlogStmt) -> Result<Output> {
    if let BinlogStmt::Unsupported(what) = stmt {
        return Err(SqlError::unsupported(what));
    }
    let user = s.shared.catalog.user(&s.user);
    let (ok, needed) = match stmt {
        BinlogStmt::ShowLogs | BinlogStmt::ShowStatus { .. } => {
            (user.is_some_and(|u| u.has_global("REPLICATION CLIENT")), "SUPER, REPLICATION CLIENT")
        }
        BinlogStmt::ShowReplicas { .. } => {
            (user.is_some_and(|u| u.has_global("REPLICATION SLAVE")), "REPLICATION SLAVE")
        }
        BinlogStmt::Flush => (user.is_some_and(|u| u.grants.contains("*")), "RELOAD"),
        _ => (user.is_some_and(|u| u.grants.contains("*")), "SUPER, BINLOG_ADMIN"),
    };
    if !ok {
        return Err(denied(needed));
    }
    let b = s.shared.binlog.get().cloned();
    let err =
        |e: quire_binlog::LogError| SqlError::new(1598, "HY000", format!("Binary logging not possible. Message: {e}"));
    match stmt {
        BinlogStmt::ShowLogs => {
            let b = b.ok_or_else(not_logging)?;
            let rows = b.log.files().into_iter().map(|f| vec![Value::Str(f.name), Value::UInt(f.size)]).collect();
            Ok(Output::Rows { columns: columns(stmt), rows })
        }
        BinlogStmt::ShowStatus { mysql_columns } => {
            // SHOW MASTER STATUS has MariaDB's four columns, and MySQL's
            // fifth once MySQL GTIDs are on (only MySQL clients use them).
            let gtids = b.as_ref().is_some_and(|b| b.log.gtid_mode() != quire_binlog::GtidMode::Off);
            let mysql_columns = &(*mysql_columns || gtids);
            let shape = BinlogStmt::ShowStatus { mysql_columns: *mysql_columns };
            let rows = match b {
                None => vec![],
                Some(b) => {
                    let p = b.log.status();
                    let mut r = vec![
                        Value::Str(p.file),
                        Value::UInt(p.end),
                        Value::Str(String::new()),
                        Value::Str(String::new()),
                    ];
                    if *mysql_columns {
                        r.push(Value::Str(b.log.gtid_executed().to_string()));
                    }
                    vec![r]
                }
            };
            Ok(Output::Rows { columns: columns(&shape), rows })
        }
        BinlogStmt::Flush => {
            if let Some(b) = b {
                b.log.rotate().map_err(err)?;
            }
            Ok(Output::ok())
        }
        BinlogStmt::PurgeTo(name) => {
            let b = b.ok_or_else(not_logging)?;
            if !b.log.files().iter().any(|f| f.name == *name) {
                return Err(SqlError::new(1373, "HY000", "Target log not found in binlog index".to_string()));
            }
            b.log.purge_to(name).map_err(err)?;
            Ok(Output::ok())
        }
        BinlogStmt::PurgeBefore(when) => {
            let b = b.ok_or_else(not_logging)?;
            let secs = parse_datetime(when)
                .ok_or_else(|| SqlError::new(1292, "22007", format!("Incorrect datetime value: '{when}'")))?;
            b.log.purge_before(secs).map_err(err)?;
            Ok(Output::ok())
        }
        BinlogStmt::ShowReplicas { mysql_columns } => {
            Ok(Output::Rows { columns: columns(stmt), rows: s.shared.replicas.rows(*mysql_columns) })
        }
        BinlogStmt::Unsupported(_) => unreachable!("refused above"),
    }
}

/// `YYYY-MM-DD[ hh:mm:ss]` in the session's time zone, as seconds since
/// the epoch.
fn parse_datetime(s: &str) -> Option<u64> {
    use quire_engine::row::{Date, DateTime};
    let s = s.trim();
    let (d, t) = s.split_once([' ', 'T']).unwrap_or((s, "00:00:00"));
    let mut dp = d.split('-').map(|x| x.parse::<u32>().ok());
    let (y, m, dd) = (dp.next()??, dp.next()??, dp.next()??);
    let mut tp = t.split(':').map(|x| x.split('.').next().and_then(|x| x.parse::<u32>().ok()));
    let (h, mi, se) = (tp.next()??, tp.next().flatten().unwrap_or(0), tp.next().flatten().unwrap_or(0));
    if !(1..=12).contains(&m) || !(1..=31).contains(&dd) || h > 23 || mi > 59 || se > 59 {
        return None;
    }
    let dt = DateTime {
        date: Date { year: y as u16, month: m as u8, day: dd as u8 },
        hour: h as u8,
        minute: mi as u8,
        second: se as u8,
        micros: 0,
    };
    u64::try_from(quire_engine::row::tz::local_unix_seconds(&dt)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_binlog_statements() {
        assert_eq!(parse(&toks(&["SHOW", "binary", "LOGS"])).unwrap(), Some(BinlogStmt::ShowLogs));
        assert_eq!(parse(&toks(&["SHOW", "MASTER", "LOGS"])).unwrap(), Some(BinlogStmt::ShowLogs));
        assert_eq!(
            parse(&toks(&["SHOW", "BINARY", "LOG", "STATUS"])).unwrap(),
            Some(BinlogStmt::ShowStatus { mysql_columns: true })
        );
        assert_eq!(
            parse(&toks(&["PURGE", "BINARY", "LOGS", "TO", "\u{1}binlog.000002"])).unwrap(),
            Some(BinlogStmt::PurgeTo("binlog.000002".into()))
        );
        assert!(parse(&toks(&["PURGE", "BINARY", "LOGS", "TO", "x"])).is_err());
        assert_eq!(parse(&toks(&["SHOW", "TABLES"])).unwrap(), None);
        assert_eq!(
            parse(&toks(&["SHOW", "REPLICAS"])).unwrap(),
            Some(BinlogStmt::ShowReplicas { mysql_columns: true })
        );
        assert_eq!(
            parse(&toks(&["show", "slave", "hosts"])).unwrap(),
            Some(BinlogStmt::ShowReplicas { mysql_columns: false })
        );
    }
}
