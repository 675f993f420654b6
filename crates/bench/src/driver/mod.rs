//! The built-in driver: sysbench's OLTP workloads over the MySQL protocol
//! with the `mysql` crate, one connection per client thread (the pool is
//! sized to the thread count), server-side prepared statements.
//!
//! A run, step by step:
//! 1. every client thread connects and prepares its statements; the first
//!    failure aborts the run with its message (nothing is measured);
//! 2. the clock starts when all are ready; threads run events until the
//!    time is up or the `events` budget is spent;
//! 3. an event that hits a deadlock (1213) or lock wait timeout (1205) is
//!    rolled back, counted as an error and run again with new values
//!    (sysbench's `--mysql-ignore-errors=1213,1205`); any other error
//!    stops the run and is reported with its statement;
//! 4. every second the sampler folds the threads' slots into a [`Sample`].
//!
//! Submodules: `rand` (sysbench's distributions), `workload` (statements
//! and mixes), `client` (one connection), `stats` (histograms, samples),
//! `prepare` (the tables and their rows).

pub mod client;
pub mod prepare;
pub mod rand;
pub mod stats;
pub mod workload;

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use stats::{Sample, Summary};
pub use workload::{Kind, Mix, StmtCounts, Workload};

use crate::error::{Error, Result};
use crate::target::TargetSpec;
use client::{retryable, Client};
use stats::{Interval, Slot};

/// Stack of a client thread: it only encodes and decodes packets.
const CLIENT_STACK_BYTES: usize = 512 << 10;

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
    /// Seeds the threads' random numbers (thread i gets seed + i).
    pub seed: u64,
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
    /// Events left to start when there is a budget.
    budget: AtomicI64,
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
    let n = cfg.threads as usize;
    let shared = Arc::new(Shared {
        gate: AtomicU8::new(WAIT),
        stop: AtomicBool::new(false),
        budget: AtomicI64::new(if cfg.events == 0 { i64::MAX } else { cfg.events as i64 }),
        ready: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        slots: (0..n).map(|_| Slot::default()).collect(),
    });
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let (spec, cfg, mine) = (spec.clone(), cfg.clone(), shared.clone());
        let h = std::thread::Builder::new()
            .name(format!("bench-client-{i}"))
            .stack_size(CLIENT_STACK_BYTES)
            .spawn(move || client_thread(i, &spec, &cfg, &mine));
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.gate.store(ABORT, Ordering::Release);
                join_all(handles);
                return Err(Error::new(format!("cannot start client thread {i}: {e}")));
            }
        }
    }
    // 1. Wait for every connection (or the first failure).
    while shared.ready.load(Ordering::Acquire) < n {
        if shared.finished.load(Ordering::Acquire) > 0 {
            shared.gate.store(ABORT, Ordering::Release);
            let errs = join_all(handles);
            return Err(errs.into_iter().next().unwrap_or_else(|| Error::new("a client thread ended early")));
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
            Err(_) => errs.push(Error::new("a client thread panicked")),
        }
    }
    errs
}

/// Tells the main thread this client is done, however it ends.
struct Finished<'a>(&'a Shared);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.finished.fetch_add(1, Ordering::AcqRel);
    }
}

fn client_thread(i: usize, spec: &TargetSpec, cfg: &RunConfig, shared: &Shared) -> Result<()> {
    let _done = Finished(shared);
    let mut client =
        Client::connect(spec, cfg.workload, cfg.mix, cfg.tables, cfg.table_size, cfg.seed.wrapping_add(i as u64))?;
    shared.ready.fetch_add(1, Ordering::AcqRel);
    loop {
        match shared.gate.load(Ordering::Acquire) {
            GO => break,
            ABORT => return Ok(()),
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    let slot = &shared.slots[i];
    let mut counts;
    while !shared.stop.load(Ordering::Relaxed) {
        if shared.budget.fetch_sub(1, Ordering::AcqRel) <= 0 {
            return Ok(());
        }
        let started = Instant::now();
        let mut errors = 0u64;
        loop {
            counts = StmtCounts::default();
            match client.event(&mut counts) {
                Ok(()) => break,
                Err(e) if retryable(&e.error) => {
                    errors += 1;
                    client.rollback();
                    if shared.stop.load(Ordering::Relaxed) {
                        slot.record_errors(errors);
                        return Ok(());
                    }
                }
                Err(e) => {
                    shared.stop.store(true, Ordering::Release);
                    return Err(Error::new(format!(
                        "{} on {} at {} threads: '{}' failed: {}",
                        cfg.workload.script(),
                        spec.name(),
                        cfg.threads,
                        e.sql,
                        crate::error::describe(&e.error)
                    )));
                }
            }
        }
        let us = started.elapsed().as_micros().min(u128::from(u64::MAX)) as u64;
        slot.record(us, &counts, errors);
    }
    Ok(())
}
