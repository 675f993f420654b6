//! A TPC-C run: one OS thread per terminal (client), each with its own
//! connection through the `mysql` crate, no keying or think time (as
//! sysbench-tpcc and every "TPS" benchmark run it; a measured tpmC is
//! therefore not a TPC-C result in the specification's sense).
//!
//! TPC-C's transactions need the values their statements return, so the
//! terminals do not go through the sysbench driver's event loop (which
//! only counts rows); a thread per terminal is what sysbench-tpcc spends
//! too. Terminal i's home warehouse is i mod W + 1 and its Stock-Level
//! district (i / W) mod 10 + 1.
//!
//! Retries: a deadlock (1213) or lock wait timeout (1205) rolls the
//! transaction back; it is counted as an error and run again with the
//! same input. Its latency runs from the first attempt to the commit.
//! Any other error stops the run and is reported with the transaction.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::rand::TRand;
use super::schema::{Scale, DISTRICTS};
use super::txn::{Ended, Terminal};
use crate::driver::stats::{Interval, Slot};
use crate::driver::workload::StmtCounts;
use crate::driver::{RunResult, Sample, Summary};
use crate::error::{describe, Error, Result};
use crate::target::TargetSpec;

/// One TPC-C measurement.
#[derive(Debug, Clone)]
pub struct TpccRun {
    pub scale: Scale,
    pub threads: u32,
    pub duration: Duration,
    pub seed: u64,
}

const WAIT: u8 = 0;
const GO: u8 = 1;
const ABORT: u8 = 2;

struct Shared {
    gate: AtomicU8,
    stop: AtomicBool,
    ready: AtomicUsize,
    finished: AtomicUsize,
    slots: Vec<Slot>,
}

/// Whether `e` is a deadlock or lock wait timeout.
fn retryable(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1213 || m.code == 1205)
}

/// Runs the mix against `spec` (loaded with `cfg.scale`).
pub fn run(spec: &TargetSpec, cfg: &TpccRun) -> Result<RunResult> {
    if cfg.threads == 0 || cfg.duration.is_zero() {
        return Err(Error::new("a TPC-C run needs at least one thread and a time"));
    }
    let n = cfg.threads as usize;
    let shared = Arc::new(Shared {
        gate: AtomicU8::new(WAIT),
        stop: AtomicBool::new(false),
        ready: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        slots: (0..n).map(|_| Slot::default()).collect(),
    });
    let mut handles = Vec::new();
    for i in 0..n {
        let (spec, cfg, sh) = (spec.clone(), cfg.clone(), shared.clone());
        let h = std::thread::Builder::new()
            .name(format!("tpcc-{i}"))
            .spawn(move || {
                let r = terminal(i, &spec, &cfg, &sh);
                sh.finished.fetch_add(1, Ordering::AcqRel);
                r
            })
            .map_err(|e| Error::new(format!("cannot start terminal thread {i}: {e}")));
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.gate.store(ABORT, Ordering::Release);
                join_all(handles);
                return Err(e);
            }
        }
    }
    while shared.ready.load(Ordering::Acquire) < n {
        if shared.finished.load(Ordering::Acquire) > 0 {
            shared.gate.store(ABORT, Ordering::Release);
            let errs = join_all(handles);
            return Err(errs.into_iter().next().unwrap_or_else(|| Error::new("a terminal ended early")));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let start = Instant::now();
    shared.gate.store(GO, Ordering::Release);
    let (mut total, mut samples, mut tick, mut last) = (Interval::default(), Vec::new(), 1u32, start);
    let deadline = start + cfg.duration;
    loop {
        let now = Instant::now();
        let next = start + Duration::from_secs(u64::from(tick));
        if now >= next {
            let mut i = Interval::default();
            for s in &shared.slots {
                s.drain_into(&mut i);
            }
            samples.push(Sample::of(tick, &i, now.duration_since(last).as_secs_f64()));
            total.absorb(&i);
            (last, tick) = (now, tick + 1);
            continue;
        }
        if now >= deadline || shared.stop.load(Ordering::Acquire) || shared.finished.load(Ordering::Acquire) == n {
            break;
        }
        std::thread::sleep(deadline.min(next).saturating_duration_since(now).min(Duration::from_millis(20)));
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
    Ok(RunResult { samples, statements: total.statements, summary: Summary::of(&total, seconds) })
}

fn join_all(handles: Vec<std::thread::JoinHandle<Result<()>>>) -> Vec<Error> {
    handles
        .into_iter()
        .filter_map(|h| match h.join() {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(_) => Some(Error::new("a terminal thread panicked")),
        })
        .collect()
}

fn terminal(i: usize, spec: &TargetSpec, cfg: &TpccRun, sh: &Shared) -> Result<()> {
    let conn = spec.connect(true, 64)?;
    let wn = cfg.scale.warehouses as usize;
    let mut t = Terminal {
        conn,
        w: (i % wn) as u32 + 1,
        d: ((i / wn) as u32 % DISTRICTS) + 1,
        scale: cfg.scale,
        rand: TRand::new(cfg.seed.wrapping_mul(0x9E37_79B9).wrapping_add(i as u64)),
        sent: StmtCounts::default(),
    };
    sh.ready.fetch_add(1, Ordering::AcqRel);
    loop {
        match sh.gate.load(Ordering::Acquire) {
            GO => break,
            ABORT => return Ok(()),
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    let slot = &sh.slots[i];
    while !sh.stop.load(Ordering::Acquire) {
        let input = t.next_input();
        let kind = input.kind();
        let started = Instant::now();
        let mut retries = 0;
        let ended = loop {
            match t.execute(&input) {
                Ok(e) => break Some(e),
                Err(e) if retryable(&e) => {
                    retries += 1;
                    if sh.stop.load(Ordering::Acquire) {
                        break None;
                    }
                }
                Err(e) => {
                    sh.stop.store(true, Ordering::Release);
                    return Err(Error::new(format!(
                        "TPC-C {} on {} (terminal {i}, warehouse {}): {}",
                        kind.name(),
                        spec.name(),
                        t.w,
                        describe(&e)
                    )));
                }
            }
        };
        let sent = std::mem::take(&mut t.sent);
        match ended {
            Some(e) => {
                let us = started.elapsed().as_micros() as u64;
                slot.record_txn(us, &sent, retries, kind as usize, e == Ended::RolledBack);
            }
            None => slot.record_errors(retries),
        }
    }
    Ok(())
}
