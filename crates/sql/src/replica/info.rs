//! The replica's durable state, where MySQL 8.0 keeps it: engine tables
//! `mysql.slave_master_info` (the connection CHANGE REPLICATION SOURCE
//! configured) and `mysql.slave_relay_log_info` (the applier's position),
//! with MySQL's column names (a subset: the options quire has).
//!
//! ```text
//! slave_master_info     Number_of_lines, Master_log_name, Master_log_pos, Host,
//!                       User_name, User_password, Port, Connect_retry, Channel_name,
//!                       Auto_position, Heartbeat
//!                       PRIMARY KEY (Channel_name)
//! slave_relay_log_info  Number_of_lines, Relay_log_name, Relay_log_pos, Master_log_name,
//!                       Master_log_pos, Sql_delay, Number_of_workers, Id, Channel_name
//!                       PRIMARY KEY (Channel_name)
//! ```
//!
//! Invariants (the crash-safety argument, docs/ARCHITECTURE.md
//! "Replica"):
//! 1. `slave_relay_log_info.Master_log_name/pos` is the source position
//!    just past the last transaction the replica committed: the applier
//!    updates it in the same engine transaction as that transaction's
//!    rows ([`save_position_tx`]), so the engine holds both or neither.
//! 2. The receiver fetches from that position at every start (relay log
//!    recovery), so a transaction is neither lost nor applied twice.
//! 3. Neither table is written to the binary log (`binlog::capture`
//!    skips them): they describe this server, not the data it serves.
//!
//! Only the default channel (`Channel_name = ''`) exists. A
//! `slave_master_info` made before `Auto_position` or `Heartbeat` existed
//! gains them at start by an instant ADD COLUMN (its rows read 0 and
//! NULL: the default period).

use quire_engine::row::Value;
use quire_engine::table::Trx;
use quire_engine::Engine;

use crate::error::Result;

pub const MASTER_INFO: &str = "mysql/slave_master_info";
pub const RELAY_LOG_INFO: &str = "mysql/slave_relay_log_info";

/// Whether the engine table `name` is one of the replica's own tables
/// (invariant 3).
pub fn is_replica_table(name: &str) -> bool {
    name == MASTER_INFO || name == RELAY_LOG_INFO
}

const TABLES: &[(&str, &str)] = &[
    (
        MASTER_INFO,
        "CREATE TABLE slave_master_info (
            Number_of_lines INT UNSIGNED NOT NULL,
            Master_log_name TEXT NOT NULL,
            Master_log_pos BIGINT UNSIGNED NOT NULL,
            Host VARCHAR(255),
            User_name TEXT,
            User_password TEXT,
            Port INT UNSIGNED NOT NULL,
            Connect_retry INT UNSIGNED NOT NULL,
            Channel_name VARCHAR(64) NOT NULL,
            Auto_position TINYINT(1) NOT NULL DEFAULT 0,
            Heartbeat DOUBLE,
            PRIMARY KEY (Channel_name))",
    ),
    (
        RELAY_LOG_INFO,
        "CREATE TABLE slave_relay_log_info (
            Number_of_lines INT UNSIGNED NOT NULL,
            Relay_log_name TEXT,
            Relay_log_pos BIGINT UNSIGNED,
            Master_log_name TEXT NOT NULL,
            Master_log_pos BIGINT UNSIGNED NOT NULL,
            Sql_delay INT NOT NULL,
            Number_of_workers INT UNSIGNED NOT NULL,
            Id INT UNSIGNED NOT NULL,
            Channel_name VARCHAR(64) NOT NULL,
            PRIMARY KEY (Channel_name))",
    ),
];

/// Creates the tables that do not exist yet, and adds `Auto_position`
/// to a `slave_master_info` that lacks it.
pub fn create_tables(engine: &Engine) -> Result<()> {
    crate::log_tables::create_missing(engine, TABLES)?;
    let t = engine.table(MASTER_INFO)?;
    let have = t.schema().columns.clone();
    let stmt = crate::session::parse(TABLES[0].1)?.into_iter().next();
    let Some(sqlparser::ast::Statement::CreateTable(ct)) = stmt else {
        return Err(crate::error::SqlError::internal("the definition of slave_master_info is no CREATE TABLE"));
    };
    let want = crate::ddl::schema_of(&ct)?.columns;
    if have.len() < want.len() {
        let mut cols = have.clone();
        for mut c in want.into_iter().skip(have.len()) {
            c.instant_default = Some(c.default.clone().unwrap_or(Value::Null));
            cols.push(c);
        }
        engine.alter_columns_instant(MASTER_INFO, cols)?;
    }
    Ok(())
}

