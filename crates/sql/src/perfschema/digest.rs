//! Statement digests: `events_statements_summary_by_digest`, the table DBAs
//! read first: statements grouped by their normalised text (literals as
//! `?`, a list of them as `(...)`, a multi-row VALUES as its first row
//! and `/* , ... */`), with counts, latency, lock time, rows and errors.
//!
//! A statement's digest is found (or made) once, when it is compiled, and
//! kept in its [`crate::session::Compiled`]; a plan-cache hit or an
//! EXECUTE of a prepared statement only adds to the counters it already
//! holds. The counters are striped by thread (cache-line padded), so that
//! sixteen threads running one statement do not fight over one line; a
//! reader sums the stripes.
//!
//! As MySQL: at most `MAX_DIGESTS` digests (its default of
//! `performance_schema_digests_size`); later new statements are summed in
//! one row whose SCHEMA_NAME, DIGEST and DIGEST_TEXT are NULL.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crossbeam_utils::CachePadded;
use parking_lot::RwLock;
use sha2::{Digest as _, Sha256};
use sqlparser::ast;

/// MySQL's default `performance_schema_digests_size`.
pub const MAX_DIGESTS: usize = 10_000;

const STRIPES: usize = 8;

/// Latency buckets for the quantiles: bucket k holds times below
/// 2^(k/2) microseconds (about 41% wide), up to 2^23.5 µs (about 3
/// hours); the last holds everything longer.
const BUCKETS: usize = 48;

struct Stripe {
    /// Wall-clock time of the latest execution, µs since the epoch.
    last_seen_us: AtomicU64,
    buckets: [AtomicU64; BUCKETS],
    count: AtomicU64,
    sum_ns: AtomicU64,
    min_ns: AtomicU64,
    max_ns: AtomicU64,
    lock_ns: AtomicU64,
    errors: AtomicU64,
    warnings: AtomicU64,
    affected: AtomicU64,
    sent: AtomicU64,
    examined: AtomicU64,
}

/// One digest's counters.
pub struct DigestStats {
    pub schema: Option<String>,
    /// The SHA-256 of the text, in hex (NULL for the overflow row).
    pub digest: Option<String>,
    pub text: Option<String>,
    /// The statement as first compiled.
    pub sample: Option<String>,
    first_seen_us: u64,
    sample_ns: AtomicU64,
    stripes: [CachePadded<Stripe>; STRIPES],
}

/// What one execution did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Execution {
    pub ns: u64,
    pub lock_ns: u64,
    pub error: bool,
    pub warnings: u64,
    pub affected: u64,
    pub sent: u64,
    pub examined: u64,
}

/// A digest's counters summed over the stripes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sums {
    pub count: u64,
    pub sum_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub lock_ns: u64,
    pub errors: u64,
    pub warnings: u64,
    pub affected: u64,
    pub sent: u64,
    pub examined: u64,
    pub first_seen_us: u64,
    pub last_seen_us: u64,
    pub sample_ns: u64,
    /// The upper bounds of the 95th, 99th and 99.9th percentiles, in ns.
    pub quantiles: [u64; 3],
}

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

/// The wall clock at `at` (µs since the epoch), from one reading of both
/// clocks taken once: a statement's end costs no second clock read.
fn wall_us(at: Instant) -> u64 {
    static ANCHOR: std::sync::OnceLock<(Instant, u64)> = std::sync::OnceLock::new();
    let (i, w) = *ANCHOR.get_or_init(|| (Instant::now(), now_us()));
    w + at.saturating_duration_since(i).as_micros() as u64
}

fn stripe_of_thread() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static MINE: usize = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
    }
    MINE.with(|m| *m)
}

fn bucket_of(ns: u64) -> usize {
    let us = (ns / 1000).max(1) as f64;
    ((us.log2() * 2.0).ceil() as usize).min(BUCKETS - 1)
}

/// The upper bound of bucket `k`, in ns.
fn bucket_bound_ns(k: usize) -> u64 {
    (2f64.powf(k as f64 / 2.0) * 1000.0) as u64
}

impl DigestStats {
    fn new(schema: Option<String>, digest: Option<String>, text: Option<String>, sample: Option<String>) -> Self {
        let stripes = std::array::from_fn(|_| {
            let z = || AtomicU64::new(0);
            CachePadded::new(Stripe {
                last_seen_us: z(),
                buckets: std::array::from_fn(|_| z()),
                count: z(),
                sum_ns: z(),
                min_ns: AtomicU64::new(u64::MAX),
                max_ns: z(),
                lock_ns: z(),
                errors: z(),
                warnings: z(),
                affected: z(),
                sent: z(),
                examined: z(),
            })
        });
        Self { schema, digest, text, sample, first_seen_us: now_us(), sample_ns: AtomicU64::new(0), stripes }
    }

