//! quire as a replica (MySQL 8.0's default channel): CHANGE REPLICATION
//! SOURCE, START / STOP / RESET REPLICA, SHOW REPLICA STATUS
//! (`stmt.rs`), a receiver thread that fetches the source's binary log
//! into the relay log (`receiver.rs`, with its client `client.rs`) and an
//! applier thread that applies it (`applier.rs`); the durable state lives
//! in engine tables (`info.rs`).
//!
//! ```text
//!  source ──COM_BINLOG_DUMP──▶ receiver ──append, fdatasync──▶ relay log
//!                                 │ publishes the synced end       │
//!                                 ▼                                ▼
//!                            [Channel: progress, condvar] ◀── applier ──▶ engine
//!                                                         rows + position in one trx
//! ```
//!
//! Thread states (`Progress::io` / `Progress::sql`):
//!
//! | from        | event                         | to          | by                      |
//! |-------------|-------------------------------|-------------|-------------------------|
//! | Off         | START REPLICA, server start    | Connecting  | [`Replication::start`]  |
//! | Connecting  | dump requested                | Running     | receiver                |
//! | Running     | connection lost, bad event    | Connecting  | receiver (retry)        |
//! | any         | STOP REPLICA, shutdown        | Off         | [`Replication::stop`]   |
//! | applier on  | apply error                   | Off         | applier (Last_SQL_Error)|
//!
//! Invariants:
//! 1. Every START begins with an empty relay log and fetches from the
//!    applier's stored source position (MySQL's `relay_log_recovery`), so
//!    what the relay log held and was not applied is fetched again and
//!    nothing applied is fetched twice (`info.rs` invariant 1).
//! 2. The applier reads only up to the relay log's synced end
//!    (`Progress::relay_end`).
//! 3. At most one receiver and one applier run; `Replication::threads`
//!    serialises START / STOP / CHANGE / RESET.

pub mod applier;
pub mod client;
pub mod info;
mod parallel;
pub mod receiver;
mod relay_reader;
mod row_apply;
pub mod stmt;

use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::{Condvar, Mutex};

use crate::error::{Result, SqlError};
use crate::session::Shared;
use info::{AppliedPos, SourceConfig, SourcePos};

/// The receiver's state (Replica_IO_Running).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoState {
    Off,
    Connecting,
    Running,
}

/// What both threads report (SHOW REPLICA STATUS) and the relay log's
/// published end.
#[derive(Clone, Debug)]
pub struct Progress {
    pub io: IoState,
    pub io_state_text: &'static str,
    pub sql_running: bool,
    pub sql_state_text: &'static str,
    /// The source position received (Source_Log_File, Read_Source_Log_Pos).
    pub read: SourcePos,
    /// The relay log's synced end: (file number, offset) (invariant 2).
    pub relay_end: (u32, u64),
    /// The applier's position (Relay_Log_File/Pos, Exec_Source_Log_Pos).
    pub applied: AppliedPos,
    /// The relay file number the applier reads (older ones may go).
    pub applier_file: u32,
    /// The source's commit time (its clock, seconds) of the transaction
    /// being applied; `None` when the applier waits.
    pub applying_ts: Option<u32>,
    /// While the applier waits for SOURCE_DELAY: when it may go on
    /// (this server's clock, seconds).
    pub delay_until: Option<i64>,
    /// The replica's clock minus the source's, seconds (at connect).
    pub clock_diff_secs: i64,
    pub source_server_id: u32,
    pub last_io: (u32, String, String),
    pub last_sql: (u32, String, String),
    /// The GTIDs of the whole transactions received since START
    /// (Retrieved_Gtid_Set).
    pub retrieved: quire_binlog::GtidSet,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            io: IoState::Off,
            io_state_text: "",
            sql_running: false,
            sql_state_text: "",
            read: SourcePos::start(),
            relay_end: (0, 0),
            applied: AppliedPos::default(),
            applier_file: 0,
            applying_ts: None,
            delay_until: None,
            clock_diff_secs: 0,
            source_server_id: 0,
            last_io: (0, String::new(), String::new()),
            last_sql: (0, String::new(), String::new()),
            retrieved: quire_binlog::GtidSet::new(),
        }
    }
}

/// The state the threads of one START share.
pub struct Channel {
    pub config: SourceConfig,
    /// Where the relay log lives: (directory, basename).
    pub relay_dir: std::path::PathBuf,
    pub relay_base: String,
    pub server_id: u32,
    /// `replica_net_timeout` at START: no byte from the source for this
    /// long and the receiver reconnects.
    pub net_timeout: Duration,
    pub stop: AtomicBool,
    pub progress: Mutex<Progress>,
    /// Signalled when the relay end moves or a stop is asked.
    pub changed: Condvar,
    /// The receiver's socket, to interrupt a blocking read at STOP.
    pub socket: Mutex<Option<TcpStream>>,
    /// This server's binary log: with SOURCE_AUTO_POSITION its
    /// `gtid_executed` is what the dump request says the replica holds.
    pub binlog: Option<Arc<crate::binlog::Binlog>>,
}

