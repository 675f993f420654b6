//! Tables without a primary key (`ClusterKey::RowId`): rows are given
//! without the hidden row id and come back with it last; identical rows
//! stay distinct rows; the row id counter never hands out an id twice,
//! across clean restarts and power losses.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::row::{ClusterKey, Column, ColumnType, IndexDef, TableSchema, Value, ROW_ID_COLUMN};
use quire_engine::table::IndexRef;
use quire_engine::txn::Isolation;
use quire_engine::{Engine, EngineConfig, Table};
use quire_io::{CrashPolicy, FaultVfs, Vfs};
use rand::{Rng, SeedableRng};

fn keyless() -> TableSchema {
    TableSchema::with_row_id(
        vec![Column::new("a", ColumnType::Int { unsigned: false }), Column::new("b", ColumnType::Varchar { len: 40 })],
        vec![IndexDef { name: "a".into(), columns: vec![0], unique: false, prefix: vec![] }],
    )
}

fn open(fault: &Arc<FaultVfs>) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(128 * 4096)
        .flush_method(FlushMethod::Fsync)
        .log_file_size(8 << 20);
    Engine::open(cfg, vfs).unwrap()
}

fn all(t: &Table, index: IndexRef) -> Vec<Vec<Value>> {
    t.scan(index, Bound::Unbounded, Bound::Unbounded, Direction::Forward).unwrap().collect_all().unwrap()
}

fn row_id(r: &[Value]) -> u64 {
    match r.last() {
        Some(Value::UInt(id)) => *id,
        other => panic!("no row id at the end of {r:?}: {other:?}"),
    }
}

fn ab(a: i64, b: &str) -> Vec<Value> {
    vec![Value::Int(a), Value::Str(b.into())]
}

#[test]
fn identical_rows_get_distinct_row_ids_and_change_one_at_a_time() {
    let fault = FaultVfs::new();
    let e = open(&fault);
    let t = e.create_table("db/k", keyless()).unwrap();
    for _ in 0..3 {
        t.insert(ab(1, "x")).unwrap();
    }
    t.insert(ab(2, "y")).unwrap();
    let rows = all(&t, IndexRef::Primary);
    assert_eq!(rows.len(), 4);
    let ids: Vec<u64> = rows.iter().map(|r| row_id(r)).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "row ids increase in insert order: {ids:?}");
    assert_eq!(rows[0][..2], ab(1, "x")[..]);
    // A full row (with an id) is refused: ids are the engine's.
    assert!(t.insert(vec![Value::Int(9), Value::Null, Value::UInt(1)]).is_err());
    // Delete exactly one of the three identical rows, by its row id.
    assert!(t.delete(&[Value::UInt(ids[1])]).unwrap());
    // Update another: the row id stays, whatever the new row says.
    assert!(t.update(&[Value::UInt(ids[0])], ab(5, "z")).unwrap());
    assert!(t
        .update_with(&[Value::UInt(ids[2])], |old| Ok(vec![Value::Int(6), old[1].clone(), Value::UInt(999)]))
        .unwrap());
    let rows = all(&t, IndexRef::Primary);
    let got: Vec<(i64, u64)> = rows.iter().map(|r| (if let Value::Int(a) = r[0] { a } else { 0 }, row_id(r))).collect();
    assert_eq!(got, vec![(5, ids[0]), (6, ids[2]), (2, ids[3])]);
    // The secondary index carries the row id as its key suffix.
    let by_a = all(&t, IndexRef::Secondary(0));
    let got: Vec<(i64, u64)> = by_a.iter().map(|r| (if let Value::Int(a) = r[0] { a } else { 0 }, row_id(r))).collect();
    assert_eq!(got, vec![(2, ids[3]), (5, ids[0]), (6, ids[2])]);
    assert!(t.check().unwrap().is_ok());
}

#[test]
fn a_rolled_back_insert_and_delete_of_identical_rows_leave_the_others() {
    let fault = FaultVfs::new();
    let e = open(&fault);
    let t = e.create_table("db/k", keyless()).unwrap();
    t.insert(ab(1, "x")).unwrap();
    t.insert(ab(1, "x")).unwrap();
    let before = all(&t, IndexRef::Primary);
    let mut trx = e.begin(Isolation::RepeatableRead);
    t.insert_tx(&mut trx, ab(1, "x")).unwrap();
    assert!(t.delete_tx(&mut trx, &[Value::UInt(row_id(&before[0]))]).unwrap());
    // Another transaction's view sees neither change.
    assert_eq!(all(&t, IndexRef::Primary), before);
    trx.rollback().unwrap();
    assert_eq!(all(&t, IndexRef::Primary), before);
    assert_eq!(all(&t, IndexRef::Secondary(0)).len(), 2);
}

