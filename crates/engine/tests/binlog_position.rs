//! The binary log position a commit records (in its rollback segment
//! page, in the commit's own mini-transaction) survives a crash and the
//! checkpoints that let the redo log wrap; recovery returns the highest
//! one over all segments; clearing removes every segment's.

use std::sync::Arc;

use quire_engine::config::FlushMethod;
use quire_engine::row::Value;
use quire_engine::txn::Isolation;
use quire_engine::{Engine, EngineConfig};
use quire_io::{CrashPolicy, FaultVfs, Vfs};

mod common;

use common::{payload_row as row, payload_schema as schema};

fn open(fault: &Arc<FaultVfs>) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(128 * 4096)
        .flush_method(FlushMethod::Fsync)
        .log_file_size(2 << 20);
    Engine::open(cfg, vfs).unwrap()
}

/// Inserts row `id` in a transaction of its own that records `pos`.
fn commit_at(e: &Engine, id: i64, pos: Option<(u32, u64)>) {
    let t = e.table("t").unwrap();
    let mut trx = e.begin(Isolation::RepeatableRead);
    t.insert_tx(&mut trx, row(id)).unwrap();
    let lsn = trx.commit_in_memory(pos).unwrap();
    trx.wait_durable(lsn).unwrap();
}

#[test]
fn the_highest_recorded_binlog_position_survives_crashes_and_checkpoints() {
    let fault = FaultVfs::new();
    {
        let e = open(&fault);
        assert_eq!(e.binlog_position().unwrap(), None, "a new data directory records no position");
        assert!(e.records_binlog_position());
        e.create_table("t", schema()).unwrap();
        // Commits go round the rollback segments; unlogged ones between.
        for i in 0..100i64 {
            commit_at(&e, i, (i % 3 != 0).then_some((1, 1000 + 10 * i as u64)));
        }
        assert_eq!(e.binlog_position().unwrap(), Some((1, 1000 + 10 * 98)));
        fault.crash(CrashPolicy::DropUnsynced);
    }
    {
        let e = open(&fault);
        assert_eq!(e.binlog_position().unwrap(), Some((1, 1980)), "lost in the crash");
        // Enough unlogged writes for the redo log to wrap several times:
        // the position lives on in the flushed page, not only in redo.
        let t = e.table("t").unwrap();
        let mut i = 100_000i64;
        while e.log().current_lsn() < 3 * e.log().capacity() {
            t.insert(row(i)).unwrap();
            i += 1;
            assert!(i < 200_000, "the log does not wrap");
        }
        commit_at(&e, 9000, Some((2, 500)));
        for i in 200_000..203_000i64 {
            t.insert(row(i)).unwrap();
        }
        fault.crash(CrashPolicy::DropUnsynced);
    }
    {
        let e = open(&fault);
        assert_eq!(e.binlog_position().unwrap(), Some((2, 500)), "lost across checkpoints");
        assert!(e.table("t").unwrap().get(&[Value::Int(9000)]).unwrap().is_some());
        // A start with the log off clears every segment's position.
        e.set_binlog_position(None).unwrap();
        assert_eq!(e.binlog_position().unwrap(), None);
        fault.crash(CrashPolicy::DropUnsynced);
    }
    {
        let e = open(&fault);
        assert_eq!(e.binlog_position().unwrap(), None, "a cleared position came back");
        e.set_binlog_position(Some((3, 126))).unwrap();
        fault.crash(CrashPolicy::DropUnsynced);
    }
    let e = open(&fault);
    assert_eq!(e.binlog_position().unwrap(), Some((3, 126)));
}
