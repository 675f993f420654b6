//! The built-in driver: sysbench's OLTP workloads over the MySQL protocol
//! with a lean client of its own (`wire`), server-side prepared
//! statements, and few OS threads: each worker thread runs an event loop
//! over its share of the client connections (client i on worker
//! i mod workers; four workers per CPU by default), one statement
//! outstanding per connection, as each sysbench thread has. So the driver
//! spends a few threads, not one per client, and a benchmark measures the
//! server, not the client (docs/BENCHMARKS.md, "quire bench's driver vs
//! sysbench").
//!
//! The driver runs in the process of `quire bench`, beside the embedded
//! quire when there is one. A process of its own would change nothing for
//! the CPU it gets: Linux schedules threads, not processes, and the
//! driver's few workers compete with the server's threads either way.
//! `--no-embedded --target` measures a server in its own process.
//!
//! A run, step by step:
//! 1. every worker connects its clients and prepares their statements;
//!    the first failure aborts the run with its message (nothing is
//!    measured);
//! 2. the clock starts when all are ready; every client runs events until
//!    the time is up or the `events` budget is spent;
//! 3. an event that hits a deadlock (1213) or lock wait timeout (1205) is
//!    rolled back, counted as an error and run again with new values
//!    (sysbench's `--mysql-ignore-errors=1213,1205`); any other error
//!    stops the run and is reported with its statement;
//! 4. every second the sampler folds the workers' slots into a [`Sample`].
//!
//! Submodules: `rand` (sysbench's distributions), `workload` (statements
//! and mixes), `wire` (the MySQL client), `session` (one client's
//! statements and events), `worker` (one thread's event loop), `stats`
//! (histograms, samples), `prepare` (the tables and their rows, through
//! the `mysql` crate: speed does not matter there).

pub mod prepare;
pub mod rand;
pub mod session;
pub mod stats;
pub mod wire;
pub mod worker;
pub mod workload;

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use stats::{Sample, Summary};
pub use workload::{Kind, Mix, StmtCounts, Workload};

use crate::error::{Error, Result};
use crate::target::TargetSpec;
use session::Session;
use stats::{Interval, Slot};
use wire::Conn;
use worker::{Client, Worker};

/// Default worker threads per CPU. The kernel shares a busy CPU per
/// thread, not per process: with one worker per CPU the driver got a
/// smaller share than sysbench's thread per client (and than the server's
/// threads) on a loaded 2-CPU machine, and fell behind sysbench at 4 to
/// 256 clients; with 4 per CPU it kept up (docs/BENCHMARKS.md).
pub const WORKERS_PER_CPU: usize = 4;

/// Stack of a worker thread: it only encodes and decodes packets.
const WORKER_STACK_BYTES: usize = 512 << 10;

/// One measurement point.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub workload: Workload,
    pub threads: u32,
    /// How long to run (zero: until the event budget is spent).
    pub duration: Duration,
    /// Total events over all threads (0: no limit), sysbench's `--events`.
    pub events: u64,
    pub tables: u32,
    pub table_size: u32,
    pub mix: Mix,
    /// Seeds the clients' random numbers (client i gets seed + i).
    pub seed: u64,
    /// Worker threads driving the clients (0: [`WORKERS_PER_CPU`] per
    /// CPU); never more than `threads`.
    pub workers: u32,
}

impl RunConfig {
    /// The worker threads this run uses.
    pub fn worker_count(&self) -> usize {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let w = if self.workers == 0 { cpus * WORKERS_PER_CPU } else { self.workers as usize };
        w.clamp(1, self.threads.max(1) as usize)
    }
}

/// What a point measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub samples: Vec<Sample>,
    pub summary: Summary,
    /// Statements of completed events, per kind.
    pub statements: StmtCounts,
}

/// Start gate states.
const WAIT: u8 = 0;
const GO: u8 = 1;
const ABORT: u8 = 2;

struct Shared {
    gate: AtomicU8,
    stop: AtomicBool,
    /// Events left to start; None without a budget (then no worker
    /// touches a shared counter per event).
    budget: Option<AtomicI64>,
    ready: AtomicUsize,
    finished: AtomicUsize,
    slots: Vec<Slot>,
}

