//! A committing transaction's row changes and a DDL statement, as binary
//! log events; the session's hooks that write them and then commit in the
//! engine in log order.
//!
//! The engine keeps a transaction's changes as encoded rows
//! (`engine/table/row_log.rs`) while the log is on; here they are decoded
//! with each table's current schema (DDL commits the transaction first,
//! so the schema is the one the rows were written under) and cut into
//! runs of one table and one kind (`quire_binlog::rows`). TIMESTAMP
//! values are decoded in UTC (`tz::with_utc`): the log holds seconds
//! since the epoch, not the session's wall clock.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use quire_binlog::rows::{log_run, LoggedTable, RowMetadata, RowPair, RowsKind};
use quire_binlog::{Events, Frame, QueryEvent};
use quire_engine::row::{codec, tz, Value};
use quire_engine::table::row_log::RowLog;
use quire_engine::table::Trx;
use quire_engine::Engine;

use super::Binlog;
use crate::error::{Result, SqlError};
use crate::session::Session;

/// Q_FLAGS2's OPTION_NO_FOREIGN_KEY_CHECKS.
const OPTION_NO_FOREIGN_KEY_CHECKS: u32 = 0x0400_0000;
/// Collation ids of the QUERY events' Q_CHARSET: utf8mb4_general_ci,
/// quire's default, which MariaDB's tools know (BINLOG.md: 255 breaks a
/// replay into MariaDB).
const CHARSET: [u16; 3] = [45, 45, 45];

