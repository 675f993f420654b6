//! The replica's statements, parsed here (sqlparser has none of them):
//!
//! | statement                                               | does                                   |
//! |---------------------------------------------------------|----------------------------------------|
//! | CHANGE REPLICATION SOURCE TO opt = v, ... / CHANGE MASTER TO | stores the source (threads stopped) |
//! | START REPLICA / START SLAVE                             | starts receiver and applier            |
//! | STOP REPLICA / STOP SLAVE                               | stops both                             |
//! | RESET REPLICA [ALL] / RESET SLAVE [ALL]                 | forgets the position [and the source]  |
//! | SHOW REPLICA STATUS / SHOW SLAVE STATUS                 | MySQL 8.0's columns (old names for SLAVE) |
//!
//! CHANGE options: SOURCE_HOST, SOURCE_PORT, SOURCE_USER, SOURCE_PASSWORD,
//! SOURCE_LOG_FILE, SOURCE_LOG_POS, SOURCE_CONNECT_RETRY,
//! SOURCE_AUTO_POSITION, SOURCE_DELAY, SOURCE_HEARTBEAT_PERIOD (and their
//! MASTER_ spellings). Any other option
//! is refused with 1235, never ignored. SOURCE_AUTO_POSITION = 1 needs
//! `gtid_mode` other than OFF (1777) and excludes a file and position
//! (1776), as in MySQL. As in MySQL, options not given keep their values, and a new
//! host or port without a log position starts from the source's first
//! file. Privileges: REPLICATION_SLAVE_ADMIN or SUPER (quire: ALL on
//! `*.*`) for all but SHOW, which needs REPLICATION CLIENT.

use quire_engine::row::Value;

use super::info::{self, SourceConfig, SourcePos};
use super::IoState;
use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::session::Session;
use crate::Output;

/// SOURCE_HEARTBEAT_PERIOD's largest value (MySQL's `SLAVE_MAX_HEARTBEAT_PERIOD`).
const MAX_HEARTBEAT: f64 = 4_294_967.0;

/// SOURCE_DELAY's largest value (MySQL's `MAX_SOURCE_DELAY`).
const MAX_DELAY: u32 = i32::MAX as u32;

/// A replica statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaStmt {
    Change(Vec<(ChangeOpt, String)>),
    Start,
    Stop,
    Reset {
        all: bool,
    },
    /// `old_names`: SHOW SLAVE STATUS.
    ShowStatus {
        old_names: bool,
    },
}

/// A CHANGE REPLICATION SOURCE option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeOpt {
    Host,
    Port,
    User,
    Password,
    LogFile,
    LogPos,
    ConnectRetry,
    AutoPosition,
    /// SOURCE_DELAY: seconds each transaction waits after its commit on
    /// the source before it is applied here.
    Delay,
    /// SOURCE_HEARTBEAT_PERIOD: seconds (decimal) between the source's
    /// heartbeats while it has nothing to send; 0: none.
    HeartbeatPeriod,
}

fn is(t: &[String], i: usize, w: &str) -> bool {
    t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(w))
}

fn syntax(t: &[String]) -> SqlError {
    SqlError::syntax(format!("near '{}'", t.join(" ").replace('\u{1}', "")))
}