/// The connection CHANGE REPLICATION SOURCE configured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceConfig {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    /// Seconds between connection attempts (SOURCE_CONNECT_RETRY).
    pub connect_retry: u32,
    /// SOURCE_AUTO_POSITION: the dump starts from the GTIDs this replica
    /// lacks, not from a file and position.
    pub auto_position: bool,
    /// SOURCE_DELAY, seconds (kept in `slave_relay_log_info.Sql_delay`,
    /// as MySQL keeps it).
    pub sql_delay: u32,
    /// SOURCE_HEARTBEAT_PERIOD, seconds (0: none); `None`: half of
    /// `replica_net_timeout` at START, as MySQL's default.
    pub heartbeat: Option<f64>,
}

/// A position in the source's binary log (empty file: its first file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourcePos {
    pub file: String,
    pub pos: u64,
}

impl SourcePos {
    pub fn start() -> Self {
        SourcePos { file: String::new(), pos: 4 }
    }
}

/// The applier's position (invariant 1): the relay log's and the source's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppliedPos {
    pub relay_file: String,
    pub relay_pos: u64,
    pub source: SourcePos,
}

fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn num(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => (*i).max(0) as u64,
        _ => 0,
    }
}

fn channel() -> [Value; 1] {
    [Value::Str(String::new())]
}

/// The stored configuration, if CHANGE REPLICATION SOURCE ran.
pub fn load_config(engine: &Engine) -> Result<Option<SourceConfig>> {
    let t = engine.table(MASTER_INFO)?;
    let sql_delay = engine.table(RELAY_LOG_INFO)?.get(&channel())?.map_or(0, |r| num(&r[5]) as u32);
    Ok(t.get(&channel())?.map(|r| SourceConfig {
        host: text(&r[3]),
        user: text(&r[4]),
        password: text(&r[5]),
        port: num(&r[6]) as u16,
        connect_retry: num(&r[7]) as u32,
        auto_position: r.get(9).is_some_and(|v| num(v) != 0),
        sql_delay,
        heartbeat: match r.get(10) {
            Some(Value::Double(d)) => Some(*d),
            _ => None,
        },
    }))
}

/// The stored applier position.
pub fn load_position(engine: &Engine) -> Result<Option<AppliedPos>> {
    let t = engine.table(RELAY_LOG_INFO)?;
    Ok(t.get(&channel())?.map(|r| AppliedPos {
        relay_file: text(&r[1]),
        relay_pos: num(&r[2]),
        source: SourcePos { file: text(&r[3]), pos: num(&r[4]) },
    }))
}

fn master_row(c: &SourceConfig, start: &SourcePos) -> Vec<Value> {
    vec![
        Value::UInt(9),
        Value::Str(start.file.clone()),
        Value::UInt(start.pos),
        Value::Str(c.host.clone()),
        Value::Str(c.user.clone()),
        Value::Str(c.password.clone()),
        Value::UInt(u64::from(c.port)),
        Value::UInt(u64::from(c.connect_retry)),
        Value::Str(String::new()),
        Value::Int(i64::from(c.auto_position)),
        c.heartbeat.map_or(Value::Null, Value::Double),
    ]
}

fn relay_row(p: &AppliedPos, sql_delay: u32) -> Vec<Value> {
    vec![
        Value::UInt(7),
        Value::Str(p.relay_file.clone()),
        Value::UInt(p.relay_pos),
        Value::Str(p.source.file.clone()),
        Value::UInt(p.source.pos),
        Value::Int(i64::from(sql_delay)),
        Value::UInt(0),
        Value::UInt(1),
        Value::Str(String::new()),
    ]
}

/// Replaces the row of the default channel of `table` in `trx`.
fn replace_tx(engine: &Engine, trx: &mut Trx, table: &str, row: Vec<Value>) -> Result<()> {
    let t = engine.table(table)?;
    t.delete_tx(trx, &channel())?;
    t.insert_tx(trx, row)?;
    Ok(())
}

