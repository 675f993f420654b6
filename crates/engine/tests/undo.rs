//! Undo log storage: records appended across pages come back newest first
//! and by roll pointer; logs are listed, committed and freed; and an active
//! log survives a crash with every record whose append was durable.

mod common;

use std::sync::Arc;

use quire_engine::config::FlushMethod;
use quire_engine::txn::rsegs::RollbackSegments;
use quire_engine::txn::undo::{self, RollbackSegment, STATE_ACTIVE, STATE_COMMITTED};
use quire_engine::{space, Engine, EngineConfig, SYSTEM_SPACE};
use quire_io::{CrashPolicy, FaultVfs, Vfs};

fn payload(i: usize) -> Vec<u8> {
    (0..(i * 37) % 900 + 1).map(|j| (i + j) as u8).collect()
}

#[test]
fn transactions_spread_over_rollback_segments_and_each_keeps_its_logs() {
    let pool = common::mem_pool(4096, 256 * 4096, 1);
    pool.files().open(SYSTEM_SPACE, std::path::Path::new("/t/sys.qbd"), true).unwrap();
    space::init_space(&pool, SYSTEM_SPACE).unwrap();
    let (rsegs, dir) = RollbackSegments::create(&pool, 3).unwrap();
    assert_eq!(rsegs.len(), 3);
    let mut logs: Vec<_> = (0..6u64).map(|t| rsegs.begin(&pool, 100 + t).unwrap()).collect();
    let mut used: Vec<usize> = logs.iter().map(|l| l.rseg).collect();
    used.sort();
    assert_eq!(used, vec![0, 0, 1, 1, 2, 2], "round-robin over the segments");
    for l in &mut logs {
        l.append(&pool, &payload(l.trx as usize)).unwrap();
    }
    // Half commit: their logs move to their own segment's history list.
    for l in logs.iter().filter(|l| l.trx % 2 == 0) {
        rsegs.finish(&pool, l, l.trx, STATE_COMMITTED, None).unwrap();
    }
    let listed = |r: &RollbackSegments| {
        let mut v: Vec<(u64, usize, u8)> = r.logs(&pool).unwrap().iter().map(|i| (i.trx, i.rseg, i.state)).collect();
        v.sort();
        v
    };
    let before = listed(&rsegs);
    assert_eq!(before.len(), 6);
    for (trx, rseg, state) in &before {
        let log = logs.iter().find(|l| l.trx == *trx).unwrap();
        assert_eq!(*rseg, log.rseg);
        assert_eq!(*state, if trx % 2 == 0 { STATE_COMMITTED } else { STATE_ACTIVE });
    }
    // Reopened through the directory: the same logs, in the same segments.
    let again = RollbackSegments::open(&pool, rsegs.first_page(), dir).unwrap();
    assert_eq!(listed(&again), before);
    // A data directory without a directory page has the one segment.
    let single = RollbackSegments::open(&pool, rsegs.first_page(), 0).unwrap();
    assert_eq!(single.len(), 1);
    assert!(listed(&single).iter().all(|&(_, r, _)| r == 0));
    // Purge frees from the segment that holds the log.
    for l in logs.iter().filter(|l| l.trx % 2 == 0) {
        again.free(&pool, &l.info(STATE_COMMITTED)).unwrap();
    }
    assert_eq!(again.cached(), 3);
    assert_eq!(listed(&again).iter().filter(|l| l.2 == undo::STATE_CACHED).count(), 3);
}

