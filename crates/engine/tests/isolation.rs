//! Isolation scenarios: two or three sessions interleaved step by step,
//! each named for the anomaly it checks, asserting what MySQL/InnoDB does
//! at each level (READ UNCOMMITTED and SERIALIZABLE's engine part at the
//! end: SERIALIZABLE's plain reads becoming locking reads is the SQL
//! layer's, tested in crates/server/tests/isolation_levels.rs). A step that must block runs on
//! its own thread; "blocks" means no answer within 300 ms, and the answer
//! must come once the blocker ends.

use std::ops::Bound;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use quire_engine::btree::Direction;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::{IndexRef, RowUpdate, Trx};
use quire_engine::txn::lock::LockMode;
use quire_engine::txn::Isolation::{self, ReadCommitted, ReadUncommitted, RepeatableRead, Serializable};
use quire_engine::{Engine, EngineConfig, Error, Table};
use quire_io::{OsVfs, Vfs};

const BLOCKED: Duration = Duration::from_millis(300);
const ANSWER: Duration = Duration::from_secs(10);

struct Db {
    _dir: tempfile::TempDir,
    e: Arc<Engine>,
    t: Arc<Table>,
}

/// `t(id INT PRIMARY KEY, v BIGINT, k INT, KEY by_k(k))` holding
/// (1,10,1) (2,20,2) (3,30,3) (10,100,10).
fn db() -> Db {
    let dir = tempfile::tempdir().unwrap();
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let cfg = EngineConfig::new(dir.path())
        .page_size(4096)
        .buffer_pool_size(4 << 20)
        .lock_wait_timeout(Duration::from_secs(20));
    let e = Engine::open(cfg, vfs).unwrap();
    let schema = TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("v", ColumnType::BigInt { unsigned: false }),
            Column::new("k", ColumnType::Int { unsigned: false }),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "by_k".into(), columns: vec![2], unique: false, prefix: vec![] }],
        ..Default::default()
    };
    let t = e.create_table("test/t", schema).unwrap();
    for (id, v) in [(1, 10), (2, 20), (3, 30), (10, 100)] {
        t.insert(vec![Value::Int(id), Value::Int(v), Value::Int(id)]).unwrap();
    }
    Db { _dir: dir, e, t }
}

fn id(i: i64) -> [Value; 1] {
    [Value::Int(i)]
}

fn v_of(row: &Option<Vec<Value>>) -> Option<i64> {
    row.as_ref().map(|r| match r[1] {
        Value::Int(v) => v,
        ref other => panic!("{other:?}"),
    })
}

fn get(t: &Table, trx: &mut Trx, i: i64) -> Option<i64> {
    v_of(&t.get_tx(trx, &id(i)).unwrap())
}

fn set_v(t: &Table, trx: &mut Trx, i: i64, v: i64) -> Result<RowUpdate, Error> {
    t.update_tx(trx, &id(i), |old| Ok(vec![old[0].clone(), Value::Int(v), old[2].clone()]))
}

fn add_v(t: &Table, trx: &mut Trx, i: i64, d: i64) -> Result<RowUpdate, Error> {
    t.update_tx(trx, &id(i), |old| {
        let Value::Int(v) = old[1] else { panic!() };
        Ok(vec![old[0].clone(), Value::Int(v + d), old[2].clone()])
    })
}

/// The ids of rows with k in [lo, hi], by a consistent read of the
/// secondary index.
fn ks_consistent(t: &Table, trx: &mut Trx, lo: i64, hi: i64) -> Vec<i64> {
    let rows = t
        .scan_tx(trx, IndexRef::Secondary(0), Bound::Included(&id(lo)), Bound::Included(&id(hi)), Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    ids(&rows)
}

fn ids(rows: &[Vec<Value>]) -> Vec<i64> {
    rows.iter()
        .map(|r| match r[0] {
            Value::Int(i) => i,
            _ => panic!(),
        })
        .collect()
}

/// Runs `f` on its own thread; the receiver gets its result.
fn spawn<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx
}

fn both_levels(f: impl Fn(Isolation)) {
    for level in [RepeatableRead, ReadCommitted] {
        f(level);
    }
}

