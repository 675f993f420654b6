//! The read-write event of `rw-bench`, written once for both modes: as one
//! transaction (`Some(trx)`) or as autocommit statements (`None`).

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
/// it is a deadlock victim or timed out (as sysbench does with 1213/1205).
pub fn in_transaction(e: &Engine, t: &Table, rng: &mut SmallRng, rows: u64, retries: &AtomicU64) -> Result<()> {
    let seed: u64 = rng.gen();
    loop {
        let mut trx = e.begin(Isolation::RepeatableRead);
        let mut r = SmallRng::seed_from_u64(seed);
        match body(Some(&mut trx), t, &mut r, rows).and_then(|()| trx.commit()) {
            Err(Error::Deadlock) | Err(Error::LockWaitTimeout(_)) => {
                retries.fetch_add(1, Ordering::Relaxed);
                trx.rollback()?;
            }
            other => return other,
        }
    }
}

/// Runs one event as autocommit statements.
pub fn autocommit(t: &Table, rng: &mut SmallRng, rows: u64) -> Result<()> {
    body(None, t, rng, rows)
}

/// 10 point selects, a 100-row range scan, an update of the indexed `k`,
/// an update of `c`, a delete and re-insert of one row.
fn body(mut trx: Option<&mut Trx>, t: &Table, rng: &mut SmallRng, rows: u64) -> Result<()> {
    let id = |rng: &mut SmallRng| Value::Int(rng.gen_range(1..=rows as i64));
    for _ in 0..10 {
        let pk = [id(rng)];
        match trx.as_deref_mut() {
            Some(trx) => t.get_tx(trx, &pk)?,
            None => t.get(&pk)?,
        };
    }
    let lo = rng.gen_range(1..=rows as i64);
    let (lower, upper) = ([Value::Int(lo)], [Value::Int(lo + 99)]);
    let (lower, upper) = (Bound::Included(&lower[..]), Bound::Included(&upper[..]));
    let mut c = match trx.as_deref_mut() {
        Some(trx) => t.scan_tx(trx, IndexRef::Primary, lower, upper, Direction::Forward)?,
        None => t.scan(IndexRef::Primary, lower, upper, Direction::Forward)?,
    };
    while c.next()?.is_some() {}
    drop(c); // the statement ends: its view closes
    let k = rng.gen_range(1..=rows as i64);
    let set_k = |o: &[Value]| Ok(vec![o[0].clone(), Value::Int(k), o[2].clone(), o[3].clone()]);
    let pk = [id(rng)];
    match trx.as_deref_mut() {
        Some(trx) => drop(t.update_tx(trx, &pk, set_k)?),
        None => drop(t.update_with(&pk, set_k)?),
    }
    let new_c = super::rw_bench::row(rng, 0, rows).swap_remove(2);
    let set_c = |o: &[Value]| Ok(vec![o[0].clone(), o[1].clone(), new_c.clone(), o[3].clone()]);
    let pk = [id(rng)];
    match trx.as_deref_mut() {
        Some(trx) => drop(t.update_tx(trx, &pk, set_c)?),
        None => drop(t.update_with(&pk, set_c)?),
    }
    let victim = rng.gen_range(1..=rows as i64);
    match trx.as_deref_mut() {
        Some(trx) => t.delete_tx(trx, &[Value::Int(victim)])?,
        None => t.delete(&[Value::Int(victim)])?,
    };
    let r = super::rw_bench::row(rng, victim, rows);
    let inserted = match trx {
        Some(trx) => t.insert_tx(trx, r),
        None => t.insert(r),
    };
    match inserted {
        Ok(_) | Err(Error::DuplicateKey { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}
