//! The applier (MySQL's SQL thread): reads the relay log up to its synced
//! end and applies each source transaction as one transaction of its own
//! session, through the SQL layer.
//!
//! | event                 | applied as                                                  |
//! |-----------------------|-------------------------------------------------------------|
//! | FORMAT_DESCRIPTION    | the checksum algorithm of the events after it               |
//! | ROTATE                | the source file name (artificial: a new connection; an open transaction is rolled back, it is sent again whole) |
//! | ANONYMOUS_GTID / GTID | the transaction's source commit time (Seconds_Behind_Source); `gtid_next` for it (below) |
//! | QUERY `BEGIN`         | a transaction begins (the session call, no SQL text parsed) |
//! | QUERY (DDL)           | the statement, in the event's database, then the position   |
//! | TABLE_MAP             | kept by table id until the transaction ends                 |
//! | WRITE/UPDATE/DELETE_ROWS v2 | one prepared INSERT / UPDATE / DELETE per row, by primary key (every column when the table has none): `row_apply.rs` |
//! | XID                   | the position written in the transaction, then COMMIT       |
//!
//! The session is exempt from read_only, runs with `time_zone='+00:00'`
//! (row images hold TIMESTAMPs in UTC), `sql_mode='NO_AUTO_VALUE_ON_ZERO'`
//! (values are stored as the source stored them), `foreign_key_checks=0`
//! (the source checked them, and logged cascaded rows itself), and
//! `sql_log_bin` from `log_replica_updates` (so a replica with `log_bin`
//! feeds replicas of its own).
//!
//! GTIDs: when this server logs what it applies (`log_bin` and
//! `log_replica_updates`), each transaction is applied with `gtid_next`
//! set from its GTID event, as MySQL's applier does: it keeps the
//! source's GTID in this server's log and `gtid_executed` (an executed
//! one is skipped), and an anonymous transaction stays anonymous (with
//! `gtid_mode=ON` that stops the applier, 1783). Without them quire has
//! nowhere to keep GTIDs (MySQL's `mysql.gtid_executed` table) and
//! applies transactions without theirs.
//!
//! Invariants:
//! 1. The position (`info::save_position_tx`) is written in the same
//!    engine transaction as the rows of the source transaction that ends
//!    at it: a crash keeps both or neither.
//! 2. An error stops the applier with the transaction rolled back and
//!    Last_SQL_Errno / Last_SQL_Error set; the position stays before the
//!    failed transaction, so START REPLICA retries it.
//! 3. DDL is not transactional in quire: the statement commits, then the
//!    position does. A crash between the two runs the statement again at
//!    the next start (it then fails with "already exists" or "unknown",
//!    which stops the applier: the one gap in crash safety, see
//!    docs/ARCHITECTURE.md "Replica"), unless GTIDs are kept: the DDL's
//!    GTID is then executed, so an auto-positioned replica is not sent
//!    it again and a repeated one is skipped as executed.
//! 4. A transaction that fails on a lock wait timeout (1205) or a
//!    deadlock (1213) — a client of the replica holds a row it needs — is
//!    rolled back and applied again from its first event (its GTID
//!    event, or BEGIN), after a pause of as many seconds as it was tried
//!    (at most 5), up to `replica_transaction_retries` times, as MySQL's
//!    applier does; then invariant 2. A worker applies its job's events
//!    again; the serial applier (or the coordinator, for a transaction it
//!    applies itself) reads the relay log again from the transaction's
//!    start, which the receiver keeps (`applier_file`).

use std::collections::HashMap;
use std::fs::File;
use std::sync::Arc;
use std::time::Duration;

use quire_binlog::decode::{self, TableMap, FLAG_ARTIFICIAL};
use quire_binlog::event::{kind, HEADER_LEN};
use quire_binlog::relay;
use quire_binlog::Checksum;

use super::info::{self, AppliedPos};
use super::parallel::{self, Dispatcher, Job, Order, Turn};
use super::relay_reader::RelayReader;
use super::row_apply::{Op, Tables};
use super::Channel;
use crate::catalog::SYSTEM_USER;
use crate::error::{Result, SqlError};
use crate::session::{Session, Shared};
use crate::sink::Outcome;