#[test]
fn dirty_read_never_happens() {
    both_levels(|level| {
        let d = db();
        let mut writer = d.e.begin(level);
        set_v(&d.t, &mut writer, 1, 11).unwrap();
        d.t.insert_tx(&mut writer, vec![Value::Int(5), Value::Int(50), Value::Int(5)]).unwrap();
        let mut reader = d.e.begin(level);
        assert_eq!(get(&d.t, &mut reader, 1), Some(10), "{level:?}: the uncommitted update is invisible");
        assert_eq!(get(&d.t, &mut reader, 5), None, "{level:?}: the uncommitted insert is invisible");
        assert_eq!(ks_consistent(&d.t, &mut reader, 0, 100), [1, 2, 3, 10], "{level:?}: through the secondary index");
        assert_eq!(get(&d.t, &mut writer, 1), Some(11), "a transaction sees its own changes");
        writer.rollback().unwrap();
        assert_eq!(get(&d.t, &mut reader, 1), Some(10));
        reader.commit().unwrap();
    });
}

#[test]
fn non_repeatable_read_only_under_read_committed() {
    both_levels(|level| {
        let d = db();
        let mut reader = d.e.begin(level);
        assert_eq!(get(&d.t, &mut reader, 1), Some(10));
        let mut writer = d.e.begin(level);
        set_v(&d.t, &mut writer, 1, 11).unwrap();
        writer.commit().unwrap();
        let again = get(&d.t, &mut reader, 1);
        match level {
            RepeatableRead => assert_eq!(again, Some(10), "REPEATABLE READ reads its snapshot again"),
            _ => assert_eq!(again, Some(11), "READ COMMITTED sees the new commit"),
        }
        reader.commit().unwrap();
        let mut fresh = d.e.begin(level);
        assert_eq!(get(&d.t, &mut fresh, 1), Some(11));
    });
}

#[test]
fn phantoms_in_consistent_reads_only_under_read_committed() {
    both_levels(|level| {
        let d = db();
        let mut reader = d.e.begin(level);
        assert_eq!(ks_consistent(&d.t, &mut reader, 1, 5), [1, 2, 3]);
        d.t.insert(vec![Value::Int(4), Value::Int(40), Value::Int(4)]).unwrap();
        d.t.delete(&id(2)).unwrap();
        let again = ks_consistent(&d.t, &mut reader, 1, 5);
        match level {
            RepeatableRead => assert_eq!(again, [1, 2, 3], "the snapshot has neither the insert nor the delete"),
            _ => assert_eq!(again, [1, 3, 4]),
        }
    });
}

#[test]
fn phantom_under_locking_read_is_prevented_by_next_key_locks_at_repeatable_read() {
    let d = db();
    let locked = |trx: &mut Trx| {
        ids(&d
            .t
            .scan_locking(
                trx,
                IndexRef::Secondary(0),
                Bound::Included(&id(1)),
                Bound::Included(&id(5)),
                LockMode::X,
                None,
            )
            .unwrap())
    };
    let mut reader = d.e.begin(RepeatableRead);
    assert_eq!(locked(&mut reader), [1, 2, 3]);
    // An insert into the locked range (k = 4), and one past its end
    // (k = 7, in the gap before k = 10, which the scan locked too), block.
    let (e, t) = (d.e.clone(), d.t.clone());
    let ins = spawn(move || {
        let mut w = e.begin(RepeatableRead);
        t.insert_tx(&mut w, vec![Value::Int(4), Value::Int(40), Value::Int(4)])?;
        w.commit()
    });
    assert!(ins.recv_timeout(BLOCKED).is_err(), "the insert into the scanned range waits");
    assert_eq!(locked(&mut reader), [1, 2, 3], "no phantom: the range reads the same");
    // Outside the locked range: k = 20 goes in at once.
    d.t.insert(vec![Value::Int(20), Value::Int(200), Value::Int(20)]).unwrap();
    reader.commit().unwrap();
    ins.recv_timeout(ANSWER).unwrap().unwrap();
    let mut after = d.e.begin(RepeatableRead);
    assert_eq!(locked(&mut after), [1, 2, 3, 4]);
}