/// Parses the tokens of `admin::parse`; `None` if not a replica statement.
pub fn parse(t: &[String]) -> Result<Option<ReplicaStmt>> {
    let n = t.len();
    let replica = |i: usize| is(t, i, "REPLICA") || is(t, i, "SLAVE");
    if is(t, 0, "CHANGE") && (is(t, 1, "MASTER") || is(t, 1, "REPLICATION")) {
        let mut i = if is(t, 1, "MASTER") { 2 } else { 3 };
        if is(t, 1, "REPLICATION") && !is(t, 2, "SOURCE") {
            return Err(syntax(t));
        }
        if !is(t, i, "TO") {
            return Err(syntax(t));
        }
        i += 1;
        let mut opts = Vec::new();
        loop {
            let name = t.get(i).ok_or_else(|| syntax(t))?.to_ascii_uppercase();
            let base = name.strip_prefix("SOURCE_").or_else(|| name.strip_prefix("MASTER_"));
            let opt = match base {
                Some("HOST") => ChangeOpt::Host,
                Some("PORT") => ChangeOpt::Port,
                Some("USER") => ChangeOpt::User,
                Some("PASSWORD") => ChangeOpt::Password,
                Some("LOG_FILE") => ChangeOpt::LogFile,
                Some("LOG_POS") => ChangeOpt::LogPos,
                Some("CONNECT_RETRY") => ChangeOpt::ConnectRetry,
                Some("AUTO_POSITION") => ChangeOpt::AutoPosition,
                Some("DELAY") => ChangeOpt::Delay,
                Some("HEARTBEAT_PERIOD") => ChangeOpt::HeartbeatPeriod,
                Some(_) => return Err(SqlError::unsupported(format!("CHANGE REPLICATION SOURCE option {name}"))),
                None => return Err(syntax(t)),
            };
            if t.get(i + 1).map(String::as_str) != Some("=") {
                return Err(syntax(t));
            }
            let v = t.get(i + 2).ok_or_else(|| syntax(t))?;
            let quoted = v.starts_with('\u{1}');
            let mut v = v.trim_start_matches('\u{1}').to_string();
            let decimal = opt == ChangeOpt::HeartbeatPeriod;
            // The tokens of a decimal: `0` `.` `5`, or `.` `5`.
            let mut extra = 0;
            if decimal && !quoted {
                let digits = |k: usize| t.get(k).filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
                if v == "." {
                    if let Some(d) = digits(i + 3) {
                        v = format!("0.{d}");
                        extra = 1;
                    }
                } else if t.get(i + 3).is_some_and(|d| d == ".") {
                    v.push('.');
                    extra = 1;
                    if let Some(d) = digits(i + 4) {
                        v.push_str(d);
                        extra = 2;
                    }
                }
            }
            let numeric = matches!(
                opt,
                ChangeOpt::Port
                    | ChangeOpt::LogPos
                    | ChangeOpt::ConnectRetry
                    | ChangeOpt::AutoPosition
                    | ChangeOpt::Delay
            );
            let number_ok = if decimal { v.parse::<f64>().is_ok_and(f64::is_finite) } else { v.parse::<u64>().is_ok() };
            if (numeric || decimal) == quoted || ((numeric || decimal) && !number_ok) {
                return Err(syntax(t));
            }
            opts.push((opt, v));
            i += 3 + extra;
            match t.get(i).map(String::as_str) {
                None => break,
                Some(",") => i += 1,
                // FOR CHANNEL '' is the only channel quire has.
                Some(w) if w.eq_ignore_ascii_case("FOR") => {
                    if is(t, i + 1, "CHANNEL") && t.get(i + 2).is_some_and(|c| c == "\u{1}") && n == i + 3 {
                        break;
                    }
                    return Err(SqlError::unsupported("replication channels other than the default one"));
                }
                _ => return Err(syntax(t)),
            }
        }
        return Ok(Some(ReplicaStmt::Change(opts)));
    }
    if (is(t, 0, "START") || is(t, 0, "STOP")) && replica(1) {
        if n != 2 {
            return Err(SqlError::unsupported(format!(
                "{} REPLICA options (thread types, UNTIL, channels)",
                t[0].to_ascii_uppercase()
            )));
        }
        return Ok(Some(if is(t, 0, "START") { ReplicaStmt::Start } else { ReplicaStmt::Stop }));
    }
    if is(t, 0, "RESET") && replica(1) {
        return match n {
            2 => Ok(Some(ReplicaStmt::Reset { all: false })),
            3 if is(t, 2, "ALL") => Ok(Some(ReplicaStmt::Reset { all: true })),
            _ => Err(syntax(t)),
        };
    }
    if is(t, 0, "SHOW") && replica(1) && is(t, 2, "STATUS") && n == 3 {
        return Ok(Some(ReplicaStmt::ShowStatus { old_names: is(t, 1, "SLAVE") }));
    }
    Ok(None)
}

fn denied_admin() -> SqlError {
    super::super::binlog::show::denied("SUPER or REPLICATION_SLAVE_ADMIN")
}