/// Stops forever at a named point when `QUIRE_BINLOG_PAUSE_AT` names it
/// (crash tests only, as `QUIRE_DDL_PAUSE_AT`): `engine_commit`, after a
/// transaction's events are written and synced and before its engine
/// commit (the window the engine's recorded position closes). Read only
/// with the log on.
fn fault_point(name: &str) {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if AT.get_or_init(|| std::env::var("QUIRE_BINLOG_PAUSE_AT").ok()).as_deref() == Some(name) {
        tracing::warn!("QUIRE_BINLOG_PAUSE_AT: paused at {name}");
        eprintln!("quire: paused at binlog point {name}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

/// 1598 ER_BINLOG_LOGGING_IMPOSSIBLE.
pub(crate) fn logging_impossible(msg: &str) -> SqlError {
    SqlError::new(1598, "HY000", format!("Binary logging not possible. Message: {msg}"))
}

/// 1197 ER_TRANS_CACHE_FULL.
pub fn cache_full() -> SqlError {
    SqlError::new(
        1197,
        "HY000",
        "Multi-statement transaction required more than 'max_binlog_cache_size' bytes of storage; increase this mysqld variable and try again".to_string(),
    )
}

/// One table of a transaction: its log description, or `None` when its
/// changes are not logged (a temporary table, or one dropped since).
struct Resolved {
    space_id: u32,
    table: Option<LoggedTable>,
}

fn resolve(engine: &Engine, space_id: u32) -> Resolved {
    let table = engine.table_by_space_id(space_id).and_then(|t| {
        let (db, name) = t.name().split_once('/')?;
        // Temporary tables, and the replica's own state (`replica/info.rs`
        // invariant 3), are not logged.
        if db == crate::temp_table::ENGINE_DB || crate::replica::info::is_replica_table(t.name()) {
            return None;
        }
        Some(LoggedTable {
            table_id: u64::from(space_id),
            db: db.to_string(),
            name: name.to_string(),
            schema: t.schema(),
        })
    });
    Resolved { space_id, table }
}

fn kind_of(before: bool, after: bool) -> RowsKind {
    match (before, after) {
        (false, _) => RowsKind::Write,
        (true, true) => RowsKind::Update,
        (true, false) => RowsKind::Delete,
    }
}

/// The events of a transaction from BEGIN to XID (`None`: nothing to log).
pub fn encode_trx(
    engine: &Engine,
    log: &RowLog,
    f: &Frame,
    meta: RowMetadata,
    thread_id: u32,
    xid: u64,
) -> Result<Option<Events>> {
    let changes = log.changes();
    let mut tables: Vec<Resolved> = Vec::new();
    // Row images plus room for the events' headers, BEGIN and XID: one
    // allocation for the common transaction.
    let images: usize =
        changes.iter().map(|c| c.before.as_ref().map_or(0, Vec::len) + c.after.as_ref().map_or(0, Vec::len)).sum();
    let mut ev = Events::with_capacity(images + images / 4 + 512, 8);
    let mut logged = false;
    tz::with_utc(|| -> Result<()> {
        let mut i = 0;
        while i < changes.len() {
            let c = &changes[i];
            let k = kind_of(c.before.is_some(), c.after.is_some());
            let mut j = i + 1;
            while j < changes.len()
                && changes[j].space_id == c.space_id
                && kind_of(changes[j].before.is_some(), changes[j].after.is_some()) == k
            {
                j += 1;
            }
            let t = match tables.iter().position(|r| r.space_id == c.space_id) {
                Some(p) => &tables[p],
                None => {
                    tables.push(resolve(engine, c.space_id));
                    tables.last().expect("pushed")
                }
            };
            if let Some(t) = &t.table {
                let decode = |b: &Option<Vec<u8>>| -> Result<Option<Vec<Value>>> {
                    match b {
                        None => Ok(None),
                        Some(b) => codec::decode_row(&t.schema, b).map(Some).ok_or_else(|| {
                            logging_impossible(&format!("a row of {}.{} does not decode", t.db, t.name))
                        }),
                    }
                };
                let mut rows = Vec::with_capacity(j - i);
                for ch in &changes[i..j] {
                    rows.push((decode(&ch.before)?, decode(&ch.after)?));
                }
                let pairs: Vec<RowPair<'_>> =
                    rows.iter().map(|(b, a)| RowPair { before: b.as_deref(), after: a.as_deref() }).collect();
                if !logged {
                    ev.query(f, &query(thread_id, "", "BEGIN", 0));
                    logged = true;
                }
                log_run(&mut ev, f, t, k, &pairs, meta);
            }
            i = j;
        }
        Ok(())
    })?;
    if !logged {
        return Ok(None);
    }
    ev.xid(f, xid);
    Ok(Some(ev))
}

fn query<'a>(thread_id: u32, db: &'a str, sql: &'a str, flags2: u32) -> QueryEvent<'a> {
    QueryEvent { thread_id, db, sql, flags2, sql_mode: 0, charset: CHARSET }
}

impl Session {
    /// The open binary log, when this session logs (`log_bin` ON and
    /// `sql_log_bin` ON).
    pub(crate) fn binlog(&self) -> Option<&Arc<Binlog>> {
        let b = self.shared.binlog.get()?;
        (self.vars.get("sql_log_bin").and_then(|v| v.as_bool()) != Some(false)).then_some(b)
    }

    /// Commits `trx`: with the log off (or nothing to log) the engine's
    /// commit alone. Else its row changes go to the log first; then, in
    /// log order (`quire_binlog::log::commit_ordered`), the engine commits
    /// it and records its log position in the same mini-transaction; then
    /// the redo log is made durable outside that order. On a log error
    /// the transaction is rolled back and the error returned (the client
    /// gets no OK).
    pub(crate) fn commit_trx(&self, trx: &mut Trx) -> Result<()> {
        let Some(b) = self.shared.binlog.get() else { return self.commit_engine(trx) };
        let Some(rows) = trx.take_row_log() else { return self.commit_engine(trx) };
        if rows.is_empty() {
            return self.commit_engine(trx);
        }
        let next = match self.gtid_next() {
            Ok(n) => n,
            Err(e) => {
                let _ = trx.rollback();
                return Err(e);
            }
        };
        let meta = if b.full_metadata.load(Ordering::Relaxed) { RowMetadata::Full } else { RowMetadata::Minimal };
        let ev = match encode_trx(&self.shared.engine, &rows, &b.log.frame(), meta, self.connection_id, trx.id()) {
            Ok(Some(ev)) => ev,
            Ok(None) => return self.commit_engine(trx),
            Err(e) => {
                let _ = trx.rollback();
                return Err(e);
            }
        };
        // Waiting for the group (and its sync) lends the seat.
        let committed = quire_engine::txn::admission::blocking(quire_engine::wait::Instrument::GroupCommit, || {
            b.log.commit_ordered_as(ev, next, |pos| {
                fault_point("engine_commit");
                let at = (pos.file_number(), pos.end);
                let r = trx.commit_in_memory(Some(at));
                if let Err(e) = &r {
                    b.log.stop_after_engine_failure(&e.to_string());
                }
                r.map(|lsn| (lsn, at))
            })
        });
        match committed {
            Ok(r) => {
                let (lsn, at) = r?;
                self.committed_in_memory();
                self.gtid_logged(next);
                trx.wait_durable(lsn)?;
                // Durable in the log and the engine: replicas may have it.
                b.log.mark_durable(at.0, at.1);
                Ok(())
            }
            Err(e) => {
                let _ = trx.rollback();
                Err(logging_impossible(&e.0))
            }
        }
    }

    /// The engine's commit alone, in its two halves
    /// ([`Session::commit_then`]'s hook between them).
    fn commit_engine(&self, trx: &mut Trx) -> Result<()> {
        let lsn = trx.commit_in_memory(None)?;
        self.committed_in_memory();
        Ok(trx.wait_durable(lsn)?)
    }

    /// 1197 when the transaction's kept row changes passed
    /// `max_binlog_cache_size` (checked after each statement; the
    /// statement is then undone, as MySQL does).
    pub(crate) fn check_binlog_cache(&self, trx: &Trx) -> Result<()> {
        let Some(b) = self.shared.binlog.get() else { return Ok(()) };
        if trx.row_log_bytes() > b.max_cache_bytes.load(Ordering::Relaxed) {
            return Err(cache_full());
        }
        Ok(())
    }

    /// Logs a DDL statement that succeeded (invariant 2 of `binlog/`).
    pub(crate) fn log_ddl(&self, sql: &str) -> Result<()> {
        let Some(b) = self.binlog() else { return Ok(()) };
        let fk_off = !self.foreign_key_checks();
        let sql = sql.trim().trim_end_matches(';').trim_end();
        let db = self.db.as_deref().unwrap_or("");
        let mut ev = Events::default();
        let f = b.log.frame();
        ev.query(&f, &query(self.connection_id, db, sql, if fk_off { OPTION_NO_FOREIGN_KEY_CHECKS } else { 0 }));
        self.log_statement_events(b, ev, self.gtid_next()?)
    }

    /// Logs an empty transaction (BEGIN, COMMIT) under `next`: what
    /// `SET gtid_next='uuid:N'; BEGIN; COMMIT` writes (MySQL's way to
    /// mark a GTID executed).
    pub(crate) fn log_empty_transaction(&self, next: quire_binlog::GtidNext) -> Result<()> {
        let Some(b) = self.binlog() else { return Ok(()) };
        let db = self.db.as_deref().unwrap_or("");
        let mut ev = Events::default();
        let f = b.log.frame();
        ev.query(&f, &query(self.connection_id, db, "BEGIN", 0));
        ev.query(&f, &query(self.connection_id, db, "COMMIT", 0));
        self.log_statement_events(b, ev, next)
    }

    /// Logs events that change nothing in the engine (a DDL QUERY after
    /// its statement committed, an empty transaction), and records their
    /// position in the engine in log order, as a transaction's.
    fn log_statement_events(&self, b: &Arc<Binlog>, ev: Events, next: quire_binlog::GtidNext) -> Result<()> {
        let engine = &self.shared.engine;
        let (lsn, at) = b
            .log
            .commit_ordered_as(ev, next, |pos| {
                let at = (pos.file_number(), pos.end);
                let r = engine.record_binlog_position(at);
                if let Err(e) = &r {
                    b.log.stop_after_engine_failure(&e.to_string());
                }
                r.map(|lsn| (lsn, at))
            })
            .map_err(|e| logging_impossible(&e.0))??;
        self.gtid_logged(next);
        engine.wait_durable(lsn)?;
        b.log.mark_durable(at.0, at.1);
        Ok(())
    }

    /// The text to log for DDL statement `stmt`: the client's own text
    /// when the command held this one statement, else the statement as
    /// the parser prints it.
    pub(crate) fn ddl_text(&self, stmt: &sqlparser::ast::Statement) -> String {
        if let Some(text) = self.process.info_text() {
            let t = text.trim().trim_end_matches(';');
            if !t.contains(';') {
                return t.to_string();
            }
        }
        stmt.to_string()
    }
}

/// Whether `stmt` is DDL the log records as a statement once it succeeded:
/// CREATE / ALTER / DROP / RENAME / TRUNCATE of databases, tables, views
/// and indexes. Temporary tables are not logged; CREATE TABLE ... SELECT
/// logs its expanded definition itself (`create/select.rs`), then its rows.
pub fn is_logged_ddl(stmt: &sqlparser::ast::Statement) -> bool {
    use sqlparser::ast::Statement as S;
    match stmt {
        S::CreateDatabase { .. } | S::CreateSchema { .. } | S::CreateView(_) | S::CreateIndex(_) => true,
        S::Drop { temporary, .. } => !temporary,
        S::CreateTable(ct) => !ct.temporary && ct.query.is_none(),
        S::Truncate(_) | S::RenameTable(_) | S::AlterTable(_) => true,
        _ => false,
    }
}