#[test]
fn records_come_back_newest_first_and_by_roll_pointer() {
    let pool = common::mem_pool(4096, 256 * 4096, 1);
    // The pool helper made space 1; the undo lives in the system space.
    pool.files().open(SYSTEM_SPACE, std::path::Path::new("/t/sys.qbd"), true).unwrap();
    space::init_space(&pool, SYSTEM_SPACE).unwrap();
    let rseg = RollbackSegment::create(&pool).unwrap();
    let mut log = rseg.begin(&pool, 77).unwrap();
    let ptrs: Vec<u64> = (0..300).map(|i| log.append(&pool, &payload(i)).unwrap()).collect();
    for (i, &p) in ptrs.iter().enumerate() {
        assert_eq!(undo::read(&pool, p).unwrap(), payload(i));
    }
    let back = log.records_backward(&pool).unwrap();
    assert_eq!(back.len(), 300);
    for (k, (p, rec)) in back.iter().enumerate() {
        let i = 299 - k;
        assert_eq!((*p, rec.clone()), (ptrs[i], payload(i)));
    }
    let (_, used_with_log) = space::usage(&pool, SYSTEM_SPACE).unwrap();
    let logs = rseg.logs(&pool).unwrap();
    assert_eq!(logs.len(), 1);
    assert_eq!((logs[0].trx, logs[0].state), (77, STATE_ACTIVE));
    rseg.finish(&pool, &log, 5, STATE_COMMITTED, None).unwrap();
    let logs = rseg.logs(&pool).unwrap();
    assert_eq!((logs[0].state, logs[0].slot), (STATE_COMMITTED, None), "in the history list, out of its slot");
    rseg.free(&pool, &log.info(STATE_COMMITTED)).unwrap();
    let logs = rseg.logs(&pool).unwrap();
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0].state, undo::STATE_CACHED, "the first page and slot are cached for reuse");
    assert_eq!(rseg.cached(), 1);
    // The next transaction reuses it, empty.
    let mut again = rseg.begin(&pool, 78).unwrap();
    assert_eq!(rseg.cached(), 0);
    let p = again.append(&pool, b"fresh").unwrap();
    assert_eq!(again.records_backward(&pool).unwrap(), vec![(p, b"fresh".to_vec())]);
    assert_eq!(rseg.logs(&pool).unwrap()[0].trx, 78);
    let (_, used_after) = space::usage(&pool, SYSTEM_SPACE).unwrap();
    assert!(used_with_log - used_after >= 30, "the log's pages are freed");
}

#[test]
fn slots_bound_active_logs_only_and_the_history_list_frees_from_anywhere() {
    let pool = common::mem_pool(4096, 4096 * 4096, 1);
    pool.files().open(SYSTEM_SPACE, std::path::Path::new("/t/sys.qbd"), true).unwrap();
    space::init_space(&pool, SYSTEM_SPACE).unwrap();
    let rseg = RollbackSegment::create(&pool).unwrap();
    // Three times as many finished logs as there are slots: none is purged,
    // yet every transaction gets a log (the history is not in the slots).
    let n = 3 * ((4096 - 64) / 4);
    for trx in 1..=n as u64 {
        let mut log = rseg.begin(&pool, trx).unwrap();
        log.append(&pool, &payload(trx as usize)).unwrap();
        let state = if trx % 7 == 0 { undo::STATE_ROLLED_BACK } else { STATE_COMMITTED };
        rseg.finish(&pool, &log, trx, state, None).unwrap();
    }
    let logs = rseg.logs(&pool).unwrap();
    assert_eq!(logs.len(), n);
    assert!(logs.iter().map(|l| l.trx).eq(1..=n as u64), "the history list is in commit order");
    // Free the newest, the oldest and every third one between (as several
    // purge workers would, out of order): the list stays whole.
    let mut freed = std::collections::BTreeSet::new();
    for l in logs.iter().rev().step_by(3).chain([&logs[0]]) {
        rseg.free(&pool, l).unwrap();
        freed.insert(l.trx);
    }
    let left: Vec<u64> = rseg.logs(&pool).unwrap().iter().filter(|l| l.slot.is_none()).map(|l| l.trx).collect();
    let expect: Vec<u64> = (1..=n as u64).filter(|t| !freed.contains(t)).collect();
    assert_eq!(left, expect);
    // Slots from 48 to the binary log position field (the last 16 bytes).
    let slots = (4096 - 64) / 4;
    assert_eq!(rseg.cached(), freed.len().min(slots), "freed logs are cached while a slot is free");
}

