//! Measurements: each worker thread records into its own [`Slot`]; once a
//! second the sampler folds every slot into one [`Interval`], which becomes
//! a per-second [`Sample`] and is added to the run's total.
//!
//! Latching: a slot's mutex is taken by its worker once per event and by
//! the sampler once per second, so it is almost never contended.
//!
//! Invariants:
//! 1. Every event is recorded in exactly one interval (the sampler takes
//!    and resets a slot's contents under its lock).
//! 2. Latencies are whole microseconds, at least 1, and saturate at
//!    [`MAX_LATENCY_US`].

use std::sync::Mutex;

use hdrhistogram::Histogram;

use super::workload::{Class, StmtCounts};

/// The largest latency a histogram keeps apart (60 s); longer events count
/// as 60 s.
pub const MAX_LATENCY_US: u64 = 60_000_000;

/// A latency histogram in microseconds: 2 significant digits (1%), small
/// enough to keep one per thread at 1024 threads.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 2).expect("constant histogram bounds are valid")
}

/// What happened during some time span.
pub struct Interval {
    pub latency_us: Histogram<u64>,
    pub events: u64,
    pub statements: StmtCounts,
    /// Events that hit a retryable error (1213, 1205) and were retried.
    pub errors: u64,
    /// TPC-C transactions per type (new order, payment, order status,
    /// delivery, stock level), then the rolled-back new orders; zeros for
    /// the sysbench workloads.
    pub txns: [u64; 6],
}

impl Default for Interval {
    fn default() -> Self {
        Interval { latency_us: histogram(), events: 0, statements: StmtCounts::default(), errors: 0, txns: [0; 6] }
    }
}

impl Interval {
    /// Adds `other` into `self`.
    pub fn absorb(&mut self, other: &Interval) {
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.latency_us.add(&other.latency_us);
        self.events += other.events;
        self.statements.merge(&other.statements);
        self.errors += other.errors;
        for (a, b) in self.txns.iter_mut().zip(other.txns) {
            *a += b;
        }
    }

    fn reset(&mut self) {
        self.latency_us.reset();
        self.events = 0;
        self.statements = StmtCounts::default();
        self.errors = 0;
        self.txns = [0; 6];
    }

    /// Latency at quantile `q` in milliseconds (None without events).
    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        (!self.latency_us.is_empty()).then(|| self.latency_us.value_at_quantile(q) as f64 / 1000.0)
    }
}

/// One worker thread's measurements since the sampler last took them.
#[derive(Default)]
pub struct Slot {
    current: Mutex<Interval>,
}

impl Slot {
    /// Records a finished event.
    pub fn record(&self, latency_us: u64, statements: &StmtCounts, errors: u64) {
        let mut i = self.current.lock().unwrap_or_else(|p| p.into_inner());
        i.latency_us.saturating_record(latency_us.clamp(1, MAX_LATENCY_US));
        i.events += 1;
        i.statements.merge(statements);
        i.errors += errors;
    }

    /// Records a finished TPC-C transaction of type `txn` (0..5 as in
    /// [`Interval::txns`]), `rolled_back` for a new order's rollback.
    pub fn record_txn(&self, latency_us: u64, statements: &StmtCounts, errors: u64, txn: usize, rolled_back: bool) {
        let mut i = self.current.lock().unwrap_or_else(|p| p.into_inner());
        i.latency_us.saturating_record(latency_us.clamp(1, MAX_LATENCY_US));
        i.events += 1;
        i.statements.merge(statements);
        i.errors += errors;
        i.txns[txn] += 1;
        if rolled_back {
            i.txns[5] += 1;
        }
    }

    /// Records retryable errors of an event that was then abandoned.
    pub fn record_errors(&self, errors: u64) {
        self.current.lock().unwrap_or_else(|p| p.into_inner()).errors += errors;
    }

    /// Moves this slot's contents into `into` and empties the slot.
    pub fn drain_into(&self, into: &mut Interval) {
        let mut i = self.current.lock().unwrap_or_else(|p| p.into_inner());
        into.absorb(&i);
        i.reset();
    }
}