/// Runs `cfg` against `spec`.
pub fn run(spec: &TargetSpec, cfg: &RunConfig) -> Result<RunResult> {
    if cfg.threads == 0 {
        return Err(Error::new("--threads must be at least 1"));
    }
    if cfg.duration.is_zero() && cfg.events == 0 {
        return Err(Error::new("a run needs a time limit or an event budget"));
    }
    let n = cfg.worker_count();
    let shared = Arc::new(Shared {
        gate: AtomicU8::new(WAIT),
        stop: AtomicBool::new(false),
        budget: (cfg.events > 0).then(|| AtomicI64::new(cfg.events as i64)),
        ready: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        slots: (0..n).map(|_| Slot::default()).collect(),
    });
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let (spec, cfg, mine) = (spec.clone(), cfg.clone(), shared.clone());
        let h = std::thread::Builder::new()
            .name(format!("bench-worker-{i}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || worker_thread(i, n, &spec, &cfg, &mine));
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.gate.store(ABORT, Ordering::Release);
                join_all(handles);
                return Err(Error::new(format!("cannot start worker thread {i}: {e}")));
            }
        }
    }
    // 1. Wait for every connection (or the first failure).
    while shared.ready.load(Ordering::Acquire) < n {
        if shared.finished.load(Ordering::Acquire) > 0 {
            shared.gate.store(ABORT, Ordering::Release);
            let errs = join_all(handles);
            return Err(errs.into_iter().next().unwrap_or_else(|| Error::new("a worker thread ended early")));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // 2. Go, and sample every second.
    let start = Instant::now();
    shared.gate.store(GO, Ordering::Release);
    let mut total = Interval::default();
    let mut samples = Vec::new();
    let mut tick = 1u32;
    let mut last = start;
    loop {
        let next = start + Duration::from_secs(u64::from(tick));
        let deadline = (!cfg.duration.is_zero()).then(|| start + cfg.duration);
        let now = Instant::now();
        if now >= next {
            let mut i = Interval::default();
            for s in &shared.slots {
                s.drain_into(&mut i);
            }
            samples.push(Sample::of(tick, &i, now.duration_since(last).as_secs_f64()));
            last = now;
            total.absorb(&i);
            tick += 1;
            continue;
        }
        if deadline.is_some_and(|d| now >= d) || shared.stop.load(Ordering::Acquire) {
            break;
        }
        if shared.finished.load(Ordering::Acquire) == n {
            break;
        }
        let wake = deadline.map_or(next, |d| d.min(next));
        std::thread::sleep(wake.saturating_duration_since(now).min(Duration::from_millis(20)));
    }
    shared.stop.store(true, Ordering::Release);
    let errors = join_all(handles);
    let seconds = start.elapsed().as_secs_f64();
    for s in &shared.slots {
        s.drain_into(&mut total);
    }
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    let statements = total.statements;
    Ok(RunResult { samples, summary: Summary::of(&total, seconds), statements })
}

fn join_all(handles: Vec<std::thread::JoinHandle<Result<()>>>) -> Vec<Error> {
    let mut errs = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => errs.push(e),
            Err(_) => errs.push(Error::new("a worker thread panicked")),
        }
    }
    errs
}

/// Tells the main thread this worker is done, however it ends.
struct Finished<'a>(&'a Shared);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.finished.fetch_add(1, Ordering::AcqRel);
    }
}

/// Worker `w` of `workers`: connects clients w, w + workers, ... and
/// drives them until the run ends.
fn worker_thread(w: usize, workers: usize, spec: &TargetSpec, cfg: &RunConfig, shared: &Shared) -> Result<()> {
    let _done = Finished(shared);
    let opts = spec.wire_options(true);
    let mut clients = Vec::new();
    for i in (w..cfg.threads as usize).step_by(workers) {
        if shared.gate.load(Ordering::Acquire) == ABORT {
            return Ok(());
        }
        let mut conn = Conn::connect(&opts).map_err(|e| spec.wire_connect_error(&e))?;
        let seed = cfg.seed.wrapping_add(i as u64);
        let session = Session::prepare(&mut conn, cfg.workload, cfg.mix, cfg.tables, cfg.table_size, seed)
            .map_err(|e| Error::new(format!("{}: cannot prepare '{}': {}", spec.name(), e.sql, e.error)))?;
        let (stream, deprecate_eof) = conn.into_parts();
        let client = Client::new(stream, deprecate_eof, session)
            .map_err(|e| Error::new(format!("{}: cannot make a socket non-blocking: {e}", spec.name())))?;
        clients.push(client);
    }
    let slot = &shared.slots[w];
    let mut worker = Worker::new(clients, shared, slot)
        .map_err(|e| Error::new(format!("cannot start the driver's event loop: {e}")))?;
    shared.ready.fetch_add(1, Ordering::AcqRel);
    loop {
        match shared.gate.load(Ordering::Acquire) {
            GO => break,
            ABORT => return Ok(()),
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    worker.run().map_err(|f| {
        Error::new(format!(
            "{} on {} at {} threads: '{}' failed: {}",
            cfg.workload.script(),
            spec.name(),
            cfg.threads,
            f.sql,
            f.error
        ))
    })
}