/// Runs a replica statement.
pub fn run(s: &mut Session, stmt: &ReplicaStmt) -> Result<Output> {
    let user = s.shared.catalog.user(&s.user);
    if let ReplicaStmt::ShowStatus { old_names } = stmt {
        if !user.is_some_and(|u| u.has_global("REPLICATION CLIENT")) {
            return Err(super::super::binlog::show::denied("SUPER, REPLICATION CLIENT"));
        }
        return show_status(s, *old_names);
    }
    if !user.is_some_and(|u| u.grants.contains("*")) {
        return Err(denied_admin());
    }
    let shared = s.shared.clone();
    let engine = &shared.engine;
    info::create_tables(engine)?;
    match stmt {
        ReplicaStmt::Change(opts) => shared.replica.while_stopped(|| {
            let mut c = info::load_config(engine)?.unwrap_or(SourceConfig {
                port: 3306,
                connect_retry: 60,
                ..SourceConfig::default()
            });
            let old = info::load_position(engine)?.map(|p| p.source).unwrap_or_else(SourcePos::start);
            let mut start = old.clone();
            let mut moved_source = false;
            let mut file = None;
            let mut pos = None;
            for (o, v) in opts {
                match o {
                    ChangeOpt::Host => {
                        moved_source |= *v != c.host;
                        c.host = v.clone();
                    }
                    ChangeOpt::Port => {
                        let p = v.parse::<u16>().map_err(|_| bad_value("SOURCE_PORT", v))?;
                        moved_source |= p != c.port;
                        c.port = p;
                    }
                    ChangeOpt::User => c.user = v.clone(),
                    ChangeOpt::Password => c.password = v.clone(),
                    ChangeOpt::ConnectRetry => {
                        c.connect_retry = v.parse::<u32>().map_err(|_| bad_value("SOURCE_CONNECT_RETRY", v))?
                    }
                    ChangeOpt::AutoPosition => {
                        c.auto_position = match v.as_str() {
                            "0" => false,
                            "1" => true,
                            _ => return Err(bad_value("SOURCE_AUTO_POSITION", v)),
                        }
                    }
                    ChangeOpt::Delay => {
                        // 1729 ER_SOURCE_DELAY_VALUE_OUT_OF_RANGE past 2^31 - 1.
                        c.sql_delay = v.parse::<u32>().ok().filter(|d| *d <= MAX_DELAY).ok_or_else(|| {
                            SqlError::new(
                                1729,
                                "HY000",
                                format!("The requested value {v} for the source delay exceeds the maximum {MAX_DELAY}"),
                            )
                        })?
                    }
                    ChangeOpt::HeartbeatPeriod => {
                        let mut p = v.parse::<f64>().map_err(|_| bad_value("SOURCE_HEARTBEAT_PERIOD", v))?;
                        if !(0.0..=MAX_HEARTBEAT).contains(&p) {
                            // ER_REPLICA_HEARTBEAT_VALUE_OUT_OF_RANGE.
                            return Err(SqlError::new(
                                1624,
                                "HY000",
                                "The requested value for the heartbeat period is either negative or exceeds the \
                                 maximum allowed (4294967 seconds)."
                                    .to_string(),
                            ));
                        }
                        if p > 0.0 && p < 0.001 {
                            // ER_REPLICA_HEARTBEAT_VALUE_OUT_OF_RANGE_MIN.
                            s.warn(
                                1703,
                                "The requested value for the heartbeat period is less than 1 millisecond. The value \
                                 is reset to 0, meaning that heartbeating will effectively be disabled."
                                    .to_string(),
                            );
                            p = 0.0;
                        }
                        let timeout = shared.sysvars.global("replica_net_timeout").and_then(|v| v.as_u64()).unwrap_or(60);
                        if p > timeout as f64 {
                            // ER_REPLICA_HEARTBEAT_VALUE_OUT_OF_RANGE_MAX.
                            s.warn(
                                1704,
                                "The requested value for the heartbeat period exceeds the value of \
                                 `replica_net_timeout' seconds. A sensible value for the period should be less than the \
                                 timeout."
                                    .to_string(),
                            );
                        }
                        c.heartbeat = Some(p);
                    }
                    ChangeOpt::LogFile => file = Some(v.clone()),
                    ChangeOpt::LogPos => pos = Some(v.parse::<u64>().map_err(|_| bad_value("SOURCE_LOG_POS", v))?),
                }
            }
            if c.auto_position && (file.is_some() || pos.is_some()) {
                return Err(SqlError::new(
                    1776,
                    "HY000",
                    "Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS cannot be set when \
                     SOURCE_AUTO_POSITION is active."
                        .to_string(),
                ));
            }
            if c.auto_position && super::gtid_mode(&shared) == quire_binlog::GtidMode::Off {
                return Err(SqlError::new(
                    1777,
                    "HY000",
                    "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1 cannot be executed because \
                     @@GLOBAL.GTID_MODE = OFF."
                        .to_string(),
                ));
            }
            if c.host.len() > 255 {
                return Err(SqlError::new(1210, "HY000", "Incorrect arguments to SOURCE_HOST".to_string()));
            }
            if moved_source && file.is_none() && pos.is_none() {
                start = SourcePos::start();
            }
            if let Some(f) = file {
                start.file = f;
                if pos.is_none() {
                    start.pos = 4;
                }
            }
            if let Some(p) = pos {
                start.pos = p.max(4);
            }
            info::save_config(engine, &c, &start)?;
            Ok(Output::ok())
        }),
        ReplicaStmt::Start => {
            if !shared.replica.start(&shared)? {
                s.warn(3083, "Replication thread(s) for channel '' are already running.".to_string());
            }
            Ok(Output::ok())
        }
        ReplicaStmt::Stop => {
            if !shared.replica.stop() {
                s.warn(3084, "Replication thread(s) for channel '' are already stopped.".to_string());
            }
            Ok(Output::ok())
        }
        ReplicaStmt::Reset { all } => shared.replica.while_stopped(|| {
            info::reset(engine, *all)?;
            let (dir, base) = super::relay_location(&shared);
            let w = quire_binlog::relay::RelayWriter::create(&dir, &base, 0, quire_binlog::Checksum::Crc32)
                .map_err(|e| SqlError::new(1371, "HY000", format!("Failed purging old relay logs: {e}")))?;
            drop(w);
            shared.replica.forget();
            Ok(Output::ok())
        }),
        ReplicaStmt::ShowStatus { .. } => unreachable!("answered above"),
    }
}

