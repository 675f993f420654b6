//! Crash recovery: a simulated power loss (every write not yet synced is
//! lost, or survives at random, torn at 4 KiB) at arbitrary moments; on
//! reopen, the redo log is replayed and every acknowledged change is there.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig, Table};
use quire_io::{CrashPolicy, FaultVfs, TearBoundary, Vfs};
use rand::{Rng, SeedableRng};

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("k", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("c", ColumnType::Varchar { len: 120 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "k".into(), columns: vec![1], unique: false, prefix: vec![] }],
        ..Default::default()
    }
}

fn row(id: i64, v: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(v), Value::Str(format!("{v:0>100}"))]
}

fn open(fault: &Arc<FaultVfs>, log_size: u64) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(128 * 4096)
        .flush_method(FlushMethod::Fsync)
        .log_file_size(log_size);
    Engine::open(cfg, vfs).unwrap()
}

/// Every row of the table, via the primary key and via the secondary
/// index, which must agree.
fn contents(t: &Table) -> BTreeMap<i64, i64> {
    let by_pk = t
        .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    let by_k = t
        .scan(IndexRef::Secondary(0), Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(by_pk.len(), by_k.len(), "primary and secondary index disagree after recovery");
    let m: BTreeMap<i64, i64> = by_pk
        .iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::Int(id), Value::Int(v)) => {
                assert_eq!(r[2], Value::Str(format!("{v:0>100}")));
                (*id, *v)
            }
            _ => panic!("bad row"),
        })
        .collect();
    for r in &by_k {
        let Value::Int(id) = r[0] else { panic!() };
        assert_eq!(Some(&r[1]), m.get(&id).map(|v| Value::Int(*v)).as_ref());
    }
    m
}

/// Runs random inserts, updates and deletes, keeping a model of what was
/// acknowledged; crashes; recovers; compares.
fn crash_and_recover(seed: u64, ops: usize, policy: CrashPolicy, log_size: u64) {
    let fault = FaultVfs::new();
    let mut model: BTreeMap<i64, i64> = BTreeMap::new();
    {
        let e = open(&fault, log_size);
        let t = e.create_table("db/t", schema()).unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        for step in 0..ops as i64 {
            let id = rng.gen_range(0..2000);
            match rng.gen_range(0..10) {
                0..=5 => {
                    if t.insert(row(id, step)).is_ok() {
                        model.insert(id, step);
                    }
                }
                6..=8 => {
                    if t.update(&[Value::Int(id)], row(id, step)).unwrap() {
                        model.insert(id, step);
                    }
                }
                _ => {
                    if t.delete(&[Value::Int(id)]).unwrap() {
                        model.remove(&id);
                    }
                }
            }
        }
        // Power loss: no shutdown, unsynced writes go per the policy.
        fault.crash(policy);
    }
    let e = open(&fault, log_size);
    let report = e.recovery_report().clone();
    assert!(report.groups > 0 && report.pages > 0, "seed {seed}: the crash left nothing to redo: {report:?}");
    let got = contents(&e.table("db/t").unwrap());
    assert_eq!(got, model, "seed {seed}: recovered contents differ from the acknowledged ones");
    e.shutdown().unwrap();
    // A clean restart finds nothing to recover and the same data.
    let e = open(&fault, log_size);
    assert_eq!(e.recovery_report().groups, 0, "a clean shutdown leaves nothing to redo");
    assert_eq!(contents(&e.table("db/t").unwrap()), model);
}

#[test]
fn acknowledged_changes_survive_losing_every_unsynced_write() {
    for seed in 0..4 {
        crash_and_recover(seed, 3000, CrashPolicy::DropUnsynced, 8 << 20);
    }
}

#[test]
fn acknowledged_changes_survive_unsynced_writes_partly_kept_at_random() {
    // Unsynced log writes may half survive; data page writes are whole
    // (4 KiB pages, torn only at 4 KiB) until doublewrite covers torn pages.
    for seed in 0..4 {
        crash_and_recover(seed, 3000, CrashPolicy::Random { seed, boundary: TearBoundary::Block4K }, 8 << 20);
    }
}

#[test]
fn recovery_works_after_the_log_wrapped_around_several_times() {
    // A log of about 1 MiB; the workload writes several MiB of redo.
    let fault = FaultVfs::new();
    let log_size = quire_engine::log::file::MIN_FILE_SIZE;
    let mut model = BTreeMap::new();
    {
        let e = open(&fault, log_size);
        let t = e.create_table("t", schema()).unwrap();
        for i in 0..40_000i64 {
            let id = i % 3000;
            if t.update(&[Value::Int(id)], row(id, i)).unwrap() {
                model.insert(id, i);
            } else {
                t.insert(row(id, i)).unwrap();
                model.insert(id, i);
            }
        }
        let written = e.log().current_lsn();
        assert!(written > 4 * e.log().capacity(), "the log wrapped {} times", written / e.log().capacity());
        fault.crash(CrashPolicy::DropUnsynced);
    }
    let e = open(&fault, log_size);
    assert!(e.recovery_report().groups > 0);
    assert_eq!(contents(&e.table("t").unwrap()), model);
}

#[test]
fn a_crash_during_recovery_is_recovered_from() {
    let fault = FaultVfs::new();
    let mut model = BTreeMap::new();
    {
        let e = open(&fault, 8 << 20);
        let t = e.create_table("t", schema()).unwrap();
        for i in 0..2000i64 {
            t.insert(row(i, i)).unwrap();
            model.insert(i, i);
        }
        fault.crash(CrashPolicy::DropUnsynced);
    }
    // Recover, and crash again at once: whatever recovery wrote (pages,
    // its checkpoint) may or may not have reached the disk.
    for seed in 0..3 {
        let e = open(&fault, 8 << 20);
        assert_eq!(contents(&e.table("t").unwrap()), model);
        fault.crash(CrashPolicy::Random { seed, boundary: TearBoundary::Block4K });
    }
    let e = open(&fault, 8 << 20);
    assert_eq!(contents(&e.table("t").unwrap()), model);
}

