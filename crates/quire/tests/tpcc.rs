//! TPC-C end to end against a `quire serve` child process, with
//! `quire bench`'s own TPC-C driver (`quire_bench::tpcc`):
//!
//! 1. load a small TPC-C database (1 warehouse, 10 districts, with the
//!    foreign keys; 10 000 items and 300 customers and orders per
//!    district instead of 100 000 and 3 000, so that a debug build loads
//!    it in seconds; the release driver loads scale 1 by
//!    `quire bench --scenario tpcc`), run the standard mix for a few
//!    seconds at 4 threads, and every consistency condition holds;
//! 2. run again and SIGKILL the server in the middle; after the restart
//!    every consistency condition holds (no half transaction is visible),
//!    nothing acknowledged is lost (the district order counters and the
//!    history rows read while the run went on are all there), and CHECK
//!    TABLE is clean on the nine tables.

mod child;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use child::Server;
use mysql::prelude::Queryable;
use quire_bench::target::TargetSpec;
use quire_bench::tpcc::{self, Scale, TpccRun};

const ROOT_PASSWORD: &str = "tpcc-pw";

fn start(datadir: &Path, log: &Path) -> Server {
    let options = ["--innodb-buffer-pool-size=64M", "--innodb_flush_log_at_trx_commit=1"];
    Server::start(datadir, log, ROOT_PASSWORD, &options, &|_| {})
}

fn target(s: &Server) -> TargetSpec {
    TargetSpec {
        label: Some("quire".into()),
        host: "127.0.0.1".into(),
        port: s.port,
        user: "root".into(),
        password: ROOT_PASSWORD.into(),
        database: "tpcc".into(),
    }
}

const SCALE: Scale = Scale { warehouses: 1, items: 10_000, customers: 300 };

fn assert_consistent(spec: &TargetSpec, when: &str) {
    let outcomes = tpcc::check(spec).unwrap_or_else(|e| panic!("{when}: the checks failed to run: {e}"));
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.passed()).collect();
    assert!(failed.is_empty(), "{when}:\n{}", tpcc::check::render(&outcomes));
    assert_eq!(outcomes.len(), 11, "every condition ran");
}

/// (sum of D_NEXT_O_ID, rows of history): both only grow, and each
/// value read was committed.
fn progress(c: &mut mysql::Conn) -> (i64, i64) {
    let next: i64 = c.query_first("SELECT CAST(SUM(d_next_o_id) AS SIGNED) FROM district").unwrap().unwrap();
    let hist: i64 = c.query_first("SELECT COUNT(*) FROM history").unwrap().unwrap();
    (next, hist)
}

#[test]
fn tpcc_stays_consistent_after_a_run_and_after_sigkill_mid_run() {
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("server.err");
    let s = start(&datadir, &log);
    let spec = target(&s);
    let t = Instant::now();
    tpcc::load::load(&spec, SCALE, true, 4, 1, false).expect("load");
    eprintln!("loaded in {:.1} s", t.elapsed().as_secs_f64());
    assert_consistent(&spec, "after the load");

    // 1. A short run, then the checks.
    let run = TpccRun { scale: SCALE, threads: 4, duration: Duration::from_secs(3), seed: 5 };
    let res = tpcc::run(&spec, &run).expect("run");
    let t = res.summary.tpcc.as_ref().expect("TPC-C counts");
    eprintln!("run: {:.1} tps, {:.0} tpmC, {} retried, {t:?}", res.summary.tps, t.tpmc, res.summary.errors);
    assert!(t.new_order > 0 && t.payment > 0, "the mix ran: {t:?}");
    assert_consistent(&spec, "after a run");

    // 2. Again, with a SIGKILL in the middle.
    let mut watch = spec.connect(true, 4).unwrap();
    let before = progress(&mut watch);
    let done = Arc::new(AtomicBool::new(false));
    let runner = {
        let (spec, done) = (spec.clone(), done.clone());
        let run = TpccRun { duration: Duration::from_secs(60), seed: 6, ..run };
        std::thread::spawn(move || {
            let r = tpcc::run(&spec, &run);
            done.store(true, Ordering::Release);
            r
        })
    };
    let mut seen = before;
    let until = Instant::now() + Duration::from_millis(2500);
    while Instant::now() < until && !done.load(Ordering::Acquire) {
        seen = progress(&mut watch);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!done.load(Ordering::Acquire), "the run ended before the kill: {:?}", runner.join().unwrap().err());
    assert!(seen.0 > before.0 && seen.1 > before.1, "no progress before the kill: {before:?} -> {seen:?}");
    drop(watch);
    s.kill();
    let _ = runner.join().unwrap();

    let s = start(&datadir, &log);
    let spec = target(&s);
    let mut c = spec.connect(true, 4).unwrap();
    let after = progress(&mut c);
    assert!(after.0 >= seen.0 && after.1 >= seen.1, "committed work lost: seen {seen:?}, after restart {after:?}");
    assert_consistent(&spec, "after SIGKILL and restart");
    for table in tpcc::schema::TABLES {
        let check: Vec<(String, String, String, String)> = c.query(format!("CHECK TABLE {table}")).unwrap();
        assert_eq!(check.last().unwrap().3, "OK", "CHECK TABLE {table}: {check:?}");
    }
}