/// The applier's connection id (shown by SHOW PROCESSLIST).
pub const APPLIER_CONNECTION_ID: u32 = u32::MAX - 1;

/// The idle wait between checks for a stop.
const IDLE_WAIT: Duration = Duration::from_millis(500);

/// A row change's kind, as MySQL names its events in errors.
/// The applier's reading position and what it carries between events;
/// with `replica_parallel_workers`, the coordinator's and each worker's
/// (`parallel.rs`: a worker reads nothing, it is given whole
/// transactions).
pub(super) struct Applier<'a> {
    pub(super) ch: &'a Channel,
    pub(super) s: Session,
    /// Relay file number and offset of the next event.
    pub(super) file: u32,
    pos: u64,
    reader: Option<RelayReader>,
    pub(super) checksum: Checksum,
    /// The source file the events come from.
    pub(super) source_file: String,
    maps: HashMap<u64, Arc<TableMap>>,
    tables: Tables,
    pub(super) in_trx: bool,
    /// Where the transaction being applied starts in the relay log
    /// (invariant 4), and how often it was retried.
    group_start: Option<GroupStart>,
    retries: u64,
    /// Transactions keep their GTIDs (module doc).
    keep_gtids: bool,
    /// A worker's commit order, and its job's place and sequence number
    /// in it.
    order: Option<Arc<Order>>,
    job: u64,
    job_seq: i64,
    /// The coordinator's DDL count the worker's statements were prepared
    /// under.
    generation: u64,
}

/// The first event of a transaction: where the applier reads again to
/// retry it (invariant 4).
#[derive(Clone)]
struct GroupStart {
    file: u32,
    pos: u64,
    source_file: String,
    checksum: Checksum,
}

/// The longest pause before a retry (MySQL's `MAX_SLAVE_RETRY_PAUSE`).
const MAX_RETRY_PAUSE_SECS: u64 = 5;

/// The connection id of parallel worker `i` (shown by SHOW PROCESSLIST).
fn worker_connection_id(i: usize) -> u32 {
    u32::MAX - 3 - i as u32
}

/// The thread: the applier, or with `replica_parallel_workers` (read at
/// START REPLICA) the coordinator of that many workers.
pub fn run(shared: &Arc<Shared>, ch: &Arc<Channel>) {
    let workers = shared.sysvars.global("replica_parallel_workers").and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    let mut a = match Applier::new(shared, ch, APPLIER_CONNECTION_ID) {
        Ok(a) => a,
        Err(e) => {
            fail(ch, e.code.into(), e.message);
            return;
        }
    };
    a.s.process.set_state("Replica has read all relay log; waiting for more updates");
    let r = if workers == 0 {
        a.run(None)
    } else {
        let order = Arc::new(Order::new(Arc::clone(ch)));
        std::thread::scope(|scope| {
            for i in 0..workers {
                let mine = Arc::clone(&order);
                let spawned =
                    std::thread::Builder::new().name(format!("replica-worker-{i}")).spawn_scoped(scope, move || {
                        match Applier::new(shared, ch, worker_connection_id(i)) {
                            Ok(mut w) => {
                                w.order = Some(Arc::clone(&mine));
                                parallel::work(w, &mine);
                            }
                            Err(e) => mine.fail(0, e),
                        }
                    });
                if let Err(e) = spawned {
                    order.fail(0, SqlError::internal(format!("cannot start a replica worker thread: {e}")));
                }
            }
            let mut d = Dispatcher::new(Arc::clone(&order), workers);
            let r = a.run(Some(&mut d));
            d.stop();
            r
        })
    };
    let _ = a.s.rollback();
    if let Err(e) = r {
        fail(ch, e.code.into(), e.message);
    }
    let mut p = ch.progress.lock();
    p.sql_running = false;
    p.sql_state_text = "";
    p.applying_ts = None;
}

fn fail(ch: &Channel, code: u32, msg: String) {
    tracing::error!("replica applier stopped: error {code}: {msg}");
    let mut p = ch.progress.lock();
    p.last_sql = (code, msg, super::timestamp_text());
    p.sql_running = false;
}