impl Channel {
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Sleeps up to `d`, waking early for a stop.
    pub fn sleep(&self, d: Duration) {
        let mut g = self.progress.lock();
        if !self.stopping() {
            self.changed.wait_for(&mut g, d);
        }
    }

    pub fn io_error(&self, code: u32, msg: String) {
        tracing::warn!("replica receiver: error {code}: {msg}");
        self.progress.lock().last_io = (code, msg, timestamp_text());
    }
}

/// `YYMMDD HH:MM:SS`, as MySQL shows error timestamps.
pub fn timestamp_text() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    match quire_engine::row::tz::from_unix_seconds(secs, 0) {
        Some(dt) => format!(
            "{:02}{:02}{:02} {:02}:{:02}:{:02}",
            dt.date.year % 100,
            dt.date.month,
            dt.date.day,
            dt.hour,
            dt.minute,
            dt.second
        ),
        None => String::new(),
    }
}

pub fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The running threads.
#[derive(Default)]
struct Threads {
    channel: Option<Arc<Channel>>,
    receiver: Option<JoinHandle<()>>,
    applier: Option<JoinHandle<()>>,
}

/// The replica's controller, one per server (`Shared::replica`).
#[derive(Default)]
pub struct Replication {
    threads: Mutex<Threads>,
    /// The last channel's progress, kept after STOP for SHOW REPLICA STATUS.
    last: Mutex<Option<Arc<Channel>>>,
}

/// This server's `gtid_mode` (OFF without a binary log: quire keeps
/// GTIDs only in the log).
pub fn gtid_mode(shared: &Shared) -> quire_binlog::GtidMode {
    shared.binlog.get().map_or(quire_binlog::GtidMode::Off, |b| b.log.gtid_mode())
}

/// The checks of START REPLICA with SOURCE_AUTO_POSITION = 1: the GTIDs
/// this server holds must be known and kept, which in quire means a
/// binary log with GTIDs that also records the applied transactions.
fn check_auto_position(shared: &Shared) -> Result<()> {
    if gtid_mode(shared) == quire_binlog::GtidMode::Off {
        return Err(SqlError::new(
            13117,
            "HY000",
            "The replication receiver thread cannot start in AUTO_POSITION mode: this server uses \
             @@GLOBAL.GTID_MODE = OFF."
                .to_string(),
        ));
    }
    if !shared.sysvars.global("log_replica_updates").and_then(|v| v.as_bool()).unwrap_or(true) {
        return Err(SqlError::unsupported(
            "SOURCE_AUTO_POSITION = 1 with log_replica_updates = OFF (quire keeps the GTIDs it applied only in its binary log)",
        ));
    }
    Ok(())
}

/// Whether the replica is configured with SOURCE_AUTO_POSITION = 1.
pub fn auto_positioned(engine: &quire_engine::Engine) -> bool {
    info::create_tables(engine).is_ok() && info::load_config(engine).ok().flatten().is_some_and(|c| c.auto_position)
}

/// 1200 ER_REPLICA_CONFIGURATION.
fn not_configured() -> SqlError {
    SqlError::new(
        1200,
        "HY000",
        "The server is not configured as replica; fix in config file or with CHANGE REPLICATION SOURCE TO".to_string(),
    )
}

