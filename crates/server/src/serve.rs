//! `quire serve`: configuration → engine → catalog → listeners, until
//! SIGTERM / SIGINT or a SHUTDOWN statement; then a clean shutdown (every
//! dirty page written and a checkpoint taken, so the next start has
//! nothing to recover).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use quire_engine::log::FlushAtCommit;
use quire_engine::Engine;
use quire_io::{OsVfs, Vfs};
use quire_sql::catalog::Catalog;
use quire_sql::sysvars::VarValue;
use quire_sql::Shared;

use crate::backend::SqlBackend;
use crate::config::ServerConfig;
use crate::proto::listener::{Listener, ListenerHandle, ListenerOptions};

/// A running server.
pub struct Server {
    pub shared: Arc<Shared>,
    pub tcp_addr: Option<std::net::SocketAddr>,
    pub socket: Option<PathBuf>,
    listener: ListenerHandle,
    /// `pid_file`, written at start and removed at a clean shutdown.
    pid_file: Option<PathBuf>,
}

/// `pid_file`'s path: relative to the data directory, as MySQL's.
fn pid_file_path(cfg: &ServerConfig) -> Option<PathBuf> {
    match cfg.sysvars.global("pid_file") {
        Some(VarValue::Str(p)) if !p.trim().is_empty() => Some(cfg.datadir().join(p.trim())),
        _ => None,
    }
}

/// Pushes dynamic engine variables into the running engine.
fn hooks(cfg: &ServerConfig, engine: &Arc<Engine>) {
    let sv = &cfg.sysvars;
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_lock_wait_timeout",
        Box::new(move |v| {
            if let Some(s) = v.as_u64() {
                e.txn().lock_wait_timeout_ms.store(s.saturating_mul(1000), Ordering::Relaxed);
            }
        }),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_deadlock_detect",
        Box::new(move |v| {
            if let Some(b) = v.as_bool() {
                e.txn().locks.detect_deadlocks.store(b, Ordering::Relaxed);
            }
        }),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_max_purge_lag",
        Box::new(move |v| {
            if let Some(n) = v.as_u64() {
                e.txn().max_purge_lag.store(n, Ordering::Relaxed);
            }
        }),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_max_purge_lag_delay",
        Box::new(move |v| {
            if let Some(n) = v.as_u64() {
                e.txn().max_purge_lag_delay_us.store(n, Ordering::Relaxed);
            }
        }),
    );
    for name in [
        "innodb_io_capacity",
        "innodb_io_capacity_max",
        "innodb_max_dirty_pages_pct",
        "innodb_max_dirty_pages_pct_lwm",
        "innodb_adaptive_flushing",
        "innodb_adaptive_flushing_lwm",
    ] {
        let e = engine.clone();
        let _ = sv.on_change(
            name,
            Box::new(move |v| {
                let t = &e.pool().tuning;
                match name {
                    "innodb_io_capacity" => t.io_capacity.store(v.as_u64().unwrap_or(200).max(1), Ordering::Relaxed),
                    "innodb_io_capacity_max" => {
                        t.io_capacity_max.store(v.as_u64().unwrap_or(2000).max(1), Ordering::Relaxed)
                    }
                    "innodb_max_dirty_pages_pct" => t.set_max_dirty_pages_pct(v.as_f64().unwrap_or(90.0)),
                    "innodb_max_dirty_pages_pct_lwm" => t.set_max_dirty_pages_pct_lwm(v.as_f64().unwrap_or(0.0)),
                    "innodb_adaptive_flushing" => {
                        t.adaptive_flushing.store(v.as_bool().unwrap_or(true), Ordering::Relaxed)
                    }
                    _ => t.adaptive_flushing_lwm.store(v.as_u64().unwrap_or(10), Ordering::Relaxed),
                }
                e.pool().wake_page_cleaners();
            }),
        );
    }
    let e = engine.clone();
    if let Some(n) = sv.global("innodb_lru_scan_depth").and_then(|v| v.as_u64()) {
        e.pool().set_lru_scan_depth(n as usize);
    }
    let _ = sv.on_change(
        "innodb_lru_scan_depth",
        Box::new(move |v| {
            if let Some(n) = v.as_u64() {
                e.pool().set_lru_scan_depth(n as usize);
            }
        }),
    );
    for name in ["innodb_read_ahead_threshold", "innodb_random_read_ahead"] {
        let e = engine.clone();
        let _ = sv.on_change(
            name,
            Box::new(move |v| match name {
                "innodb_read_ahead_threshold" => e.pool().read_ahead.set_threshold(v.as_u64().unwrap_or(56) as u32),
                _ => e.pool().read_ahead.set_random(v.as_bool().unwrap_or(false)),
            }),
        );
    }
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_change_buffering",
        Box::new(move |v| {
            if let Some(m) = quire_engine::ibuf::Mode::from_name(&v.to_string()) {
                e.change_buffer().set_mode(m);
            }
        }),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_fast_shutdown",
        Box::new(move |v| {
            if let Some(m) = v.as_u64().and_then(quire_engine::ShutdownMode::from_u64) {
                e.set_shutdown_mode(m);
            }
        }),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_change_buffer_max_size",
        Box::new(move |v| e.change_buffer().set_max_size_pct(v.as_u64().unwrap_or(25) as u32)),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_adaptive_hash_index",
        Box::new(move |v| e.pool().adaptive_hash.set_enabled(v.as_bool().unwrap_or(false))),
    );
    let e = engine.clone();
    let _ = sv.on_change(
        "innodb_flush_log_at_trx_commit",
        Box::new(move |v| {
            if let Some(f) = v.as_u64().and_then(|n| FlushAtCommit::from_u8(n as u8)) {
                e.log().set_flush_at_commit(f);
            }
        }),
    );
    // Admission (`engine/txn/admission.rs`): startup values, then changes.
    for name in ["innodb_thread_concurrency", "innodb_concurrency_tickets"] {
        let gate = engine.txn().admission.clone();
        let apply = move |v: &VarValue| {
            let n = v.as_u64().unwrap_or(0).min(u64::from(u32::MAX)) as u32;
            match name {
                "innodb_thread_concurrency" => gate.set_limit(n),
                _ => gate.set_tickets(n),
            }
        };
        if let Some(v) = sv.global(name) {
            apply(&v);
        }
        let _ = sv.on_change(name, Box::new(move |v| apply(v)));
    }
    // Wait instruments (`engine/wait`, read through performance_schema):
    // both variables are read-only, so only their startup values count.
    quire_engine::wait::set_on(sv.global("performance_schema").and_then(|v| v.as_bool()).unwrap_or(true));
    if let Some(VarValue::Str(spec)) = sv.global("performance_schema_instrument") {
        for item in quire_engine::wait::configure(&spec) {
            tracing::warn!("performance_schema_instrument: cannot read '{item}' (want pattern=ON|OFF|COUNTED)");
        }
    }
}