impl<'a> Applier<'a> {
    /// An applier session (the module doc's settings), reading from the
    /// applied position.
    fn new(shared: &Arc<Shared>, ch: &'a Channel, connection_id: u32) -> Result<Applier<'a>> {
        let mut s = Session::new(shared.clone(), SYSTEM_USER, None, connection_id)?;
        s.replica_applier = true;
        s.client_found_rows = true;
        let log_updates = shared.sysvars.global("log_replica_updates").and_then(|v| v.as_bool()).unwrap_or(true);
        let setup = [
            "SET time_zone='+00:00'",
            "SET sql_mode='NO_AUTO_VALUE_ON_ZERO'",
            "SET foreign_key_checks=0",
            "SET autocommit=1",
            if log_updates { "SET sql_log_bin=1" } else { "SET sql_log_bin=0" },
        ];
        for q in setup {
            if let Some((Err(e), _)) = s.query(q, false).into_iter().next() {
                return Err(e);
            }
        }
        let (file, pos, source_file) = {
            let p = ch.progress.lock();
            (p.relay_end.0, 4, p.applied.source.file.clone())
        };
        Ok(Applier {
            ch,
            s,
            keep_gtids: log_updates && shared.binlog.get().is_some(),
            file,
            pos,
            reader: None,
            checksum: Checksum::Crc32,
            source_file,
            maps: HashMap::new(),
            tables: Tables::default(),
            in_trx: false,
            group_start: None,
            retries: 0,
            order: None,
            job: 0,
            job_seq: 0,
            generation: 0,
        })
    }

    /// Reads the relay log and applies it (`par`: hands transactions to
    /// the parallel workers instead) until STOP or an error.
    fn run(&mut self, mut par: Option<&mut Dispatcher>) -> Result<()> {
        loop {
            if let Some(d) = par.as_deref() {
                d.check()?;
            }
            if self.ch.stopping() {
                return Ok(());
            }
            let (end_file, end_pos) = self.ch.progress.lock().relay_end;
            let limit = if self.file < end_file {
                self.file_len()?
            } else if self.file == end_file {
                end_pos
            } else {
                0
            };
            if self.pos >= limit {
                if self.file < end_file {
                    // Finished with this file (the receiver moved on).
                    self.file += 1;
                    self.pos = 4;
                    self.reader = None;
                    // A transaction still open may be read again from
                    // its start (invariant 4): its file stays.
                    let keep = self.group_start.as_ref().map_or(self.file, |g| g.file.min(self.file));
                    self.ch.progress.lock().applier_file = keep;
                    continue;
                }
                let idle = !self.in_trx && par.as_deref().is_none_or(Dispatcher::idle);
                let mut p = self.ch.progress.lock();
                if p.relay_end == (end_file, end_pos) && !self.ch.stopping() {
                    if idle {
                        p.applying_ts = None;
                    }
                    self.ch.changed.wait_for(&mut p, IDLE_WAIT);
                }
                continue;
            }
            let ev = self.read_event(limit)?;
            let end = self.pos + ev.len() as u64;
            if !self.wait_for_delay(&ev) {
                return Ok(()); // STOP REPLICA while waiting
            }
            let applied = match par.as_deref_mut() {
                None => self.apply(&ev, end),
                Some(d) => d.route(self, ev, end),
            };
            match applied {
                Ok(()) => self.pos = end,
                Err(e) => self.read_again(e)?,
            }
        }
    }

    /// SOURCE_DELAY (MySQL's `sql_delay_event`): a transaction from the
    /// source (its GTID event) waits until `SOURCE_DELAY` seconds after its
    /// commit on the source (the event's immediate commit timestamp, else
    /// its header's corrected by the clock difference the receiver
    /// measured, as MySQL 5.7's) before it is applied or handed to a
    /// worker; later events of the transaction are not delayed. `false`:
    /// STOP REPLICA came meanwhile (the event is read again at the next
    /// start).
    fn wait_for_delay(&self, ev: &[u8]) -> bool {
        let delay = i64::from(self.ch.config.sql_delay);
        if delay == 0 || ev.len() < HEADER_LEN || !matches!(ev[4], kind::GTID | kind::ANONYMOUS_GTID) {
            return true;
        }
        let Ok(h) = decode::header(ev) else { return true };
        if h.server_id == self.ch.server_id {
            return true;
        }
        let now_us =
            || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
        let until_us = {
            let mut p = self.ch.progress.lock();
            // MySQL 8.0's: the immediate commit timestamp rounded up to a
            // second, as it is; the header's (whole seconds) corrected by
            // the clock difference, as MySQL 5.7's.
            let committed_us = match quire_binlog::event::immediate_commit_us(self.body(ev)) {
                Some(us) if us > 0 => (us as i64 + 999_999) / 1_000_000 * 1_000_000,
                _ => (i64::from(h.timestamp) + p.clock_diff_secs) * 1_000_000,
            };
            let until_us = committed_us + delay * 1_000_000;
            if now_us() >= until_us {
                return true;
            }
            p.delay_until = Some((until_us + 999_999) / 1_000_000);
            p.sql_state_text = "Waiting until SOURCE_DELAY seconds after source executed event";
            // Seconds_Behind_Source counts from this transaction meanwhile.
            p.applying_ts.get_or_insert(h.timestamp);
            until_us
        };
        while !self.ch.stopping() {
            let left = until_us - now_us();
            if left <= 0 {
                break;
            }
            self.ch.sleep(Duration::from_micros(left.min(1_000_000) as u64));
        }
        let mut p = self.ch.progress.lock();
        p.delay_until = None;
        p.sql_state_text = "Replica has read all relay log; waiting for more updates";
        !self.ch.stopping()
    }

    /// A worker applies job `job` (`parallel.rs`): every event but the
    /// last, then, at its turn, the last (XID or COMMIT), which commits.
    pub(super) fn run_job(&mut self, job: &Job, order: &Order) -> Result<()> {
        self.file = job.relay_file;
        self.source_file.clone_from(&job.source_file);
        self.checksum = job.checksum;
        self.job = job.n;
        self.job_seq = job.sequence();
        self.retries = 0;
        if self.generation != job.generation {
            self.close_prepared();
            self.generation = job.generation;
        }
        let Some(((last, last_end), body)) = job.events.split_last() else { return Ok(()) };
        let mut may_yield = true;
        loop {
            if let Err(e) = body.iter().try_for_each(|(ev, end)| self.apply(ev, *end)) {
                // Invariant 4: the job's events again.
                self.pause_to_retry(e)?;
                continue;
            }
            self.s.process.set_state("Waiting for preceding transaction to commit");
            let turn = order.turn(job.n, may_yield);
            self.s.process.set_state("Applying batch of row changes");
            match turn {
                Turn::Mine => break,
                Turn::Stop => return self.abandon(),
                Turn::Yield => {
                    // parallel.rs invariant 3: again, once it is our turn.
                    self.abandon()?;
                    self.s.process.set_state("Waiting for preceding transaction to commit");
                    let turn = order.turn(job.n, false);
                    self.s.process.set_state("Applying batch of row changes");
                    if !matches!(turn, Turn::Mine) {
                        return Ok(());
                    }
                    may_yield = false;
                }
            }
        }
        self.apply(last, *last_end)
    }

    /// Rolls back what a worker applied of its job.
    pub(super) fn abandon(&mut self) -> Result<()> {
        self.s.rollback()?;
        self.reset_gtid_next()?;
        self.in_trx = false;
        self.group_start = None;
        self.maps.clear();
        Ok(())
    }

    /// After `e` in a transaction the applier read itself (invariant 4):
    /// rolls it back and reads it again from its first event, or returns
    /// `e`.
    fn read_again(&mut self, e: SqlError) -> Result<()> {
        let Some(g) = self.group_start.clone().filter(|_| self.in_trx) else { return Err(e) };
        self.pause_to_retry(e)?;
        self.file = g.file;
        self.pos = g.pos;
        self.source_file = g.source_file;
        self.checksum = g.checksum;
        Ok(())
    }

    /// `e` back unless it is a lock wait timeout or a deadlock and
    /// `replica_transaction_retries` allows another try; then the
    /// transaction is rolled back and the thread pauses (invariant 4).
    fn pause_to_retry(&mut self, e: SqlError) -> Result<()> {
        if !matches!(e.code, 1205 | 1213) {
            return Err(e);
        }
        let max = self.s.shared.sysvars.global("replica_transaction_retries").and_then(|v| v.as_u64()).unwrap_or(10);
        if self.retries >= max {
            if self.retries == 0 {
                return Err(e);
            }
            return Err(SqlError::new(
                e.code,
                e.state,
                format!(
                    "Replica SQL thread retried transaction {} time(s) in vain, giving up. Consider raising the value \
                     of the replica_transaction_retries variable. Last error: {}",
                    self.retries, e.message
                ),
            ));
        }
        self.abandon()?;
        self.retries += 1;
        self.s.shared.stats.replica_retried_transactions.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!("replica applier: retrying a transaction (try {} of {max}): {}", self.retries, e.message);
        let deadline = std::time::Instant::now() + Duration::from_secs(self.retries.min(MAX_RETRY_PAUSE_SECS));
        while !self.ch.stopping() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            self.ch.sleep(left);
        }
        Ok(())
    }