fn bad_value(opt: &str, v: &str) -> SqlError {
    SqlError::new(1210, "HY000", format!("Incorrect arguments to {opt}: '{v}'"))
}

/// MySQL 8.0's SHOW REPLICA STATUS columns: (name, numeric).
const COLUMNS: &[(&str, bool)] = &[
    ("Replica_IO_State", false),
    ("Source_Host", false),
    ("Source_User", false),
    ("Source_Port", true),
    ("Connect_Retry", true),
    ("Source_Log_File", false),
    ("Read_Source_Log_Pos", true),
    ("Relay_Log_File", false),
    ("Relay_Log_Pos", true),
    ("Relay_Source_Log_File", false),
    ("Replica_IO_Running", false),
    ("Replica_SQL_Running", false),
    ("Replicate_Do_DB", false),
    ("Replicate_Ignore_DB", false),
    ("Replicate_Do_Table", false),
    ("Replicate_Ignore_Table", false),
    ("Replicate_Wild_Do_Table", false),
    ("Replicate_Wild_Ignore_Table", false),
    ("Last_Errno", true),
    ("Last_Error", false),
    ("Skip_Counter", true),
    ("Exec_Source_Log_Pos", true),
    ("Relay_Log_Space", true),
    ("Until_Condition", false),
    ("Until_Log_File", false),
    ("Until_Log_Pos", true),
    ("Source_SSL_Allowed", false),
    ("Source_SSL_CA_File", false),
    ("Source_SSL_CA_Path", false),
    ("Source_SSL_Cert", false),
    ("Source_SSL_Cipher", false),
    ("Source_SSL_Key", false),
    ("Seconds_Behind_Source", true),
    ("Source_SSL_Verify_Server_Cert", false),
    ("Last_IO_Errno", true),
    ("Last_IO_Error", false),
    ("Last_SQL_Errno", true),
    ("Last_SQL_Error", false),
    ("Replicate_Ignore_Server_Ids", false),
    ("Source_Server_Id", true),
    ("Source_UUID", false),
    ("Source_Info_File", false),
    ("SQL_Delay", true),
    ("SQL_Remaining_Delay", true),
    ("Replica_SQL_Running_State", false),
    ("Source_Retry_Count", true),
    ("Source_Bind", false),
    ("Last_IO_Error_Timestamp", false),
    ("Last_SQL_Error_Timestamp", false),
    ("Source_SSL_Crl", false),
    ("Source_SSL_Crlpath", false),
    ("Retrieved_Gtid_Set", false),
    ("Executed_Gtid_Set", false),
    ("Auto_Position", true),
    ("Replicate_Rewrite_DB", false),
    ("Channel_Name", false),
    ("Source_TLS_Version", false),
    ("Source_public_key_path", false),
    ("Get_Source_public_key", true),
    ("Network_Namespace", false),
];

