//! Rolling back to a savepoint (`Trx::rollback_to`, SQL's ROLLBACK TO
//! SAVEPOINT) writes nothing new to the log: the undone records stay in
//! the undo log and recovery skips them. These prove that a transaction
//! rolled back to a savepoint and then committed recovers after a power
//! loss with exactly the changes it kept (also when it changed the same
//! rows again after the rollback), and that one left open is rolled back
//! whole.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::txn::Isolation;
use quire_engine::{Engine, EngineConfig, Table};
use quire_io::{CrashPolicy, FaultVfs, Vfs};

fn open(fault: &Arc<FaultVfs>) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(128 * 4096)
        .flush_method(FlushMethod::Fsync)
        .log_file_size(8 << 20);
    Engine::open(cfg, vfs).unwrap()
}

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("v", ColumnType::Int { unsigned: false }),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "by_v".into(), columns: vec![1], unique: false, prefix: vec![] }],
        ..Default::default()
    }
}

fn rows(t: &Table, index: IndexRef) -> BTreeMap<i64, i64> {
    let all = t.scan(index, Bound::Unbounded, Bound::Unbounded, Direction::Forward).unwrap().collect_all().unwrap();
    all.iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::Int(a), Value::Int(b)) => (*a, *b),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn row(id: i64, v: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(v)]
}

#[test]
fn a_transaction_rolled_back_to_a_savepoint_then_committed_recovers_with_exactly_the_kept_changes() {
    let fault = FaultVfs::new();
    let mut expect = BTreeMap::new();
    {
        let e = open(&fault);
        let t = e.create_table("db/t", schema()).unwrap();
        for i in 0..20 {
            t.insert(row(i, i)).unwrap();
            expect.insert(i, i);
        }
        let mut trx = e.begin(Isolation::RepeatableRead);
        // Kept: before the savepoint.
        t.insert_tx(&mut trx, row(100, 1)).unwrap();
        t.update_tx(&mut trx, &[Value::Int(1)], |_| Ok(row(1, 1000))).unwrap();
        t.delete_tx(&mut trx, &[Value::Int(2)]).unwrap();
        let sp = trx.savepoint();
        // Undone: after it (inserts, updates of kept and untouched rows,
        // a delete, a key change).
        t.insert_tx(&mut trx, row(101, 2)).unwrap();
        t.update_tx(&mut trx, &[Value::Int(1)], |_| Ok(row(1, 2000))).unwrap();
        t.update_tx(&mut trx, &[Value::Int(3)], |_| Ok(row(3, 3000))).unwrap();
        t.update_tx(&mut trx, &[Value::Int(4)], |_| Ok(row(400, 4))).unwrap();
        t.delete_tx(&mut trx, &[Value::Int(5)]).unwrap();
        t.delete_tx(&mut trx, &[Value::Int(100)]).unwrap();
        trx.rollback_to(sp).unwrap();
        // Changed again after the rollback: the same rows and keys.
        t.insert_tx(&mut trx, row(101, 5)).unwrap();
        t.update_tx(&mut trx, &[Value::Int(3)], |_| Ok(row(3, 33))).unwrap();
        trx.commit().unwrap();
        expect.insert(100, 1);
        expect.insert(1, 1000);
        expect.remove(&2);
        expect.insert(101, 5);
        expect.insert(3, 33);
        assert_eq!(rows(&t, IndexRef::Primary), expect, "before the crash");
        // A second transaction rolled back to its start and left open:
        // recovery undoes what it still has.
        let mut open_trx = e.begin(Isolation::RepeatableRead);
        t.insert_tx(&mut open_trx, row(200, 1)).unwrap();
        open_trx.rollback_to(quire_engine::table::Savepoint::START).unwrap();
        t.update_tx(&mut open_trx, &[Value::Int(6)], |_| Ok(row(6, 66))).unwrap();
        e.log().flush_up_to(e.log().current_lsn()).unwrap();
        std::mem::forget(open_trx); // the power goes before it ends
        fault.crash(CrashPolicy::DropUnsynced);
    }
    let e = open(&fault);
    let t = e.table("db/t").unwrap();
    assert_eq!(rows(&t, IndexRef::Primary), expect, "after recovery, by the primary key");
    let by_v: BTreeMap<i64, i64> = rows(&t, IndexRef::Secondary(0));
    assert_eq!(by_v, expect, "after recovery, through the secondary index");
    e.shutdown().unwrap();
}