impl Server {
    /// Opens the data directory (initialising it on first start: the
    /// catalog and user root, whose password is `root_password` or a
    /// generated one printed once) and starts listening.
    pub fn start(cfg: &ServerConfig, root_password: Option<&str>) -> Result<Server, Box<dyn std::error::Error>> {
        for w in &cfg.warnings {
            tracing::warn!("{w}");
        }
        let ecfg = cfg.engine_config()?;
        std::fs::create_dir_all(&ecfg.datadir)?;
        let vfs: Arc<dyn Vfs> = OsVfs::new();
        let engine = Engine::open(ecfg, vfs)?;
        let rb = engine.recovered_rollbacks();
        if rb > 0 {
            tracing::info!("rolled back {rb} transactions left active by a crash");
        }
        let (catalog, generated) = Catalog::open(engine.clone(), root_password).map_err(|e| e.message)?;
        if let Some(pw) = generated {
            println!("quire: initialised {}; user root's password is: {pw}", cfg.datadir().display());
        }
        hooks(cfg, &engine);
        let shared = Shared::new(engine, catalog, cfg.sysvars.clone());
        let backend = Arc::new(SqlBackend { shared: shared.clone() });
        let socket = cfg.socket();
        let addr = format!("{}:{}", cfg.bind_address(), cfg.port());
        let listener = Listener::bind_with_backlog(Some(&addr), socket.as_deref(), cfg.back_log())?;
        // The binary log (off unless `log_bin`): opened once the address
        // is ours (a start that fails to bind leaves no new file) and
        // before the first connection, so that no transaction commits
        // unlogged.
        if let Some(b) = quire_sql::binlog::open(&cfg.sysvars, &cfg.datadir(), &shared.engine)? {
            let _ = shared.binlog.set(b);
        }
        // The replica (`quire_sql::replica`): its tables, and its threads
        // when a source is configured, once the log is open (the applier
        // logs what it applies with log_replica_updates).
        quire_sql::replica::start_at_boot(&shared);
        // The event scheduler (`quire_sql::event`), once writes are logged.
        quire_sql::event::scheduler::start(&shared);
        let tcp_addr = listener.local_addr();
        let options = ListenerOptions {
            max_connections: cfg.max_connections(),
            thread_cache_size: cfg.thread_cache_size(),
            conn: crate::proto::ConnOptions { auth_plugin: cfg.auth_plugin() },
        };
        let pool = crate::thread_pool::start(cfg)?;
        if let Some(p) = pool.clone() {
            let _ = shared.thread_pool_rows.set(Box::new(move |t| crate::thread_pool::rows(&p, t)));
        }
        let listener = listener.spawn_with_pool(backend, options, pool.clone())?;
        let cache = listener.thread_cache();
        let _ = cfg.sysvars.on_change(
            "thread_cache_size",
            Box::new(move |v| {
                if let Some(n) = v.as_u64() {
                    cache.set_size(n as usize);
                }
            }),
        );
        let cache = listener.thread_cache();
        let _ = shared.server_status.set(Box::new(move || {
            let mut rows = vec![
                ("Threads_cached".to_string(), cache.cached().to_string()),
                ("Threads_created".to_string(), cache.created().to_string()),
            ];
            rows.extend(crate::thread_pool::status(pool.as_deref()));
            rows
        }));
        let max_connections = listener.max_connections();
        let _ = cfg.sysvars.on_change(
            "max_connections",
            Box::new(move |v| {
                if let Some(n) = v.as_u64() {
                    max_connections.store(n as usize, Ordering::Release);
                }
            }),
        );
        let pid_file = pid_file_path(cfg);
        if let Some(p) = &pid_file {
            std::fs::write(p, format!("{}\n", std::process::id()))
                .map_err(|e| format!("cannot write pid_file {}: {e}", p.display()))?;
        }
        tracing::info!("quire {} ready for connections on {:?}", quire_sql::VERSION, tcp_addr);
        Ok(Server { shared, tcp_addr, socket, listener, pid_file })
    }