/// The relay log's directory and basename: `relay_log` (default
/// `quire-relay-bin` in the datadir; a relative path is in the datadir).
pub fn relay_location(shared: &Shared) -> (std::path::PathBuf, String) {
    let datadir = shared.engine.config().datadir.clone();
    let v = match shared.sysvars.global("relay_log") {
        Some(crate::sysvars::VarValue::Str(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => "quire-relay-bin".to_string(),
    };
    let p = std::path::Path::new(&v);
    let p = if p.is_absolute() { p.to_path_buf() } else { datadir.join(p) };
    let base = p.file_name().map_or_else(|| "quire-relay-bin".to_string(), |f| f.to_string_lossy().to_string());
    let base = base.split('.').next().unwrap_or(&base).to_string();
    (p.parent().map_or(datadir, std::path::Path::to_path_buf), base)
}

impl Replication {
    /// Whether either thread runs.
    pub fn running(&self) -> bool {
        let t = self.threads.lock();
        t.receiver.as_ref().is_some_and(|h| !h.is_finished()) || t.applier.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// The channel SHOW REPLICA STATUS reports: the running one, else the
    /// last one.
    pub fn channel(&self) -> Option<Arc<Channel>> {
        self.threads.lock().channel.clone().or_else(|| self.last.lock().clone())
    }

    /// START REPLICA (and the start at server start): `Ok(false)` if the
    /// threads already ran.
    pub fn start(&self, shared: &Arc<Shared>) -> Result<bool> {
        let mut t = self.threads.lock();
        let alive = |h: &Option<JoinHandle<()>>| h.as_ref().is_some_and(|h| !h.is_finished());
        if alive(&t.receiver) && alive(&t.applier) {
            return Ok(false);
        }
        // One thread stopped alone (an apply error): both restart.
        Self::stop_locked(&mut t);
        let config = info::load_config(&shared.engine)?.filter(|c| !c.host.is_empty()).ok_or_else(not_configured)?;
        if config.auto_position {
            check_auto_position(shared)?;
        }
        let applied = info::load_position(&shared.engine)?.unwrap_or_default();
        let (relay_dir, relay_base) = relay_location(shared);
        let server_id = shared.sysvars.global("server_id").and_then(|v| v.as_u64()).unwrap_or(1) as u32;
        let net_timeout =
            Duration::from_secs(shared.sysvars.global("replica_net_timeout").and_then(|v| v.as_u64()).unwrap_or(60));
        let mut progress = Progress { read: applied.source.clone(), applied: applied.clone(), ..Progress::default() };
        if progress.read.file.is_empty() && progress.read.pos == 0 {
            progress.read = SourcePos::start();
        }
        progress.applied.source = progress.read.clone();
        progress.io = IoState::Connecting;
        progress.io_state_text = "Connecting to source";
        progress.sql_running = true;
        progress.sql_state_text = "Replica has read all relay log; waiting for more updates";
        // The previous run's errors stay shown until a thread starts.
        let ch = Arc::new(Channel {
            config,
            relay_dir,
            relay_base,
            server_id,
            net_timeout,
            stop: AtomicBool::new(false),
            progress: Mutex::new(progress),
            changed: Condvar::new(),
            socket: Mutex::new(None),
            binlog: shared.binlog.get().cloned(),
        });
        // Invariant 1: a new relay log, fetched from the applied position.
        let writer = receiver::open_relay(&ch)
            .map_err(|e| SqlError::new(1371, "HY000", format!("Failed purging old relay logs: {e}")))?;
        let rx = {
            let ch = ch.clone();
            std::thread::Builder::new()
                .name("replica-receiver".into())
                .spawn(move || receiver::run(&ch, writer))
                .map_err(|e| SqlError::internal(format!("cannot start the receiver thread: {e}")))?
        };
        let ap = {
            let ch = ch.clone();
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("replica-applier".into())
                .spawn(move || applier::run(&shared, &ch))
                .map_err(|e| SqlError::internal(format!("cannot start the applier thread: {e}")))?
        };
        t.channel = Some(ch.clone());
        t.receiver = Some(rx);
        t.applier = Some(ap);
        *self.last.lock() = Some(ch);
        Ok(true)
    }

    fn stop_locked(t: &mut Threads) -> bool {
        let Some(ch) = t.channel.take() else { return false };
        ch.stop.store(true, Ordering::Release);
        if let Some(s) = ch.socket.lock().take() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        {
            let _g = ch.progress.lock();
            ch.changed.notify_all();
        }
        let mut was = false;
        for h in [t.receiver.take(), t.applier.take()].into_iter().flatten() {
            was |= !h.is_finished();
            let _ = h.join();
        }
        let mut p = ch.progress.lock();
        p.io = IoState::Off;
        p.io_state_text = "";
        p.sql_running = false;
        p.sql_state_text = "";
        p.applying_ts = None;
        was
    }

    /// STOP REPLICA: `false` if nothing ran.
    pub fn stop(&self) -> bool {
        Self::stop_locked(&mut self.threads.lock())
    }

    /// Runs `f` with both threads stopped (CHANGE, RESET): 1198 if they run.
    pub fn while_stopped<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let mut t = self.threads.lock();
        let alive = |h: &Option<JoinHandle<()>>| h.as_ref().is_some_and(|h| !h.is_finished());
        if alive(&t.receiver) || alive(&t.applier) {
            return Err(SqlError::new(
                1198,
                "HY000",
                "This operation cannot be performed with a running replica; run STOP REPLICA first".to_string(),
            ));
        }
        Self::stop_locked(&mut t);
        f()
    }

    /// Forgets the last channel's status (RESET REPLICA).
    pub fn forget(&self) {
        *self.last.lock() = None;
    }
}

/// At server start: creates the tables, and starts replication when it is
/// configured, unless `skip_replica_start` (MySQL starts the replica
/// threads at startup whenever a source is configured).
pub fn start_at_boot(shared: &Arc<Shared>) {
    if let Err(e) = info::create_tables(&shared.engine) {
        tracing::warn!("creating mysql.slave_master_info and mysql.slave_relay_log_info: {}", e.message);
        return;
    }
    if shared.sysvars.global("skip_replica_start").and_then(|v| v.as_bool()).unwrap_or(false) {
        return;
    }
    match info::load_config(&shared.engine) {
        Ok(Some(c)) if !c.host.is_empty() => match shared.replica.start(shared) {
            Ok(_) => tracing::info!("replica started: source {}:{}", c.host, c.port),
            Err(e) => tracing::warn!("replica not started: {}", e.message),
        },
        Ok(_) => {}
        Err(e) => tracing::warn!("reading the replica configuration: {}", e.message),
    }
}