#[test]
fn row_ids_are_never_reused_after_a_clean_restart_or_a_power_loss() {
    let fault = FaultVfs::new();
    let mut model: BTreeMap<u64, i64> = BTreeMap::new();
    let mut highest = 0;
    for round in 0..4u64 {
        let e = open(&fault);
        let t = match e.table("db/k") {
            Ok(t) => t,
            Err(_) => e.create_table("db/k", keyless()).unwrap(),
        };
        let got: BTreeMap<u64, i64> = all(&t, IndexRef::Primary)
            .iter()
            .map(|r| (row_id(r), if let Value::Int(a) = r[0] { a } else { -1 }))
            .collect();
        assert_eq!(got, model, "round {round}: recovered rows differ from the acknowledged ones");
        assert_eq!(all(&t, IndexRef::Secondary(0)).len(), model.len());
        let mut rng = rand::rngs::SmallRng::seed_from_u64(round);
        for step in 0..700 {
            let a = rng.gen_range(0..5); // many identical rows
            if rng.gen_range(0..8) == 0 && !model.is_empty() {
                let id = *model.keys().nth(rng.gen_range(0..model.len())).unwrap();
                assert!(t.delete(&[Value::UInt(id)]).unwrap());
                model.remove(&id);
                continue;
            }
            // An insert never collides with a row id used before, even one
            // lost in the crash.
            t.insert(ab(a, &format!("{round}-{step}"))).unwrap();
            let rows = t
                .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Backward)
                .unwrap()
                .next()
                .unwrap()
                .unwrap();
            let id = row_id(&rows);
            assert!(id > highest, "round {round}: row id {id} handed out again (highest so far {highest})");
            highest = id;
            model.insert(id, a);
        }
        if round % 2 == 0 {
            fault.crash(CrashPolicy::DropUnsynced);
        } else {
            e.shutdown().unwrap();
        }
    }
}

#[test]
fn the_cluster_kind_survives_a_restart_and_validation_guards_the_hidden_column() {
    let fault = FaultVfs::new();
    {
        let e = open(&fault);
        e.create_table("db/k", keyless()).unwrap();
        let unique = TableSchema {
            columns: vec![Column::new("a", ColumnType::Int { unsigned: false }).not_null()],
            primary_key: vec![0],
            indexes: vec![],
            cluster: ClusterKey::Unique("ua".into()),
        };
        let t = e.create_table("db/u", unique).unwrap();
        t.insert(vec![Value::Int(1)]).unwrap();
        match t.insert(vec![Value::Int(1)]) {
            Err(quire_engine::Error::DuplicateKey { index, .. }) => assert_eq!(index, "ua"),
            other => panic!("expected a duplicate on 'ua', got {other:?}"),
        }
        // A visible column may not take the hidden column's name.
        let mut bad = keyless();
        bad.cluster = ClusterKey::Primary;
        assert!(e.create_table("db/bad", bad).is_err());
        let bad2 = TableSchema {
            columns: vec![Column::new(ROW_ID_COLUMN, ColumnType::Int { unsigned: false }).not_null()],
            primary_key: vec![0],
            ..Default::default()
        };
        assert!(e.create_table("db/bad2", bad2).is_err());
        e.shutdown().unwrap();
    }
    let e = open(&fault);
    assert_eq!(e.table("db/k").unwrap().schema(), keyless());
    assert_eq!(e.table("db/u").unwrap().schema().cluster, ClusterKey::Unique("ua".into()));
    assert_eq!(e.table("db/u").unwrap().schema().primary_name(), "ua");
}

#[test]
fn purge_removes_deleted_identical_rows_and_their_index_entries() {
    let fault = FaultVfs::new();
    let e = open(&fault);
    let t = e.create_table("db/k", keyless()).unwrap();
    for _ in 0..40 {
        t.insert(ab(1, "same")).unwrap();
    }
    let ids: Vec<u64> = all(&t, IndexRef::Primary).iter().map(|r| row_id(r)).collect();
    for id in ids.iter().step_by(2) {
        assert!(t.delete(&[Value::UInt(*id)]).unwrap());
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while t.physical_entries().unwrap() != [20, 20] && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(t.physical_entries().unwrap(), [20, 20], "purge removed the delete-marked rows and their entries");
    let left: Vec<u64> = all(&t, IndexRef::Secondary(0)).iter().map(|r| row_id(r)).collect();
    assert_eq!(left, ids.iter().skip(1).step_by(2).copied().collect::<Vec<_>>());
}