#[test]
fn phantom_under_locking_read_at_read_committed_is_allowed() {
    let d = db();
    let mut reader = d.e.begin(ReadCommitted);
    let scan = |trx: &mut Trx| {
        ids(&d
            .t
            .scan_locking(trx, IndexRef::Primary, Bound::Included(&id(1)), Bound::Included(&id(5)), LockMode::X, None)
            .unwrap())
    };
    assert_eq!(scan(&mut reader), [1, 2, 3]);
    // No gap locks: the insert does not wait.
    d.t.insert(vec![Value::Int(4), Value::Int(40), Value::Int(4)]).unwrap();
    assert_eq!(scan(&mut reader), [1, 2, 3, 4]);
    // The records themselves are locked.
    let t = d.t.clone();
    let e = d.e.clone();
    let upd = spawn(move || {
        let mut w = e.begin(ReadCommitted);
        let r = set_v(&t, &mut w, 2, 0);
        w.commit().map(|_| r)
    });
    assert!(upd.recv_timeout(BLOCKED).is_err(), "a locked record's update waits");
    reader.commit().unwrap();
    upd.recv_timeout(ANSWER).unwrap().unwrap().unwrap();
}

#[test]
fn lost_update_is_prevented_by_the_row_lock() {
    both_levels(|level| {
        let d = db();
        let mut a = d.e.begin(level);
        assert_eq!(add_v(&d.t, &mut a, 1, 1).unwrap(), RowUpdate::Changed);
        let (e, t) = (d.e.clone(), d.t.clone());
        let b = spawn(move || {
            let mut b = e.begin(level);
            // Reads 10 in its snapshot, but UPDATE reads the latest version.
            let seen = get(&t, &mut b, 1);
            add_v(&t, &mut b, 1, 1).unwrap();
            b.commit().unwrap();
            seen
        });
        assert!(b.recv_timeout(BLOCKED).is_err(), "{level:?}: the second writer waits");
        a.commit().unwrap();
        assert_eq!(b.recv_timeout(ANSWER).unwrap(), Some(10));
        assert_eq!(v_of(&d.t.get(&id(1)).unwrap()), Some(12), "{level:?}: both increments count");
    });
}

#[test]
fn read_skew_only_under_read_committed() {
    both_levels(|level| {
        let d = db();
        let mut reader = d.e.begin(level);
        let first = get(&d.t, &mut reader, 1).unwrap();
        let mut w = d.e.begin(level);
        add_v(&d.t, &mut w, 1, -5).unwrap();
        add_v(&d.t, &mut w, 2, 5).unwrap();
        w.commit().unwrap();
        let second = get(&d.t, &mut reader, 2).unwrap();
        match level {
            RepeatableRead => assert_eq!(first + second, 30, "one snapshot: the total holds"),
            _ => assert_eq!(first + second, 35, "READ COMMITTED reads across the commit"),
        }
    });
}

#[test]
fn write_skew_happens_with_plain_reads_and_is_prevented_by_locking_reads() {
    // Rule: v(1) + v(2) must stay >= 0. Each transaction checks it, then
    // takes 30 from a different row.
    let d = db();
    let mut a = d.e.begin(RepeatableRead);
    let mut b = d.e.begin(RepeatableRead);
    let sum = |t: &Table, trx: &mut Trx| get(t, trx, 1).unwrap() + get(t, trx, 2).unwrap();
    assert!(sum(&d.t, &mut a) >= 30 && sum(&d.t, &mut b) >= 30);
    add_v(&d.t, &mut a, 1, -30).unwrap();
    add_v(&d.t, &mut b, 2, -30).unwrap();
    a.commit().unwrap();
    b.commit().unwrap();
    let total = v_of(&d.t.get(&id(1)).unwrap()).unwrap() + v_of(&d.t.get(&id(2)).unwrap()).unwrap();
    assert_eq!(total, -30, "InnoDB allows write skew under plain consistent reads");

    // With SELECT ... FOR UPDATE the second check waits for the first
    // transaction and sees its result.
    let d = db();
    let mut a = d.e.begin(RepeatableRead);
    let lock_sum = |t: &Table, trx: &mut Trx| {
        let rows = t
            .scan_locking(trx, IndexRef::Primary, Bound::Included(&id(1)), Bound::Included(&id(2)), LockMode::X, None)
            .unwrap();
        rows.iter().map(|r| if let Value::Int(v) = r[1] { v } else { 0 }).sum::<i64>()
    };
    assert_eq!(lock_sum(&d.t, &mut a), 30);
    let (e, t) = (d.e.clone(), d.t.clone());
    let b = spawn(move || {
        let mut b = e.begin(RepeatableRead);
        let s = {
            let rows = t
                .scan_locking(
                    &mut b,
                    IndexRef::Primary,
                    Bound::Included(&id(1)),
                    Bound::Included(&id(2)),
                    LockMode::X,
                    None,
                )
                .unwrap();
            rows.iter().map(|r| if let Value::Int(v) = r[1] { v } else { 0 }).sum::<i64>()
        };
        if s >= 30 {
            add_v(&t, &mut b, 2, -30).unwrap();
        }
        b.commit().unwrap();
        s
    });
    assert!(b.recv_timeout(BLOCKED).is_err());
    add_v(&d.t, &mut a, 1, -30).unwrap();
    a.commit().unwrap();
    assert_eq!(b.recv_timeout(ANSWER).unwrap(), 0, "the second check sees the first withdrawal");
    let total = v_of(&d.t.get(&id(1)).unwrap()).unwrap() + v_of(&d.t.get(&id(2)).unwrap()).unwrap();
    assert_eq!(total, 0);
}

