//! Bank transfers: threads move money between accounts in transactions
//! (retrying deadlock victims) while others total every balance in a
//! snapshot; every snapshot total is the same. Then the machine "crashes"
//! in the middle of the traffic; after recovery the total still holds, and
//! every balance is exactly what the committed transfers (logged in a
//! table by the same transactions) explain: no uncommitted transfer is
//! visible and no committed one is lost.

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::txn::Isolation;
use quire_engine::{Engine, EngineConfig, Error, Table};
use quire_io::{CrashPolicy, FaultVfs, TearBoundary, Vfs};

const ACCOUNTS: i64 = 40;
const START: i64 = 1000;

fn open(fault: &Arc<FaultVfs>) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = EngineConfig::new("/bank")
        .page_size(4096)
        .buffer_pool_size(256 * 4096)
        .flush_method(FlushMethod::Fsync)
        .lock_wait_timeout(Duration::from_secs(5));
    Engine::open(cfg, vfs).unwrap()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => panic!("{other:?}"),
    }
}

fn create(e: &Engine) {
    let accounts = TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("balance", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("branch", ColumnType::Int { unsigned: false }),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "by_branch".into(), columns: vec![2], unique: false, prefix: vec![] }],
        ..Default::default()
    };
    let log = TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null().auto_increment(),
            Column::new("src", ColumnType::Int { unsigned: false }),
            Column::new("dst", ColumnType::Int { unsigned: false }),
            Column::new("amount", ColumnType::BigInt { unsigned: false }),
        ],
        primary_key: vec![0],
        indexes: vec![],
        ..Default::default()
    };
    let t = e.create_table("bank/accounts", accounts).unwrap();
    e.create_table("bank/transfers", log).unwrap();
    for i in 0..ACCOUNTS {
        t.insert(vec![Value::Int(i), Value::Int(START), Value::Int(i % 4)]).unwrap();
    }
}

/// One transfer in one transaction; `Ok(false)` if it was a deadlock
/// victim (rolled back) or timed out.
fn transfer(e: &Engine, acc: &Table, log: &Table, src: i64, dst: i64, amount: i64) -> Result<bool, Error> {
    let mut trx = e.begin(Isolation::RepeatableRead);
    let step = |trx: &mut quire_engine::table::Trx, id: i64, d: i64| {
        acc.update_tx(trx, &[Value::Int(id)], |o| Ok(vec![o[0].clone(), Value::Int(int(&o[1]) + d), o[2].clone()]))
    };
    let r = (|| {
        step(&mut trx, src, -amount)?;
        step(&mut trx, dst, amount)?;
        log.insert_tx(&mut trx, vec![Value::Null, Value::Int(src), Value::Int(dst), Value::Int(amount)])?;
        trx.commit()
    })();
    match r {
        Ok(()) => Ok(true),
        Err(Error::Deadlock) => Ok(false),
        Err(Error::LockWaitTimeout(_)) => {
            trx.rollback()?;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// The sum of all balances in one snapshot, read through the primary key
/// and through the secondary index.
fn snapshot_totals(e: &Engine, acc: &Table) -> Result<(i64, i64), Error> {
    let mut trx = e.begin(Isolation::RepeatableRead);
    let sum = |rows: Vec<Vec<Value>>| rows.iter().map(|r| int(&r[1])).sum::<i64>();
    let a = sum(acc
        .scan_tx(&mut trx, IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)?
        .collect_all()?);
    let b = sum(acc
        .scan_tx(&mut trx, IndexRef::Secondary(0), Bound::Unbounded, Bound::Unbounded, Direction::Backward)?
        .collect_all()?);
    trx.commit()?;
    Ok((a, b))
}

/// Runs transfers and snapshot readers for `run`, then crashes with
/// `policy` while they are still going. Returns committed transfers.
fn traffic_then_crash(fault: &Arc<FaultVfs>, e: Arc<Engine>, run: Duration, policy: CrashPolicy, seed: u64) -> u64 {
    let acc = e.table("bank/accounts").unwrap();
    let log = e.table("bank/transfers").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicU64::new(0));
    let snapshots = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for w in 0..4u64 {
        let (e, acc, log, stop, committed) = (e.clone(), acc.clone(), log.clone(), stop.clone(), committed.clone());
        threads.push(std::thread::spawn(move || {
            let mut x = seed.wrapping_mul(31).wrapping_add(w) | 1;
            while !stop.load(Ordering::Relaxed) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let src = (x % ACCOUNTS as u64) as i64;
                let dst = ((x >> 20) % ACCOUNTS as u64) as i64;
                if src == dst {
                    continue;
                }
                match transfer(&e, &acc, &log, src, dst, (x >> 40) as i64 % 50 + 1) {
                    Ok(true) => {
                        committed.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(_) => return, // the crash
                }
            }
        }));
    }
    for _ in 0..2 {
        let (e, acc, stop, snapshots) = (e.clone(), acc.clone(), stop.clone(), snapshots.clone());
        threads.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match snapshot_totals(&e, &acc) {
                    Ok((a, b)) => {
                        assert_eq!(a, ACCOUNTS * START, "a snapshot total through the primary key");
                        assert_eq!(b, ACCOUNTS * START, "a snapshot total through the secondary index");
                        snapshots.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(_) => return,
                }
            }
        }));
    }
    std::thread::sleep(run);
    // One transfer surely in flight: half done, its change and undo durable
    // (the log synced), never committed. Recovery must take it back, or
    // the balances no longer match the logged transfers.
    let mut half = e.begin(Isolation::RepeatableRead);
    acc.update_tx(&mut half, &[Value::Int(0)], |o| Ok(vec![o[0].clone(), Value::Int(int(&o[1]) - 1), o[2].clone()]))
        .unwrap();
    e.log().flush_up_to(e.log().current_lsn()).unwrap();
    fault.crash(policy);
    drop(half); // its rollback fails on the crashed files; its locks go
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("no snapshot saw a wrong total");
    }
    assert!(snapshots.load(Ordering::Relaxed) > 0);
    drop(e);
    committed.load(Ordering::Relaxed)
}