    /// Adds one execution, which ended at `end`. Few read-modify-writes,
    /// all on this thread's stripe: min and max are compared first.
    pub fn record(&self, e: &Execution, end: Instant) {
        let r = Ordering::Relaxed;
        let s = &self.stripes[stripe_of_thread()];
        s.count.fetch_add(1, r);
        s.sum_ns.fetch_add(e.ns, r);
        if e.ns < s.min_ns.load(r) {
            s.min_ns.fetch_min(e.ns, r);
        }
        if e.ns > s.max_ns.load(r) {
            s.max_ns.fetch_max(e.ns, r);
        }
        if e.lock_ns != 0 {
            s.lock_ns.fetch_add(e.lock_ns, r);
        }
        if e.error {
            s.errors.fetch_add(1, r);
        }
        if e.warnings != 0 {
            s.warnings.fetch_add(e.warnings, r);
        }
        if e.affected != 0 {
            s.affected.fetch_add(e.affected, r);
        }
        if e.sent != 0 {
            s.sent.fetch_add(e.sent, r);
        }
        if e.examined != 0 {
            s.examined.fetch_add(e.examined, r);
        }
        s.buckets[bucket_of(e.ns)].fetch_add(1, r);
        if self.sample_ns.load(r) == 0 {
            let _ = self.sample_ns.compare_exchange(0, e.ns.max(1), r, r);
        }
        s.last_seen_us.store(wall_us(end), r);
    }

    pub fn sums(&self) -> Sums {
        let r = Ordering::Relaxed;
        let mut t = Sums { min_ns: u64::MAX, ..Default::default() };
        for s in &self.stripes {
            t.count += s.count.load(r);
            t.sum_ns += s.sum_ns.load(r);
            t.min_ns = t.min_ns.min(s.min_ns.load(r));
            t.max_ns = t.max_ns.max(s.max_ns.load(r));
            t.lock_ns += s.lock_ns.load(r);
            t.errors += s.errors.load(r);
            t.warnings += s.warnings.load(r);
            t.affected += s.affected.load(r);
            t.sent += s.sent.load(r);
            t.examined += s.examined.load(r);
        }
        if t.count == 0 {
            t.min_ns = 0;
        }
        t.first_seen_us = self.first_seen_us;
        t.last_seen_us = self.stripes.iter().map(|s| s.last_seen_us.load(r)).max().unwrap_or(0).max(self.first_seen_us);
        t.sample_ns = self.sample_ns.load(r);
        let mut counts = [0u64; BUCKETS];
        for s in &self.stripes {
            for (c, b) in counts.iter_mut().zip(&s.buckets) {
                *c += b.load(r);
            }
        }
        let total: u64 = counts.iter().sum();
        for (q, want) in [0.95, 0.99, 0.999].iter().enumerate() {
            let need = (total as f64 * want).ceil() as u64;
            let mut seen = 0;
            for (k, c) in counts.iter().enumerate() {
                seen += c;
                if seen >= need.max(1) {
                    t.quantiles[q] = bucket_bound_ns(k);
                    break;
                }
            }
        }
        t
    }
}

/// A digest's identity: the schema current when it ran, its text's hash.
type Key = (Option<String>, [u8; 32]);

/// Every digest of the server.
pub struct Digests {
    /// Looked up under the read lock: every compile of an uncached
    /// statement (BEGIN, COMMIT, SET ...) finds its digest here, from any
    /// number of connections at once; only a new digest writes.
    map: RwLock<HashMap<Key, Arc<DigestStats>>>,
    overflow: Arc<DigestStats>,
}

impl Default for Digests {
    fn default() -> Self {
        Self { map: RwLock::new(HashMap::new()), overflow: Arc::new(DigestStats::new(None, None, None, None)) }
    }
}

impl Digests {
    /// The digest of statement `stmt` run with `schema` current (`None`
    /// while performance_schema is off).
    pub fn of_statement(&self, schema: Option<&str>, stmt: &ast::Statement) -> Option<Arc<DigestStats>> {
        if !quire_engine::wait::is_on() {
            return None;
        }
        let sample = stmt.to_string();
        Some(self.of_text(schema, digest_text(stmt.clone()), sample))
    }

    /// The digest of a statement quire parses itself (SHOW, FLUSH ...):
    /// its text with runs of blanks made one.
    pub fn of_raw(&self, schema: Option<&str>, sql: &str) -> Option<Arc<DigestStats>> {
        if !quire_engine::wait::is_on() {
            return None;
        }
        let text = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = text.trim_end_matches(';').trim_end().to_string();
        Some(self.of_text(schema, text.clone(), text))
    }