#[test]
fn opposite_lock_order_deadlock_rolls_back_exactly_one_transaction() {
    let d = db();
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let run = |first: i64, second: i64| {
        let (e, t, barrier) = (d.e.clone(), d.t.clone(), barrier.clone());
        spawn(move || {
            let mut trx = e.begin(RepeatableRead);
            add_v(&t, &mut trx, first, 1000).unwrap();
            barrier.wait();
            match add_v(&t, &mut trx, second, 1000) {
                Ok(_) => trx.commit().map(|_| true),
                Err(Error::Deadlock) => Ok(false),
                Err(e) => Err(e),
            }
        })
    };
    let a = run(1, 2);
    let b = run(2, 1);
    let ra = a.recv_timeout(ANSWER).unwrap().unwrap();
    let rb = b.recv_timeout(ANSWER).unwrap().unwrap();
    assert!(ra ^ rb, "exactly one transaction commits (a: {ra}, b: {rb})");
    // The victim's first update was rolled back with it.
    assert_eq!(v_of(&d.t.get(&id(1)).unwrap()), Some(1010));
    assert_eq!(v_of(&d.t.get(&id(2)).unwrap()), Some(1020));
    assert_eq!(d.e.txn().locks.stats.deadlocks.get(), 1);
}

#[test]
fn lock_wait_timeout_fails_the_statement_and_keeps_the_transaction() {
    let d = db();
    d.e.txn().lock_wait_timeout_ms.store(200, std::sync::atomic::Ordering::Relaxed);
    let mut holder = d.e.begin(RepeatableRead);
    set_v(&d.t, &mut holder, 1, 0).unwrap();
    let mut waiter = d.e.begin(RepeatableRead);
    set_v(&d.t, &mut waiter, 2, 222).unwrap();
    let sp = waiter.savepoint();
    let err = set_v(&d.t, &mut waiter, 1, 111).unwrap_err();
    assert!(matches!(err, Error::LockWaitTimeout(_)), "{err:?}");
    waiter.rollback_to(sp).unwrap();
    waiter.commit().unwrap();
    holder.commit().unwrap();
    assert_eq!(v_of(&d.t.get(&id(2)).unwrap()), Some(222), "the earlier statement survived");
    assert_eq!(v_of(&d.t.get(&id(1)).unwrap()), Some(0));
}

#[test]
fn delete_and_reinsert_of_one_key_block_instead_of_failing_with_a_duplicate() {
    for commit in [true, false] {
        let d = db();
        let mut deleter = d.e.begin(RepeatableRead);
        assert!(d.t.delete_tx(&mut deleter, &id(1)).unwrap());
        let (e, t) = (d.e.clone(), d.t.clone());
        let ins = spawn(move || {
            let mut w = e.begin(RepeatableRead);
            let r = t.insert_tx(&mut w, vec![Value::Int(1), Value::Int(7), Value::Int(1)]);
            w.commit().unwrap();
            r
        });
        assert!(ins.recv_timeout(BLOCKED).is_err(), "the insert waits for the deleting transaction");
        if commit {
            deleter.commit().unwrap();
            ins.recv_timeout(ANSWER).unwrap().unwrap();
            assert_eq!(v_of(&d.t.get(&id(1)).unwrap()), Some(7));
        } else {
            deleter.rollback().unwrap();
            let err = ins.recv_timeout(ANSWER).unwrap().unwrap_err();
            assert!(matches!(err, Error::DuplicateKey { .. }), "{err:?}");
            assert_eq!(v_of(&d.t.get(&id(1)).unwrap()), Some(10));
        }
    }
}