#[test]
fn an_active_undo_log_survives_a_crash() {
    let fault = FaultVfs::new();
    let open = || {
        let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
        let cfg =
            EngineConfig::new("/data").page_size(4096).buffer_pool_size(64 * 4096).flush_method(FlushMethod::Fsync);
        Engine::open(cfg, vfs).unwrap()
    };
    let rseg_page;
    let (durable, all);
    {
        let e = open();
        let pool = e.pool();
        let rseg = RollbackSegment::create(pool).unwrap();
        rseg_page = rseg.page();
        let mut log = rseg.begin(pool, 9).unwrap();
        for i in 0..200 {
            log.append(pool, &payload(i)).unwrap();
        }
        e.log().flush_up_to(e.log().current_lsn()).unwrap();
        durable = 200;
        // More records whose redo may not reach the disk.
        for i in 200..220 {
            log.append(pool, &payload(i)).unwrap();
        }
        all = 220;
        fault.crash(CrashPolicy::DropUnsynced);
    }
    let e = open();
    let rseg = RollbackSegment::open(e.pool(), rseg_page).unwrap();
    let logs = rseg.logs(e.pool()).unwrap();
    assert_eq!(logs.len(), 1);
    assert_eq!((logs[0].trx, logs[0].state), (9, STATE_ACTIVE), "an uncommitted transaction's log, to roll back");
    let log = undo::UndoLog::reopen(e.pool(), &logs[0]).unwrap();
    let back = log.records_backward(e.pool()).unwrap();
    assert!(back.len() >= durable && back.len() <= all, "{} records", back.len());
    for (k, (_, rec)) in back.iter().enumerate() {
        assert_eq!(*rec, payload(back.len() - 1 - k), "records are a prefix of what was appended, in order");
    }
}

#[test]
fn a_rollback_segment_page_made_before_the_binlog_field_gives_its_last_slots_to_it() {
    let pool = common::mem_pool(4096, 256 * 4096, 1);
    pool.files().open(SYSTEM_SPACE, std::path::Path::new("/t/sys.qbd"), true).unwrap();
    space::init_space(&pool, SYSTEM_SPACE).unwrap();
    let rseg = RollbackSegment::create(&pool).unwrap();
    let id = quire_engine::PageId::new(SYSTEM_SPACE, rseg.page());
    let slot_count = |pool: &quire_engine::buffer::BufferPool| {
        let g = pool.fix_shared(id).unwrap();
        u32::from_le_bytes(g.data()[32..36].try_into().unwrap())
    };
    assert_eq!(slot_count(&pool), (4096 - 64) / 4);
    // An old page: slots up to the page's end. Its last slots are free.
    let set = |off: usize, v: u32| {
        let mut mtr = quire_engine::mtr::Mtr::new(&pool);
        let h = mtr.x_latch(id).unwrap();
        mtr.write_held(h, off, &v.to_le_bytes());
        mtr.commit();
    };
    set(32, (4096 - 48) / 4);
    let reopened = RollbackSegment::open(&pool, rseg.page()).unwrap();
    assert!(reopened.has_binlog_field());
    assert_eq!(slot_count(&pool), (4096 - 64) / 4, "the last four slots became the field");
    assert_eq!(reopened.binlog_position(&pool).unwrap(), None);
    reopened.set_binlog_position(&pool, Some((4, 1234))).unwrap();
    assert_eq!(reopened.binlog_position(&pool).unwrap(), Some((4, 1234)));
    // An old page whose last slot is taken keeps its slots and records no
    // position (the engine then says so, and the log is not cut).
    set(32, (4096 - 48) / 4);
    set(4096 - 4, 77);
    let busy = RollbackSegment::open(&pool, rseg.page()).unwrap();
    assert!(!busy.has_binlog_field());
    assert_eq!(busy.binlog_position(&pool).unwrap(), None);
}
