//! A full disk, with the fault-injecting file system: what fails, what
//! waits, and that nothing acknowledged is lost (docs/ARCHITECTURE.md,
//! "Disk full").
//!
//! Two models of a full disk:
//! - `OpKind::Allocate` failing (sticky): a real full disk as quire meets
//!   it. Its redo log and doublewrite files are preallocated and its data
//!   files grow by reserved extents, so only growing a space fails, and the
//!   statement that needed the space gets `TableFull` (1114).
//! - `OpKind::Write` failing (sticky): every write fails, as on a device
//!   that lies about space. Commits then wait; reads go on from clean
//!   pages.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_engine::row::Value;
use quire_engine::txn::Isolation;
use quire_engine::{Engine, Error};
use quire_io::{CrashPolicy, FaultKind, FaultVfs, OpKind};

mod common;

use common::{payload_row as row, payload_schema as schema};

/// A 64-page buffer pool: a few thousand rows are several times larger.
fn open(fault: &Arc<FaultVfs>) -> Arc<Engine> {
    common::open_on_faults(fault, 64)
}

#[test]
fn a_full_disk_fails_the_growing_insert_with_table_full_and_every_read_still_works() {
    let fault = FaultVfs::new();
    let e = open(&fault);
    let t = e.create_table("t", schema()).unwrap();
    fault.fail_nth(OpKind::Allocate, 1, FaultKind::NoSpace, true);
    let mut inserted = 0;
    let err = loop {
        match t.insert(row(inserted)) {
            Ok(_) => inserted += 1,
            Err(e) => break e,
        }
        assert!(inserted < 100_000, "the disk never filled");
    };
    assert!(matches!(err, Error::TableFull { ref path } if path.ends_with("t.qbd")), "{err}");
    assert!(inserted > 10, "the first extent held rows");
    // The pool is much smaller than the table: these reads evict pages and
    // the flushers write dirty ones into space already reserved.
    for round in 0..2 {
        for i in 0..inserted {
            assert_eq!(t.get(&[Value::Int(i)]).unwrap().unwrap(), row(i), "row {i}, round {round}");
        }
    }
    assert_eq!(t.get(&[Value::Int(inserted)]).unwrap(), None, "the failed insert left nothing");
    // Updates in place need no new space: they commit while the disk is full.
    for i in (0..inserted).step_by(3) {
        assert!(t.update(&[Value::Int(i)], vec![Value::Int(i), Value::Str(format!("u{i}"))]).unwrap());
    }
    fault.clear_faults();
    for i in inserted..inserted + 300 {
        t.insert(row(i)).unwrap();
    }
    e.shutdown().unwrap();
    drop(e);
    let e = open(&fault);
    let t = e.table("t").unwrap();
    for i in 0..inserted + 300 {
        let want = if i < inserted && i % 3 == 0 { vec![Value::Int(i), Value::Str(format!("u{i}"))] } else { row(i) };
        assert_eq!(t.get(&[Value::Int(i)]).unwrap().unwrap(), want, "row {i} after restart");
    }
}