#[test]
fn rollback_restores_rows_and_secondary_indexes() {
    both_levels(|level| {
        let d = db();
        let before = d.t.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward);
        let before = before.unwrap().collect_all().unwrap();
        let mut trx = d.e.begin(level);
        // Move row 1 to k = 50, delete row 2, insert row 6, change row 3's key.
        d.t.update_tx(&mut trx, &id(1), |o| Ok(vec![o[0].clone(), o[1].clone(), Value::Int(50)])).unwrap();
        assert!(d.t.delete_tx(&mut trx, &id(2)).unwrap());
        d.t.insert_tx(&mut trx, vec![Value::Int(6), Value::Int(60), Value::Int(6)]).unwrap();
        d.t.update_tx(&mut trx, &id(3), |o| Ok(vec![Value::Int(33), o[1].clone(), o[2].clone()])).unwrap();
        assert_eq!(ks_consistent(&d.t, &mut trx, 0, 100), [33, 6, 10, 1]);
        assert_eq!(set_v(&d.t, &mut trx, 10, 100).unwrap(), RowUpdate::Unchanged, "same values: no change");
        trx.rollback().unwrap();
        let after = d.t.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward);
        assert_eq!(after.unwrap().collect_all().unwrap(), before);
        let mut r = d.e.begin(level);
        assert_eq!(ks_consistent(&d.t, &mut r, 0, 100), [1, 2, 3, 10]);
        assert_eq!(ks_consistent(&d.t, &mut r, 50, 50), Vec::<i64>::new());
    });
}

#[test]
fn three_sessions_each_see_their_own_snapshot() {
    let d = db();
    let mut s1 = d.e.begin(RepeatableRead);
    assert_eq!(get(&d.t, &mut s1, 1), Some(10));
    let mut w = d.e.begin(RepeatableRead);
    set_v(&d.t, &mut w, 1, 11).unwrap();
    w.commit().unwrap();
    let mut s2 = d.e.begin(RepeatableRead);
    assert_eq!(get(&d.t, &mut s2, 1), Some(11));
    let mut w = d.e.begin(RepeatableRead);
    set_v(&d.t, &mut w, 1, 12).unwrap();
    w.commit().unwrap();
    let mut s3 = d.e.begin(RepeatableRead);
    assert_eq!(get(&d.t, &mut s3, 1), Some(12));
    // Each rebuilds its own version from the undo chain.
    assert_eq!(get(&d.t, &mut s1, 1), Some(10));
    assert_eq!(get(&d.t, &mut s2, 1), Some(11));
    assert_eq!(get(&d.t, &mut s3, 1), Some(12));
}