/// A column's name in SHOW SLAVE STATUS (MySQL's names before 8.0.22).
pub fn old_name(name: &str) -> String {
    match name {
        "Get_Source_public_key" => "Get_master_public_key".to_string(),
        n => n.replace("Source", "Master").replace("Replica", "Slave"),
    }
}

/// The columns of SHOW REPLICA / SLAVE STATUS.
pub fn status_columns(old_names: bool) -> Vec<ColMeta> {
    COLUMNS
        .iter()
        .map(|(n, numeric)| {
            let name = if old_names { old_name(n) } else { n.to_string() };
            if *numeric {
                ColMeta::expr(&name, MetaType::Int { unsigned: true, width: 20 })
            } else {
                ColMeta::expr(&name, MetaType::Str { len: 512, fixed: false })
            }
        })
        .collect()
}

fn show_status(s: &Session, old_names: bool) -> Result<Output> {
    let columns = status_columns(old_names);
    let engine = &s.shared.engine;
    info::create_tables(engine)?;
    let Some(config) = info::load_config(engine)? else {
        return Ok(Output::Rows { columns, rows: vec![] });
    };
    let stored = info::load_position(engine)?.unwrap_or_default();
    let ch = s.shared.replica.channel();
    let p = ch.as_ref().map(|c| c.progress.lock().clone()).unwrap_or_default();
    let (applied, read) =
        if ch.is_some() { (p.applied.clone(), p.read.clone()) } else { (stored.clone(), stored.source.clone()) };
    let io_running = match p.io {
        IoState::Running => "Yes",
        IoState::Connecting => "Connecting",
        IoState::Off => "No",
    };
    // MySQL: NULL unless both threads run; 0 when the applier waits
    // with everything received applied.
    let behind = if p.io == IoState::Running && p.sql_running {
        match p.applying_ts {
            Some(ts) => Value::UInt((super::now_secs() - p.clock_diff_secs - i64::from(ts)).max(0) as u64),
            None => Value::UInt(0),
        }
    } else {
        Value::Null
    };
    let relay_space = ch.as_ref().map_or(0, |c| relay_space(c));
    let mut row = Vec::with_capacity(COLUMNS.len());
    for (name, _) in COLUMNS {
        let str_ = |v: &str| Value::Str(v.to_string());
        let v = match *name {
            "Replica_IO_State" => str_(p.io_state_text),
            "Source_Host" => str_(&config.host),
            "Source_User" => str_(&config.user),
            "Source_Port" => Value::UInt(u64::from(config.port)),
            "Connect_Retry" => Value::UInt(u64::from(config.connect_retry)),
            "Source_Log_File" => str_(&read.file),
            "Read_Source_Log_Pos" => Value::UInt(read.pos),
            "Relay_Log_File" => str_(&applied.relay_file),
            "Relay_Log_Pos" => Value::UInt(applied.relay_pos),
            "Relay_Source_Log_File" => str_(&applied.source.file),
            "Replica_IO_Running" => str_(io_running),
            "Replica_SQL_Running" => str_(if p.sql_running { "Yes" } else { "No" }),
            "Last_Errno" | "Last_SQL_Errno" => Value::UInt(u64::from(p.last_sql.0)),
            "Last_Error" | "Last_SQL_Error" => str_(&p.last_sql.1),
            "Exec_Source_Log_Pos" => Value::UInt(applied.source.pos),
            "Relay_Log_Space" => Value::UInt(relay_space),
            "Until_Condition" => str_("None"),
            "Source_SSL_Allowed" | "Source_SSL_Verify_Server_Cert" => str_("No"),
            "Seconds_Behind_Source" => behind.clone(),
            "Last_IO_Errno" => Value::UInt(u64::from(p.last_io.0)),
            "Last_IO_Error" => str_(&p.last_io.1),
            "Source_Server_Id" => Value::UInt(u64::from(p.source_server_id)),
            "Source_Info_File" => str_("mysql.slave_master_info"),
            "Auto_Position" => Value::UInt(u64::from(config.auto_position)),
            "Retrieved_Gtid_Set" => str_(&p.retrieved.to_string()),
            "Executed_Gtid_Set" => {
                str_(&s.shared.binlog.get().map(|b| b.log.gtid_executed().to_string()).unwrap_or_default())
            }
            "SQL_Delay" => Value::UInt(u64::from(config.sql_delay)),
            // Seconds left while the applier waits for SOURCE_DELAY.
            "SQL_Remaining_Delay" => match p.delay_until {
                Some(until) if p.sql_running => Value::UInt((until - super::now_secs()).max(0) as u64),
                _ => Value::Null,
            },
            "Skip_Counter" | "Until_Log_Pos" | "Get_Source_public_key" => Value::UInt(0),
            "Replica_SQL_Running_State" => str_(p.sql_state_text),
            "Source_Retry_Count" => Value::UInt(86_400),
            "Last_IO_Error_Timestamp" => str_(&p.last_io.2),
            "Last_SQL_Error_Timestamp" => str_(&p.last_sql.2),
            _ => str_(""),
        };
        row.push(v);
    }
    Ok(Output::Rows { columns, rows: vec![row] })
}