    fn of_text(&self, schema: Option<&str>, text: String, sample: String) -> Arc<DigestStats> {
        let hash: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        let key = (schema.map(str::to_string), hash);
        if let Some(d) = self.map.read().get(&key) {
            return d.clone();
        }
        let mut map = self.map.write();
        if let Some(d) = map.get(&key) {
            return d.clone(); // made meanwhile by another connection
        }
        if map.len() >= MAX_DIGESTS {
            return self.overflow.clone();
        }
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        let d = Arc::new(DigestStats::new(key.0.clone(), Some(hex), Some(text), Some(sample)));
        map.insert(key, d.clone());
        d
    }

    /// Every digest, the overflow row last when it has counted anything.
    pub fn all(&self) -> Vec<Arc<DigestStats>> {
        let mut v: Vec<Arc<DigestStats>> = self.map.read().values().cloned().collect();
        v.sort_by_key(|d| d.first_seen_us);
        if self.overflow.sums().count > 0 {
            v.push(self.overflow.clone());
        }
        v
    }
}

/// The normalised text of `stmt` (see the module note).
pub fn digest_text(mut stmt: ast::Statement) -> String {
    let placeholder = |t: &str| ast::Expr::Value(ast::Value::Placeholder(t.to_string()).with_empty_span());
    let is_value = |e: &ast::Expr| matches!(e, ast::Expr::Value(_));
    let _ = ast::visit_expressions_mut(&mut stmt, |e| {
        match e {
            ast::Expr::Value(_) => *e = placeholder("?"),
            ast::Expr::InList { list, .. } if list.len() > 1 && list.iter().all(is_value) => {
                *list = vec![placeholder("...")];
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    let mut more_rows = false;
    if let ast::Statement::Insert(ins) = &mut stmt {
        if let Some(q) = ins.source.as_mut() {
            if let ast::SetExpr::Values(v) = q.body.as_mut() {
                more_rows = v.rows.len() > 1;
                v.rows.truncate(1);
            }
        }
    }
    let mut text = stmt.to_string();
    if more_rows {
        text.push_str(" /* , ... */");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(sql: &str) -> String {
        let mut s = crate::depth::parse_sql(sql).unwrap();
        digest_text(s.remove(0))
    }

    #[test]
    fn literals_become_markers_and_lists_collapse() {
        assert_eq!(text("select c from sbtest1 where id=5"), "SELECT c FROM sbtest1 WHERE id = ?");
        assert_eq!(text("SELECT c FROM sbtest1 WHERE id = 7"), text("select c from sbtest1 where id=5"));
        assert_eq!(
            text("SELECT * FROM t WHERE a IN (1, 2, 3) AND b = 'x'"),
            "SELECT * FROM t WHERE a IN (...) AND b = ?"
        );
        assert_eq!(text("INSERT INTO t VALUES (1, 'a'), (2, 'b')"), "INSERT INTO t VALUES (?, ?) /* , ... */");
        assert_eq!(text("INSERT INTO t VALUES (1, 'a')"), "INSERT INTO t VALUES (?, ?)");
        assert_eq!(text("SELECT a FROM t LIMIT 10"), "SELECT a FROM t LIMIT ?");
    }

    #[test]
    fn executions_are_summed_with_quantiles() {
        let d = Digests::default();
        let stmt = crate::depth::parse_sql("SELECT 1").unwrap().remove(0);
        let a = d.of_text(Some("db"), digest_text(stmt.clone()), "SELECT 1".into());
        let b = d.of_text(Some("db"), digest_text(stmt.clone()), "SELECT 1".into());
        assert!(Arc::ptr_eq(&a, &b), "one digest per (schema, text)");
        let c = d.of_text(None, digest_text(stmt), "SELECT 1".into());
        assert!(!Arc::ptr_eq(&a, &c));
        for ns in 1..=100u64 {
            a.record(&Execution { ns: ns * 1000, sent: 1, examined: 2, ..Default::default() }, Instant::now());
        }
        a.record(&Execution { ns: 10_000_000, error: true, ..Default::default() }, Instant::now());
        let s = a.sums();
        assert_eq!((s.count, s.sent, s.examined, s.errors), (101, 100, 200, 1));
        assert_eq!((s.min_ns, s.max_ns), (1000, 10_000_000));
        assert!(s.quantiles[0] >= 95_000 && s.quantiles[0] < 200_000, "{:?}", s.quantiles);
        assert!(s.quantiles[2] >= 10_000_000);
        assert_eq!(s.sample_ns, 1000, "the first execution's time");
    }
}