/// After recovery: the total holds, and each balance is what the logged
/// transfers explain.
fn check(e: &Engine) -> usize {
    let acc = e.table("bank/accounts").unwrap();
    let log = e.table("bank/transfers").unwrap();
    let mut expect = vec![START; ACCOUNTS as usize];
    let transfers = log.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward);
    let transfers = transfers.unwrap().collect_all().unwrap();
    for t in &transfers {
        expect[int(&t[1]) as usize] -= int(&t[3]);
        expect[int(&t[2]) as usize] += int(&t[3]);
    }
    let rows = acc.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward);
    let rows = rows.unwrap().collect_all().unwrap();
    assert_eq!(rows.len(), ACCOUNTS as usize);
    for r in &rows {
        assert_eq!(int(&r[1]), expect[int(&r[0]) as usize], "account {} against the logged transfers", int(&r[0]));
    }
    assert_eq!(rows.iter().map(|r| int(&r[1])).sum::<i64>(), ACCOUNTS * START);
    let (a, b) = snapshot_totals(e, &acc).unwrap();
    assert_eq!((a, b), (ACCOUNTS * START, ACCOUNTS * START));
    transfers.len()
}

#[test]
fn snapshot_totals_hold_and_a_crash_loses_no_committed_transfer() {
    let mut rolled_back = 0;
    for (round, policy) in [
        CrashPolicy::DropUnsynced,
        CrashPolicy::Random { seed: 7, boundary: TearBoundary::Sector512 },
        CrashPolicy::KeepUnsynced,
        CrashPolicy::Random { seed: 99, boundary: TearBoundary::Block4K },
    ]
    .into_iter()
    .enumerate()
    {
        let fault = FaultVfs::new();
        let e = open(&fault);
        create(&e);
        e.log().flush_up_to(e.log().current_lsn()).unwrap();
        let committed = traffic_then_crash(&fault, e, Duration::from_millis(700), policy, round as u64 + 1);
        let e = open(&fault);
        rolled_back += e.recovered_rollbacks();
        let logged = check(&e);
        assert!(logged as u64 >= committed, "{policy:?}: {logged} transfers survived, {committed} were committed");
        // More traffic on the recovered data, and a second crash.
        let committed2 = traffic_then_crash(&fault, e, Duration::from_millis(300), CrashPolicy::DropUnsynced, 1000);
        let e = open(&fault);
        let logged2 = check(&e);
        assert!(logged2 as u64 >= committed + committed2.min(1) - 1);
        rolled_back += e.recovered_rollbacks();
        println!("{policy:?}: {committed}+{committed2} committed, {logged2} logged after two crashes");
    }
    assert!(rolled_back >= 8, "every crash caught a transfer in flight, and recovery rolled it back: {rolled_back}");
    println!("{rolled_back} transactions rolled back by recovery");
}