/// Stores the configuration and the position to start from, in one
/// transaction (CHANGE REPLICATION SOURCE).
pub fn save_config(engine: &Engine, c: &SourceConfig, start: &SourcePos) -> Result<()> {
    let mut trx = engine.begin(quire_engine::txn::Isolation::RepeatableRead);
    let r = replace_tx(engine, &mut trx, MASTER_INFO, master_row(c, start)).and_then(|()| {
        let p = AppliedPos { relay_file: String::new(), relay_pos: 0, source: start.clone() };
        replace_tx(engine, &mut trx, RELAY_LOG_INFO, relay_row(&p, c.sql_delay))
    });
    finish(trx, r)
}

/// Deletes the position (RESET REPLICA) and, with `all`, the
/// configuration (RESET REPLICA ALL).
pub fn reset(engine: &Engine, all: bool) -> Result<()> {
    let mut trx = engine.begin(quire_engine::txn::Isolation::RepeatableRead);
    let r = (|| -> Result<()> {
        if all {
            engine.table(MASTER_INFO)?.delete_tx(&mut trx, &channel())?;
            engine.table(RELAY_LOG_INFO)?.delete_tx(&mut trx, &channel())?;
        } else if let Some(c) = load_config(engine)? {
            replace_tx(engine, &mut trx, MASTER_INFO, master_row(&c, &SourcePos::start()))?;
            let p = AppliedPos { relay_file: String::new(), relay_pos: 0, source: SourcePos::start() };
            // RESET REPLICA sets SOURCE_DELAY back to 0, as MySQL's.
            replace_tx(engine, &mut trx, RELAY_LOG_INFO, relay_row(&p, 0))?;
        }
        Ok(())
    })();
    finish(trx, r)
}

fn finish(mut trx: Trx, r: Result<()>) -> Result<()> {
    match r {
        Ok(()) => Ok(trx.commit()?),
        Err(e) => {
            trx.rollback()?;
            Err(e)
        }
    }
}

/// Writes the applier's position in `trx`, the transaction that holds the
/// rows it applied (invariant 1), with the channel's SOURCE_DELAY.
pub fn save_position_tx(engine: &Engine, trx: &mut Trx, p: &AppliedPos, sql_delay: u32) -> Result<()> {
    let t = engine.table(RELAY_LOG_INFO)?;
    let row = relay_row(p, sql_delay);
    if t.update_tx(trx, &channel(), |_| Ok(row.clone()))? == quire_engine::table::RowUpdate::NotFound {
        t.insert_tx(trx, row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::EngineConfig;

    /// A `slave_master_info` made before `Auto_position` and `Heartbeat`
    /// existed (nine columns) gains them at the next `create_tables`; its
    /// row reads auto-position 0 and the default heartbeat and keeps its
    /// values, and a new configuration stores both.
    #[test]
    fn an_older_master_info_gains_auto_position_and_heartbeat_and_keeps_its_row() {
        let vfs: std::sync::Arc<dyn quire_io::Vfs> = quire_io::MemVfs::new();
        let engine = Engine::open(EngineConfig::new("/data").buffer_pool_size(256 * 16384), vfs).unwrap();
        let old =
            TABLES[0].1.replace("Auto_position TINYINT(1) NOT NULL DEFAULT 0,", "").replace("Heartbeat DOUBLE,", "");
        let Some(sqlparser::ast::Statement::CreateTable(ct)) = crate::session::parse(&old).unwrap().into_iter().next()
        else {
            panic!("no CREATE TABLE")
        };
        engine.create_table(MASTER_INFO, crate::ddl::schema_of(&ct).unwrap()).unwrap();
        let c = SourceConfig { host: "h".into(), port: 3307, connect_retry: 5, ..SourceConfig::default() };
        let mut row = master_row(&c, &SourcePos::start());
        row.truncate(9);
        let mut trx = engine.begin(quire_engine::txn::Isolation::RepeatableRead);
        engine.table(MASTER_INFO).unwrap().insert_tx(&mut trx, row).unwrap();
        trx.commit().unwrap();
        create_tables(&engine).unwrap();
        assert_eq!(engine.table(MASTER_INFO).unwrap().schema().columns.len(), 11);
        assert_eq!(load_config(&engine).unwrap(), Some(c.clone()));
        let on = SourceConfig { auto_position: true, heartbeat: Some(0.25), ..c };
        save_config(&engine, &on, &SourcePos::start()).unwrap();
        assert_eq!(load_config(&engine).unwrap(), Some(on));
        create_tables(&engine).unwrap();
    }
}
