//! The built-in driver sends sysbench 1.0.20's statement mix, exactly.
//! For every OLTP workload, the real `sysbench --events=N` and the driver
//! with the same event budget run one after the other against one embedded
//! quire, and the server's own counters (`Com_select`, `Com_insert`,
//! `Com_update`, `Com_delete`, `Com_begin`, `Com_commit`, `Questions`)
//! must move by the same amounts — which are also N times the per-event
//! counts of the scripts, and what the driver counted itself per
//! statement type. One client thread, so no deadlock retries blur it.
//!
//! sysbench is required (`.ci/run` installs it), as in
//! crates/quire/tests/clients.rs.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use quire_bench::driver::prepare::{self, DataSpec};
use quire_bench::driver::workload::{Class, Kind};
use quire_bench::driver::{self, Mix, RunConfig, Workload};
use quire_bench::embedded::Embedded;

const EVENTS: u64 = 60;
const DATA: DataSpec = DataSpec { tables: 2, table_size: 1000 };

/// The counters compared, in SHOW STATUS names.
const COUNTERS: [&str; 7] =
    ["Com_select", "Com_insert", "Com_update", "Com_delete", "Com_begin", "Com_commit", "Questions"];

fn counters(e: &Embedded) -> [u64; 7] {
    let s = &e.shared().expect("server running").stats;
    [
        s.com_select.load(Relaxed),
        s.com_insert.load(Relaxed),
        s.com_update.load(Relaxed),
        s.com_delete.load(Relaxed),
        s.com_begin.load(Relaxed),
        s.com_commit.load(Relaxed),
        s.questions.load(Relaxed),
    ]
}

fn delta(after: [u64; 7], before: [u64; 7]) -> [u64; 7] {
    let mut d = [0; 7];
    for i in 0..7 {
        d[i] = after[i] - before[i];
    }
    d
}

/// What sysbench's scripts send per event, in `COUNTERS` order.
fn expected_per_event(w: Workload) -> [u64; 7] {
    let c = w.per_event(&Mix::default());
    let updates = c.get(Kind::IndexUpdate) + c.get(Kind::NonIndexUpdate);
    [
        c.class_total(Class::Read),
        c.get(Kind::Insert),
        updates,
        c.get(Kind::Delete),
        c.get(Kind::Begin),
        c.get(Kind::Commit),
        c.total(),
    ]
}

#[test]
fn the_driver_and_sysbench_move_the_servers_counters_alike() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let opts = vec![
        ("innodb_buffer_pool_size".to_string(), "32M".to_string()),
        ("innodb_flush_log_at_trx_commit".to_string(), "2".to_string()),
    ];
    let e = Embedded::start(Some(tmp.path()), opts, 20).expect("embedded quire starts");
    prepare::prepare(e.spec(), DATA, 2, false).expect("tables load");
    // `Workload::ALL` ends with oltp_delete: it empties rows the others use.
    assert_eq!(Workload::ALL.last(), Some(&Workload::Delete));
    for w in Workload::ALL {
        let cfg = RunConfig {
            workload: w,
            threads: 1,
            duration: Duration::ZERO,
            events: EVENTS,
            tables: DATA.tables,
            table_size: DATA.table_size,
            mix: Mix::default(),
            seed: 11,
            workers: 0,
        };
        let before = counters(&e);
        let sb = quire_bench::sysbench::run(e.spec(), &cfg).unwrap_or_else(|err| panic!("sysbench {w}: {err}"));
        let by_sysbench = delta(counters(&e), before);
        assert_eq!(sb.summary.events, EVENTS, "sysbench {w} ran {} events", sb.summary.events);

        let before = counters(&e);
        let ours = driver::run(e.spec(), &cfg).unwrap_or_else(|err| panic!("driver {w}: {err}"));
        let by_driver = delta(counters(&e), before);
        assert_eq!(ours.summary.events, EVENTS, "driver {w} ran {} events", ours.summary.events);
        assert_eq!(ours.summary.errors, 0);

        let expected = expected_per_event(w).map(|n| n * EVENTS);
        for i in 0..COUNTERS.len() {
            assert_eq!(
                (by_driver[i], by_sysbench[i]),
                (expected[i], expected[i]),
                "{w}: {} moved by {} with the driver and {} with sysbench; {} expected",
                COUNTERS[i],
                by_driver[i],
                by_sysbench[i],
                expected[i]
            );
        }
        // The driver's own count per statement type.
        assert_eq!(ours.statements, w.per_event(&Mix::default()).times(EVENTS), "{w}");
        // sysbench's own totals agree with the script too. (It files a
        // write that changed no row, a DELETE of a missing id, as "other",
        // so only reads and writes + other are comparable.)
        let s = &sb.summary;
        let c = w.per_event(&Mix::default()).times(EVENTS);
        assert_eq!(
            (s.reads, s.writes + s.other),
            (c.class_total(Class::Read), c.class_total(Class::Write) + c.class_total(Class::Other)),
            "sysbench's report for {w}"
        );
    }
    e.shutdown().expect("clean shutdown");
}