/// The ids of the whole table by a consistent read of the primary key.
fn all_consistent(t: &Table, trx: &mut Trx) -> Vec<i64> {
    let rows = t
        .scan_tx(trx, IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    ids(&rows)
}

#[test]
fn dirty_read_happens_only_under_read_uncommitted() {
    for level in [ReadUncommitted, ReadCommitted, RepeatableRead, Serializable] {
        let d = db();
        let mut writer = d.e.begin(RepeatableRead);
        set_v(&d.t, &mut writer, 1, 11).unwrap();
        d.t.insert_tx(&mut writer, vec![Value::Int(5), Value::Int(50), Value::Int(5)]).unwrap();
        d.t.delete_tx(&mut writer, &id(3)).unwrap();
        // Row 2 moves from k = 2 to k = 40 in the secondary index.
        d.t.update_tx(&mut writer, &id(2), |old| Ok(vec![old[0].clone(), old[1].clone(), Value::Int(40)])).unwrap();
        let mut reader = d.e.begin(level);
        let dirty = level == ReadUncommitted;
        let got = (
            get(&d.t, &mut reader, 1),
            get(&d.t, &mut reader, 5),
            get(&d.t, &mut reader, 3),
            all_consistent(&d.t, &mut reader),
            ks_consistent(&d.t, &mut reader, 0, 9),
            ks_consistent(&d.t, &mut reader, 30, 50),
        );
        if dirty {
            assert_eq!(
                got,
                (Some(11), Some(50), None, vec![1, 2, 5, 10], vec![1, 5], vec![2]),
                "{level:?}: the newest versions, uncommitted included"
            );
        } else {
            assert_eq!(
                got,
                (Some(10), None, Some(30), vec![1, 2, 3, 10], vec![1, 2, 3], vec![]),
                "{level:?}: only committed versions"
            );
        }
        writer.rollback().unwrap();
        assert_eq!(get(&d.t, &mut reader, 1), Some(10), "{level:?}: the rollback is seen");
        assert_eq!(all_consistent(&d.t, &mut reader), [1, 2, 3, 10], "{level:?}");
        assert_eq!(ks_consistent(&d.t, &mut reader, 0, 9), [1, 2, 3], "{level:?}");
        reader.commit().unwrap();
    }
}

#[test]
fn read_uncommitted_writes_and_locking_reads_lock_records_but_no_gaps() {
    let d = db();
    let mut reader = d.e.begin(ReadUncommitted);
    let scan = |trx: &mut Trx| {
        ids(&d
            .t
            .scan_locking(trx, IndexRef::Primary, Bound::Included(&id(1)), Bound::Included(&id(5)), LockMode::S, None)
            .unwrap())
    };
    assert_eq!(scan(&mut reader), [1, 2, 3]);
    d.t.insert(vec![Value::Int(4), Value::Int(40), Value::Int(4)]).unwrap();
    assert_eq!(scan(&mut reader), [1, 2, 3, 4], "no gap lock held the insert back");
    let (e, t) = (d.e.clone(), d.t.clone());
    let upd = spawn(move || {
        let mut w = e.begin(ReadUncommitted);
        let r = set_v(&t, &mut w, 2, 0);
        w.commit().map(|_| r)
    });
    assert!(upd.recv_timeout(BLOCKED).is_err(), "an S-locked record's update waits");
    reader.commit().unwrap();
    upd.recv_timeout(ANSWER).unwrap().unwrap().unwrap();
}

#[test]
fn serializable_reads_one_snapshot_and_its_locking_reads_take_next_key_locks() {
    let d = db();
    let mut reader = d.e.begin(Serializable);
    assert_eq!(get(&d.t, &mut reader, 1), Some(10));
    let mut w = d.e.begin(Serializable);
    set_v(&d.t, &mut w, 1, 12).unwrap();
    w.commit().unwrap();
    assert_eq!(get(&d.t, &mut reader, 1), Some(10), "a consistent read keeps the transaction's snapshot");
    let locked = ids(&d
        .t
        .scan_locking(
            &mut reader,
            IndexRef::Secondary(0),
            Bound::Included(&id(1)),
            Bound::Included(&id(5)),
            LockMode::S,
            None,
        )
        .unwrap());
    assert_eq!(locked, [1, 2, 3]);
    let (e, t) = (d.e.clone(), d.t.clone());
    let ins = spawn(move || {
        let mut w = e.begin(Serializable);
        t.insert_tx(&mut w, vec![Value::Int(4), Value::Int(40), Value::Int(4)])?;
        w.commit()
    });
    assert!(ins.recv_timeout(BLOCKED).is_err(), "an insert into the gap the locking read covered waits");
    reader.commit().unwrap();
    ins.recv_timeout(ANSWER).unwrap().unwrap();
}

/// READ COMMITTED as the SQL layer runs it: one view per statement
/// (`Trx::start_statement`), so two reads of one statement see the same
/// snapshot even when a commit lands between them, and the next statement
/// sees that commit. Without statement marks each read call is fresh.
#[test]
fn read_committed_reads_of_one_statement_share_a_snapshot() {
    let db = db();
    let t = &db.t;
    let mut reader = db.e.begin(ReadCommitted);
    reader.start_statement();
    assert_eq!(get(t, &mut reader, 1), Some(10));
    let mut writer = db.e.begin(RepeatableRead);
    set_v(t, &mut writer, 1, 11).unwrap();
    set_v(t, &mut writer, 2, 21).unwrap();
    writer.commit().unwrap();
    assert_eq!(get(t, &mut reader, 2), Some(20), "the same statement still reads its snapshot");
    reader.start_statement();
    assert_eq!((get(t, &mut reader, 1), get(t, &mut reader, 2)), (Some(11), Some(21)), "the next statement sees it");
    reader.commit().unwrap();

    // Unmarked: each call takes a fresh view.
    let mut plain = db.e.begin(ReadCommitted);
    assert_eq!(get(t, &mut plain, 3), Some(30));
    let mut writer = db.e.begin(RepeatableRead);
    set_v(t, &mut writer, 3, 31).unwrap();
    writer.commit().unwrap();
    assert_eq!(get(t, &mut plain, 3), Some(31));
}