    /// Stops accepting, then shuts the engine down cleanly. Open
    /// connections' transactions are rolled back as their sessions end;
    /// a session still running when the engine closes gets an error.
    pub fn shutdown(self) -> Result<(), Box<dyn std::error::Error>> {
        self.listener.stop();
        self.shared.events.stop(&self.shared);
        self.shared.replica.stop();
        if let Some(b) = self.shared.binlog.get() {
            b.log.close();
        }
        self.shared.engine.shutdown()?;
        if let Some(p) = &self.pid_file {
            let _ = std::fs::remove_file(p);
        }
        Ok(())
    }
}

/// Blocks SIGTERM and SIGINT in this thread (and the threads it starts
/// afterwards) and returns a thread that waits for them and raises `stop`.
pub fn watch_signals(stop: Arc<AtomicBool>) -> std::io::Result<()> {
    // SAFETY: plain libc calls on a local, initialised sigset.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        std::thread::Builder::new().name("signals".into()).spawn(move || loop {
            let mut sig = 0;
            // SAFETY: `set` is a valid sigset owned by this closure.
            if libc::sigwait(&set, &mut sig) == 0 {
                tracing::info!("signal {sig}: shutting down");
                stop.store(true, Ordering::Release);
                return;
            }
        })?;
    }
    Ok(())
}

/// Runs the server until a signal or SHUTDOWN asks it to stop.
pub fn run(cfg: &ServerConfig, root_password: Option<&str>) -> Result<(), Box<dyn std::error::Error>> {
    let signalled = Arc::new(AtomicBool::new(false));
    watch_signals(signalled.clone())?;
    let server = Server::start(cfg, root_password)?;
    while !signalled.load(Ordering::Acquire) && !server.shared.shutdown_requested() {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    server.shutdown()?;
    println!("quire: shut down cleanly");
    Ok(())
}