#[test]
fn concurrent_committers_lose_nothing_acknowledged() {
    let fault = FaultVfs::new();
    let acked: Vec<BTreeMap<i64, i64>>;
    {
        let e = open(&fault, 8 << 20);
        let t = e.create_table("t", schema()).unwrap();
        let handles: Vec<_> = (0..4i64)
            .map(|w| {
                let t = t.clone();
                std::thread::spawn(move || {
                    let mut mine = BTreeMap::new();
                    for i in 0..400i64 {
                        let id = i * 4 + w;
                        t.insert(row(id, i)).unwrap();
                        mine.insert(id, i);
                    }
                    mine
                })
            })
            .collect();
        acked = handles.into_iter().map(|h| h.join().unwrap()).collect();
        fault.crash(CrashPolicy::DropUnsynced);
    }
    let e = open(&fault, 8 << 20);
    let got = contents(&e.table("t").unwrap());
    let want: BTreeMap<i64, i64> = acked.into_iter().flatten().collect();
    assert_eq!(got, want);
}

#[test]
fn acknowledged_changes_survive_writes_torn_at_512_bytes_with_doublewrite_on() {
    // Doublewrite is on by default: any data page write torn by the crash
    // is restored from its copy before the log is replayed.
    for seed in 10..14 {
        crash_and_recover(seed, 3000, CrashPolicy::Random { seed, boundary: TearBoundary::Sector512 }, 8 << 20);
    }
}

/// Inserts ids 0.. in order with the given commit mode, then crashes.
/// Returns how many inserts were acknowledged and which ids recovered.
fn lazy_commits(mode: quire_engine::log::FlushAtCommit, policy: CrashPolicy) -> (i64, Vec<i64>) {
    let fault = FaultVfs::new();
    let acked;
    {
        let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
        let cfg = EngineConfig::new("/data")
            .page_size(4096)
            .buffer_pool_size(128 * 4096)
            .flush_method(FlushMethod::Fsync)
            .flush_log_at_trx_commit(mode);
        let e = Engine::open(cfg, vfs).unwrap();
        let t = e.create_table("t", schema()).unwrap();
        let mut n = 0;
        for i in 0..3000i64 {
            t.insert(row(i, i)).unwrap();
            n += 1;
        }
        acked = n;
        fault.crash(policy);
    }
    let e = open(&fault, 8 << 20);
    let ids: Vec<i64> = contents(&e.table("t").unwrap()).into_keys().collect();
    (acked, ids)
}

#[test]
fn with_flush_log_at_trx_commit_0_or_2_an_os_crash_keeps_a_prefix_of_the_commits() {
    use quire_engine::log::FlushAtCommit;
    for mode in [FlushAtCommit::Lazy, FlushAtCommit::Write] {
        let (acked, ids) = lazy_commits(mode, CrashPolicy::DropUnsynced);
        // Commits of the last second may be lost, but what survives is a
        // consistent prefix: ids 0..k, no gaps.
        let k = ids.len() as i64;
        assert!(k <= acked);
        assert_eq!(ids, (0..k).collect::<Vec<_>>(), "{mode:?}: not a prefix");
    }
}

#[test]
fn with_flush_log_at_trx_commit_2_a_process_crash_loses_nothing() {
    // The log was written to the OS at each commit: a crash of the process
    // alone (the OS keeps its unsynced writes) loses no commit.
    let (acked, ids) = lazy_commits(quire_engine::log::FlushAtCommit::Write, CrashPolicy::KeepUnsynced);
    assert_eq!(ids, (0..acked).collect::<Vec<_>>());
}

/// A lone durable committer pays one log sync per commit: none for its
/// change records written ahead of the commit record (which once cost a
/// second sync), and none for a hand-off it leads itself.
#[test]
fn a_lone_durable_committer_syncs_the_log_once_per_commit() {
    let fault = FaultVfs::new();
    let e = open(&fault, 8 << 20);
    let t = e.create_table("t", schema()).unwrap();
    let syncs = || e.log().stats.syncs.load(std::sync::atomic::Ordering::Relaxed);
    let (before, start) = (syncs(), std::time::Instant::now());
    const COMMITS: u64 = 300;
    for i in 0..COMMITS as i64 {
        t.insert(row(i, i)).unwrap();
    }
    let synced = syncs() - before;
    // Besides the commits' own: one a second at most, and a few for page
    // writes and checkpoints.
    let spare = start.elapsed().as_secs() + 5;
    assert!(
        (COMMITS..=COMMITS + spare).contains(&synced),
        "{synced} log syncs for {COMMITS} durable commits at one thread"
    );
}

/// `Innodb_data_fsyncs` counts every sync of the engine's files (redo
/// log, doublewrite, data files), as InnoDB's does: the engine's count is
/// exactly the syncs the file system saw, from creation to shutdown.
#[test]
fn every_sync_of_the_engines_files_is_counted() {
    let fault = FaultVfs::new();
    let e = open(&fault, 8 << 20);
    let t = e.create_table("t", schema()).unwrap();
    for i in 0..200 {
        t.insert(row(i, i)).unwrap();
    }
    e.checkpoint(u64::MAX).unwrap();
    assert_eq!(e.fsyncs().pending, 0);
    e.shutdown().unwrap();
    let counted = e.fsyncs().done;
    assert!(counted > 200, "{counted} syncs for 200 durable commits and a checkpoint");
    assert_eq!(counted, fault.sync_count(), "syncs counted by the engine and seen by the file system");
}
