//! The read-write event of `rw-bench` as one transaction.

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

use quire_engine::btree::Direction;
use quire_engine::row::Value;
use quire_engine::table::{IndexRef, Trx};
use quire_engine::txn::Isolation;
use quire_engine::{Engine, Error, Result, Table};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Runs one event in a REPEATABLE READ transaction, retrying it whole when
/// it is a deadlock victim (as sysbench does with 1213).
pub fn event(e: &Engine, t: &Table, rng: &mut SmallRng, rows: u64, retries: &AtomicU64) -> Result<()> {
    let seed: u64 = rng.gen();
    loop {
        let mut trx = e.begin(Isolation::RepeatableRead);
        let mut r = SmallRng::seed_from_u64(seed);
        match body(&mut trx, t, &mut r, rows).and_then(|()| trx.commit()) {
            Err(Error::Deadlock) | Err(Error::LockWaitTimeout(_)) => {
                retries.fetch_add(1, Ordering::Relaxed);
                trx.rollback()?;
            }
            other => return other,
        }
    }
}

fn body(trx: &mut Trx, t: &Table, rng: &mut SmallRng, rows: u64) -> Result<()> {
    let id = |rng: &mut SmallRng| Value::Int(rng.gen_range(1..=rows as i64));
    for _ in 0..10 {
        t.get_tx(trx, &[id(rng)])?;
    }
    let lo = rng.gen_range(1..=rows as i64);
    let mut c = t.scan_tx(
        trx,
        IndexRef::Primary,
        Bound::Included(&[Value::Int(lo)]),
        Bound::Included(&[Value::Int(lo + 99)]),
        Direction::Forward,
    )?;
    while c.next()?.is_some() {}
    let k = rng.gen_range(1..=rows as i64);
    t.update_tx(trx, &[id(rng)], |o| Ok(vec![o[0].clone(), Value::Int(k), o[2].clone(), o[3].clone()]))?;
    let new_c = super::rw_bench::row(rng, 0, rows).swap_remove(2);
    t.update_tx(trx, &[id(rng)], |o| Ok(vec![o[0].clone(), o[1].clone(), new_c.clone(), o[3].clone()]))?;
    let victim = rng.gen_range(1..=rows as i64);
    t.delete_tx(trx, &[Value::Int(victim)])?;
    let r = super::rw_bench::row(rng, victim, rows);
    match t.insert_tx(trx, r) {
        Ok(_) | Err(Error::DuplicateKey { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}