/// The bytes of the relay log's files.
fn relay_space(ch: &super::Channel) -> u64 {
    let index = ch.relay_dir.join(format!("{}.index", ch.relay_base));
    std::fs::read_to_string(index)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| std::fs::metadata(ch.relay_dir.join(l.trim().trim_start_matches("./"))).ok())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_both_spellings_of_change_source() {
        let new = parse(&toks(&[
            "CHANGE",
            "REPLICATION",
            "SOURCE",
            "TO",
            "SOURCE_HOST",
            "=",
            "\u{1}127.0.0.1",
            ",",
            "SOURCE_PORT",
            "=",
            "3306",
            ",",
            "SOURCE_LOG_POS",
            "=",
            "4",
        ]))
        .unwrap();
        let old = parse(&toks(&[
            "change",
            "master",
            "to",
            "master_host",
            "=",
            "\u{1}127.0.0.1",
            ",",
            "master_port",
            "=",
            "3306",
            ",",
            "MASTER_LOG_POS",
            "=",
            "4",
        ]))
        .unwrap();
        assert_eq!(new, old);
        assert_eq!(
            new,
            Some(ReplicaStmt::Change(vec![
                (ChangeOpt::Host, "127.0.0.1".into()),
                (ChangeOpt::Port, "3306".into()),
                (ChangeOpt::LogPos, "4".into())
            ]))
        );
    }

    #[test]
    fn refuses_unknown_options_and_bad_values() {
        let e = parse(&toks(&["CHANGE", "MASTER", "TO", "MASTER_SSL", "=", "1"])).unwrap_err();
        assert_eq!(e.code, 1235);
        assert!(parse(&toks(&["CHANGE", "MASTER", "TO", "MASTER_PORT", "=", "\u{1}x"])).is_err());
        assert!(parse(&toks(&["CHANGE", "MASTER", "TO", "MASTER_HOST", "=", "h"])).is_err());
        assert!(parse(&toks(&["CHANGE", "MASTER", "TO"])).is_err());
    }

    #[test]
    fn parses_start_stop_reset_show() {
        assert_eq!(parse(&toks(&["START", "SLAVE"])).unwrap(), Some(ReplicaStmt::Start));
        assert_eq!(parse(&toks(&["stop", "replica"])).unwrap(), Some(ReplicaStmt::Stop));
        assert_eq!(parse(&toks(&["RESET", "REPLICA", "ALL"])).unwrap(), Some(ReplicaStmt::Reset { all: true }));
        assert_eq!(
            parse(&toks(&["SHOW", "SLAVE", "STATUS"])).unwrap(),
            Some(ReplicaStmt::ShowStatus { old_names: true })
        );
        assert_eq!(parse(&toks(&["START", "SLAVE", "IO_THREAD"])).unwrap_err().code, 1235);
        assert_eq!(parse(&toks(&["SHOW", "TABLES"])).unwrap(), None);
    }

    #[test]
    fn old_column_names_are_mysql_57s() {
        let names: Vec<String> = COLUMNS.iter().map(|(n, _)| old_name(n)).collect();
        for n in [
            "Slave_IO_State",
            "Master_Host",
            "Read_Master_Log_Pos",
            "Relay_Master_Log_File",
            "Slave_IO_Running",
            "Exec_Master_Log_Pos",
            "Seconds_Behind_Master",
            "Master_Server_Id",
            "Slave_SQL_Running_State",
            "Get_master_public_key",
        ] {
            assert!(names.iter().any(|x| x == n), "{n}");
        }
    }
}