    /// Where the transaction that event `ev` (ending at `end`) opens
    /// starts (invariant 4).
    fn note_group_start(&mut self, ev: &[u8], end: u64) {
        self.group_start = Some(GroupStart {
            file: self.file,
            pos: end - ev.len() as u64,
            source_file: self.source_file.clone(),
            checksum: self.checksum,
        });
    }

    fn open(&mut self) -> Result<&mut RelayReader> {
        if self.reader.as_ref().is_none_or(|r| r.file_no != self.file) {
            let path = relay::path_of(&self.ch.relay_dir, &self.ch.relay_base, self.file);
            let f = File::open(&path)
                .map_err(|e| relay_error(format!("cannot open relay log '{}': {e}", path.display())))?;
            self.reader = Some(RelayReader::new(self.file, f));
        }
        Ok(self.reader.as_mut().expect("opened above"))
    }

    fn file_len(&mut self) -> Result<u64> {
        let r = self.open()?;
        r.file.metadata().map(|m| m.len()).map_err(|e| relay_error(e.to_string()))
    }

    /// The event at the reading position (whole, within `limit`).
    fn read_event(&mut self, limit: u64) -> Result<Vec<u8>> {
        let pos = self.pos;
        self.open()?.event(pos, limit)
    }

    pub(super) fn body<'e>(&self, ev: &'e [u8]) -> &'e [u8] {
        let crc = if self.checksum == Checksum::Crc32 || ev[4] == kind::FORMAT_DESCRIPTION { 4 } else { 0 };
        &ev[HEADER_LEN..ev.len().saturating_sub(crc).max(HEADER_LEN)]
    }

    /// Applies one event; `end` is the relay offset just past it.
    pub(super) fn apply(&mut self, ev: &[u8], end: u64) -> Result<()> {
        let h = decode::header(ev).map_err(|e| relay_error(e.0))?;
        let body = self.body(ev);
        let bad = |e: decode::DecodeError| relay_error(format!("a malformed event in the relay log: {e}"));
        match h.type_code {
            kind::FORMAT_DESCRIPTION => {
                self.checksum = decode::fde_checksum(ev).map_err(bad)?;
            }
            kind::ROTATE => {
                let (pos, name) = decode::rotate(body).map_err(bad)?;
                if h.server_id != self.ch.server_id {
                    if h.flags & FLAG_ARTIFICIAL != 0 && self.in_trx {
                        // A new connection resends the transaction whole
                        // (receiver invariant 2).
                        self.abandon()?;
                    }
                    self.source_file = name;
                    if !self.in_trx {
                        self.note_position(end, pos);
                    }
                }
            }
            kind::ANONYMOUS_GTID | kind::GTID => {
                self.note_group_start(ev, end);
                if self.order.is_none() {
                    self.ch.progress.lock().applying_ts = Some(h.timestamp);
                }
                if self.keep_gtids {
                    self.set_gtid_next(h.type_code, body, h.next_pos)?;
                }
            }
            kind::QUERY => {
                let q = decode::query(body).map_err(bad)?;
                if self.order.is_none() {
                    self.ch.progress.lock().applying_ts = Some(h.timestamp);
                }
                if q.sql.eq_ignore_ascii_case("BEGIN") {
                    if self.group_start.is_none() {
                        self.note_group_start(ev, end);
                    }
                    self.s.start_transaction(&[], false)?;
                    self.in_trx = true;
                } else if q.sql.eq_ignore_ascii_case("COMMIT") {
                    self.commit(end, h.next_pos)?;
                } else {
                    self.ddl(&q, end, h.next_pos)?;
                }
            }
            kind::TABLE_MAP => {
                let m = decode::table_map(body).map_err(bad)?;
                self.maps.insert(m.table_id, Arc::new(m));
            }
            kind::WRITE_ROWS | kind::UPDATE_ROWS | kind::DELETE_ROWS => {
                self.rows(h.type_code, body, h.next_pos)?;
            }
            kind::XID => self.commit(end, h.next_pos)?,
            _ => {
                // PREVIOUS_GTIDS, STOP, ROWS_QUERY, ...: nothing to apply.
                if !self.in_trx && h.next_pos != 0 && h.server_id != self.ch.server_id {
                    self.note_position(end, u64::from(h.next_pos));
                }
            }
        }
        Ok(())
    }

    /// The applied position moves without a transaction (SHOW REPLICA
    /// STATUS; stored with the next transaction).
    fn note_position(&mut self, relay_end: u64, source_pos: u64) {
        let mut p = self.ch.progress.lock();
        p.applied = AppliedPos {
            relay_file: relay::name_of(&self.ch.relay_base, self.file),
            relay_pos: relay_end,
            source: info::SourcePos { file: self.source_file.clone(), pos: source_pos },
        };
    }

    fn position(&self, relay_end: u64, next_pos: u32) -> AppliedPos {
        AppliedPos {
            relay_file: relay::name_of(&self.ch.relay_base, self.file),
            relay_pos: relay_end,
            source: info::SourcePos { file: self.source_file.clone(), pos: u64::from(next_pos) },
        }
    }

    fn run_sql(&mut self, sql: &str) -> Result<Outcome> {
        let mut r = self.s.query(sql, false);
        match r.pop() {
            Some((Ok(crate::Output::Rows { rows, .. }), _)) => Ok(Outcome::Rows(rows.len() as u64)),
            Some((Ok(crate::Output::Ok { affected, last_insert_id, info }), _)) => {
                Ok(Outcome::Ok { affected, last_insert_id, info })
            }
            Some((Err(e), _)) => Err(e),
            None => Ok(Outcome::Rows(0)),
        }
    }

    /// `gtid_next` for the transaction a GTID or ANONYMOUS_GTID event
    /// opens; reset to AUTOMATIC by the transaction's end.
    fn set_gtid_next(&mut self, type_code: u8, body: &[u8], next_pos: u32) -> Result<()> {
        let next = if type_code == kind::GTID {
            let g =
                quire_binlog::event::gtid_of(body).ok_or_else(|| relay_error("a GTID event without a GTID".into()))?;
            g.to_string()
        } else {
            "ANONYMOUS".to_string()
        };
        let v = crate::sysvars::VarValue::Str(next);
        let v = self.s.check_gtid_next(&v).map_err(|e| {
            if e.code == 1782 {
                SqlError::new(
                    1783,
                    "HY000",
                    format!(
                        "Cannot replicate anonymous transaction when @@GLOBAL.GTID_MODE = ON, at file {}, position {}.",
                        self.source_file, next_pos
                    ),
                )
            } else {
                e
            }
        })?;
        self.s.vars.set_by_name("gtid_next", &v).map_err(|e| SqlError::new(e.code, e.state, e.message))
    }

    /// Back to `gtid_next` = AUTOMATIC after a transaction.
    fn reset_gtid_next(&mut self) -> Result<()> {
        if self.keep_gtids {
            let v = crate::sysvars::VarValue::Str("AUTOMATIC".into());
            self.s.vars.set_by_name("gtid_next", &v).map_err(|e| SqlError::new(e.code, e.state, e.message))?;
        }
        Ok(())
    }

    /// XID: the position in the transaction (invariant 1), then COMMIT
    /// (a worker's passes the turn once in memory: `parallel.rs`).
    fn commit(&mut self, relay_end: u64, next_pos: u32) -> Result<()> {
        let p = self.position(relay_end, next_pos);
        let engine = self.s.shared.engine.clone();
        let delay = self.ch.config.sql_delay;
        self.s.in_trx(|trx, _| info::save_position_tx(&engine, trx, &p, delay))?;
        match self.order.clone() {
            Some(order) => {
                let (n, seq) = (self.job, self.job_seq);
                self.s.commit_then(Box::new(move || order.committed(n, seq, p)))?;
            }
            None => {
                self.s.commit()?;
                let mut g = self.ch.progress.lock();
                g.applied = p;
                g.applying_ts = None;
            }
        }
        self.reset_gtid_next()?;
        self.in_trx = false;
        self.group_start = None;
        self.retries = 0;
        self.maps.clear();
        Ok(())
    }

    /// A DDL statement in its database, then the position (invariant 3).
    fn ddl(&mut self, q: &decode::Query, relay_end: u64, next_pos: u32) -> Result<()> {
        if self.in_trx {
            // The source logs DDL outside transactions; commit what came.
            self.s.commit()?;
            self.in_trx = false;
        }
        // Not transactional: never read again (invariant 4).
        self.group_start = None;
        let db = (!q.db.is_empty() && self.s.shared.catalog.database_exists(&q.db)).then(|| q.db.clone());
        self.s.db = db;
        let r = self.run_sql(&q.sql);
        self.s.db = None;
        self.reset_gtid_next()?;
        if let Err(e) = r {
            return Err(SqlError::new(
                e.code,
                e.state,
                format!("Error '{}' on query. Default database: '{}'. Query: '{}'", e.message, q.db, q.sql),
            ));
        }
        // Tables may have changed: statements are prepared again.
        self.close_prepared();
        let p = self.position(relay_end, next_pos);
        let engine = self.s.shared.engine.clone();
        let delay = self.ch.config.sql_delay;
        self.s.in_trx(|trx, _| info::save_position_tx(&engine, trx, &p, delay))?;
        self.s.commit()?;
        let mut g = self.ch.progress.lock();
        g.applied = p;
        g.applying_ts = None;
        Ok(())
    }

    fn close_prepared(&mut self) {
        self.tables.clear(&mut self.s);
    }

    /// One ROWS event.
    fn rows(&mut self, type_code: u8, body: &[u8], next_pos: u32) -> Result<()> {
        let tid = decode::rows_table_id(body).map_err(|e| relay_error(e.0))?;
        let map = self
            .maps
            .get(&tid)
            .cloned()
            .ok_or_else(|| relay_error(format!("a ROWS event for table id {tid} without its TABLE_MAP")))?;
        let op = match type_code {
            kind::WRITE_ROWS => Op::Write,
            kind::UPDATE_ROWS => Op::Update,
            _ => Op::Delete,
        };
        let ctx = |e: SqlError| {
            SqlError::new(
                e.code,
                e.state,
                format!(
                    "Could not execute {} event on table {}.{}; {}, Error_code: {}; the event's source log {}, end_log_pos {}",
                    op.event_name(),
                    map.db,
                    map.table,
                    e.message,
                    e.code,
                    self.source_file,
                    next_pos
                ),
            )
        };
        if !self.in_trx {
            // Rows outside BEGIN (not written by quire or MySQL 8.0):
            // their own transaction, committed at XID.
            self.s.start_transaction(&[], false).map_err(ctx)?;
            self.in_trx = true;
        }
        let info = self.tables.get(&mut self.s, &map).map_err(ctx)?;
        let ev = decode::rows(type_code, body, &map, &info.columns)
            .map_err(|e| ctx(SqlError::new(1677, "HY000", format!("Column conversion failed: {e}"))))?;
        for change in &ev.rows {
            info.apply_row(&mut self.s, &map, op, change).map_err(ctx)?;
        }
        Ok(())
    }
}

/// ER_REPLICA_RELAY_LOG_READ_FAILURE.
pub(super) fn relay_error(msg: String) -> SqlError {
    SqlError::new(1594, "HY000", format!("Relay log read failure: {msg}"))
}