#[test]
fn a_commit_waits_while_the_log_cannot_be_written_and_is_durable_once_it_returns() {
    let fault = FaultVfs::new();
    let e = open(&fault);
    let t = e.create_table("t", schema()).unwrap();
    for i in 0..10 {
        t.insert(row(i)).unwrap();
    }
    e.log().flush_up_to(e.log().current_lsn()).unwrap();
    fault.fail_nth(OpKind::Write, 1, FaultKind::NoSpace, true);
    let committer = {
        let e = e.clone();
        std::thread::spawn(move || {
            let t = e.table("t").unwrap();
            let mut trx = e.begin(Isolation::RepeatableRead);
            t.insert_tx(&mut trx, row(100)).unwrap();
            let res = trx.commit();
            (res, Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!committer.is_finished(), "a commit returned while its log could not be written");
    // Reads of committed rows go on meanwhile.
    for i in 0..10 {
        assert_eq!(t.get(&[Value::Int(i)]).unwrap().unwrap(), row(i));
    }
    let freed = Instant::now();
    fault.clear_faults();
    let (res, returned) = committer.join().unwrap();
    res.expect("the commit succeeds once space is freed: it never reports an error it then survives");
    assert!(returned >= freed);
    // Acknowledged means durable: a power loss right now keeps it.
    fault.crash(CrashPolicy::DropUnsynced);
    drop(t);
    drop(e);
    let e = open(&fault);
    assert_eq!(e.table("t").unwrap().get(&[Value::Int(100)]).unwrap().unwrap(), row(100));
}

#[test]
fn reads_keep_working_while_every_page_write_fails() {
    let fault = FaultVfs::new();
    common::payload_table_on_faults(&fault, 64, 3000);
    let e = open(&fault);
    let t = e.table("t").unwrap();
    // Purge would dirty undo pages while the reads run, and with every
    // write failing each dirty page keeps its frame: paused, the dirty
    // pages are the ones made here (with purge running the pool filled
    // with dirty pages and the reads failed, as they should once no frame
    // is clean).
    e.pause_purge();
    for i in (0..3000).step_by(80) {
        assert!(t.update(&[Value::Int(i)], vec![Value::Int(i), Value::Str(format!("u{i}"))]).unwrap());
    }
    // Written out, then a few dirty pages that cannot be written: without
    // pre-flushing most of the pool was still dirty here.
    e.checkpoint(u64::MAX).unwrap();
    // One transaction: one undo log (each autocommit update would take
    // an undo segment of its own while purge is paused).
    let mut trx = e.begin(Isolation::RepeatableRead);
    for i in (40..3000).step_by(400) {
        let new_row = vec![Value::Int(i), Value::Str(format!("u{i}"))];
        let res = t.update_tx(&mut trx, &[Value::Int(i)], |_| Ok(new_row.clone())).unwrap();
        assert!(matches!(res, quire_engine::table::RowUpdate::Changed));
    }
    trx.commit().unwrap();
    e.log().flush_up_to(e.log().current_lsn()).unwrap();
    let dirty = e.pool().dirty_pages();
    assert!(dirty < 32, "{dirty} of 64 pages dirty: not a few");
    fault.fail_nth(OpKind::Write, 1, FaultKind::NoSpace, true);
    // Every read needs a frame; only clean frames can give one.
    for round in 0..2 {
        for i in 0..3000 {
            let got = t.get(&[Value::Int(i)]).unwrap_or_else(|err| panic!("row {i}, round {round}: {err}"));
            let updated = i % 80 == 0 || (i >= 40 && (i - 40) % 400 == 0);
            let want = if updated { vec![Value::Int(i), Value::Str(format!("u{i}"))] } else { row(i) };
            assert_eq!(got.unwrap(), want);
        }
    }
    fault.clear_faults();
    e.resume_purge();
    e.shutdown().unwrap();
}

/// With every page write failing and nearly every frame dirty, a descent
/// needs frames for its whole path while only one or two can be freed:
/// reading a leaf must not evict the parent it came from. (It did: the
/// descent restarted from the root, whose reading evicted the leaf, and
/// so on forever; the update below livelocked in its first read.) Every
/// statement either answers or fails with an error; none hangs.
#[test]
fn a_descent_keeps_its_parent_while_only_a_path_of_frames_is_clean() {
    let fault = FaultVfs::new();
    common::payload_table_on_faults(&fault, 64, 3000);
    // No background flushing beyond the LRU flushers' few free frames, and
    // commits that do not wait for the log (whose writes fail too).
    let e = {
        use quire_engine::config::FlushMethod;
        let vfs: Arc<dyn quire_io::Vfs> = Arc::new(fault.clone());
        let mut cfg = quire_engine::EngineConfig::new("/data")
            .page_size(4096)
            .buffer_pool_size(64 * 4096)
            .flush_method(FlushMethod::Fsync)
            .flush_log_at_trx_commit(quire_engine::log::FlushAtCommit::Lazy);
        cfg.flushing.max_dirty_pages_pct = 99.0;
        cfg.flushing.max_dirty_pages_pct_lwm = 0.0;
        cfg.flushing.adaptive_flushing = false;
        cfg.flushing.io_capacity = 1;
        Engine::open(cfg, vfs).unwrap()
    };
    let t = e.table("t").unwrap();
    fault.fail_nth(OpKind::Write, 1, FaultKind::NoSpace, true);
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let worker = {
        let (t, e) = (t.clone(), e.clone());
        std::thread::spawn(move || {
            // Dirty pages that cannot be written, until no frame is left
            // for the next update.
            let mut updated = Vec::new();
            for i in (0..3000).step_by(9) {
                match t.update(&[Value::Int(i)], vec![Value::Int(i), Value::Str(format!("u{i}"))]) {
                    Ok(found) => {
                        assert!(found);
                        updated.push(i);
                    }
                    Err(_) => break,
                }
            }
            let dirty = e.pool().dirty_pages();
            // Reads over the whole table: those whose leaf is resident
            // answer; the others wait for a frame and give up.
            let (mut answered, mut failed) = (0, 0);
            for i in (0..3000).step_by(300) {
                match t.get(&[Value::Int(i)]) {
                    Ok(got) => {
                        let want = if updated.contains(&i) {
                            vec![Value::Int(i), Value::Str(format!("u{i}"))]
                        } else {
                            row(i)
                        };
                        assert_eq!(got.unwrap(), want, "row {i}");
                        answered += 1;
                    }
                    Err(_) => failed += 1,
                }
            }
            // Each updated row's leaf is resident and dirty; its parent is
            // resident too unless the updates' last undo page took the
            // last clean frame from it (every frame dirty: when that
            // happens depends on the background threads' timing). Then
            // the read fails; it never hangs.
            for &i in &updated {
                match t.get(&[Value::Int(i)]) {
                    Ok(got) => assert_eq!(got.unwrap(), vec![Value::Int(i), Value::Str(format!("u{i}"))]),
                    Err(err) => assert_eq!(dirty, 64, "row {i}: a frame was clean for its parent, yet: {err}"),
                }
            }
            done_tx.send((updated.len(), dirty, answered, failed)).unwrap();
        })
    };
    let (updated, dirty, answered, failed) = done_rx.recv_timeout(Duration::from_secs(300)).expect("a statement hung");
    worker.join().unwrap();
    eprintln!("updated {updated}; dirty {dirty} of 64 frames; reads answered {answered}, failed {failed}");
    assert!(updated > 0 && dirty >= 56, "the pool did not fill with dirty pages");
    fault.clear_faults();
    e.shutdown().unwrap();
}