/// One second of a run, as sysbench's `--report-interval=1` line gives it
/// (p50 and p99 besides its p95).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// Seconds since the run started, at the end of this interval.
    pub second: u32,
    pub tps: f64,
    pub qps: f64,
    pub reads_per_s: f64,
    pub writes_per_s: f64,
    pub other_per_s: f64,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub errors_per_s: f64,
    /// TPC-C: new orders per minute at this second's rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpmc: Option<f64>,
}

impl Sample {
    /// The sample of `i`, which spanned `seconds`.
    pub fn of(second: u32, i: &Interval, seconds: f64) -> Sample {
        let per_s = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
        Sample {
            second,
            tps: per_s(i.events),
            qps: per_s(i.statements.total()),
            reads_per_s: per_s(i.statements.class_total(Class::Read)),
            writes_per_s: per_s(i.statements.class_total(Class::Write)),
            other_per_s: per_s(i.statements.class_total(Class::Other)),
            p50_ms: i.quantile_ms(0.50),
            p95_ms: i.quantile_ms(0.95),
            p99_ms: i.quantile_ms(0.99),
            errors_per_s: per_s(i.errors),
            tpmc: TpccSummary::of(i, seconds).map(|t| t.tpmc),
        }
    }
}

/// A whole run, as sysbench's final report gives it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    pub seconds: f64,
    pub events: u64,
    pub queries: u64,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    pub tps: f64,
    pub qps: f64,
    pub latency_min_ms: f64,
    pub latency_avg_ms: f64,
    pub latency_max_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    /// Retryable errors (deadlocks 1213, lock wait timeouts 1205): each
    /// made its event run again; counted, never hidden.
    pub errors: u64,
    pub reconnects: u64,
    /// TPC-C runs only: transactions per type and tpmC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<TpccSummary>,
}

/// A TPC-C run's transactions per type, and tpmC: New-Order transactions
/// (rolled back ones included, clause 5.4.1) per minute.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TpccSummary {
    pub new_order: u64,
    pub payment: u64,
    pub order_status: u64,
    pub delivery: u64,
    pub stock_level: u64,
    /// New orders rolled back on purpose (the 1% with an unused item).
    pub rolled_back: u64,
    pub tpmc: f64,
}

impl TpccSummary {
    /// None when `i` holds no TPC-C transaction.
    pub fn of(i: &Interval, seconds: f64) -> Option<TpccSummary> {
        let t = i.txns;
        (t[..5].iter().sum::<u64>() > 0).then(|| TpccSummary {
            new_order: t[0],
            payment: t[1],
            order_status: t[2],
            delivery: t[3],
            stock_level: t[4],
            rolled_back: t[5],
            tpmc: if seconds > 0.0 { t[0] as f64 * 60.0 / seconds } else { 0.0 },
        })
    }
}

impl Summary {
    pub fn of(total: &Interval, seconds: f64) -> Summary {
        let h = &total.latency_us;
        let ms = |us: u64| us as f64 / 1000.0;
        let some = !h.is_empty();
        let per_s = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
        Summary {
            seconds,
            events: total.events,
            queries: total.statements.total(),
            reads: total.statements.class_total(Class::Read),
            writes: total.statements.class_total(Class::Write),
            other: total.statements.class_total(Class::Other),
            tps: per_s(total.events),
            qps: per_s(total.statements.total()),
            latency_min_ms: if some { ms(h.min()) } else { 0.0 },
            latency_avg_ms: if some { h.mean() / 1000.0 } else { 0.0 },
            latency_max_ms: if some { ms(h.max()) } else { 0.0 },
            p50_ms: total.quantile_ms(0.50).unwrap_or(0.0),
            p95_ms: total.quantile_ms(0.95).unwrap_or(0.0),
            p99_ms: total.quantile_ms(0.99).unwrap_or(0.0),
            errors: total.errors,
            reconnects: 0,
            tpcc: TpccSummary::of(total, seconds),
        }
    }
}
