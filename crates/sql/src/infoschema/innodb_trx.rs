//! INNODB_TRX: one row per transaction that holds an id, that is one that
//! has locked or written (InnoDB's read-write and locking transactions),
//! and per multi-statement transaction (START TRANSACTION, or autocommit
//! off) that has only read, from its first read view on, from the
//! engine's live figures (`engine::txn::trx_info`), its lock waits
//! (`LockSys::waits`) and the process list.
//!
//! A transaction that has only read has no id: its trx_id is MySQL 8.0's
//! printed id, its record's address with bit 48 set (`txn::view::print_id`:
//! above every real id, unique while it runs). MariaDB 10.11 prints 0
//! there; MySQL's number is kept because trx_id is the key monitoring
//! queries join and order on (several rows of 0 would merge). Its
//! trx_is_read_only is 1 under START TRANSACTION READ ONLY, else 0, as
//! both servers show.
//!
//! What quire does not have is shown as InnoDB shows its absence, never
//! as an invented measurement:
//! - an autocommit SELECT is not listed: registering each would cost
//!   every one an allocation and a map insert under the trx_sys mutex
//!   (InnoDB lists it while it runs, with `trx_autocommit_non_locking`
//!   1), so `trx_autocommit_non_locking` is 0 on every row;
//! - `trx_operation_state` is NULL (no per-operation text is kept);
//! - `trx_concurrency_tickets` is 0: tickets live in the running thread
//!   (`txn/admission.rs`), and none are used while
//!   `innodb_thread_concurrency` is 0, the default;
//! - `trx_unique_checks` is 1: quire always checks unique keys
//!   (`unique_checks` is accepted and has no effect);
//! - `trx_last_foreign_key_error` is NULL: the text is not kept;
//! - `trx_adaptive_hash_latched` / `_timeout` are 0: the adaptive hash
//!   index takes no latch (`btree/ahi.rs`);
//! - `trx_schedule_weight` is NULL: waiters are granted in arrival order,
//!   not by CATS weights.
//!
//! `trx_requested_lock_id` is `trx id:index id:key`, where the key is a
//! 64-bit FNV-1a hash of the locked key's bytes (or `supremum`): InnoDB's
//! `trx:space:page:heap_no` names a record by its place on a page, which
//! quire's locks (on keys, `txn/lock.rs`) do not have.

use std::collections::{HashMap, HashSet};

use quire_engine::row::{tz, Value};
use quire_engine::txn::lock::LockWaitInfo;
use quire_engine::txn::trx_info::TrxInfo;
use quire_engine::txn::Isolation;
use std::sync::atomic::Ordering::Relaxed;

use super::{s, u};
use crate::session::Session;

pub(super) fn rows(sess: &Session) -> Vec<Vec<Value>> {
    let e = sess.engine();
    let txn = e.txn();
    let active = txn.trx_sys.active_infos();
    if active.is_empty() {
        return Vec::new();
    }
    let waits = txn.locks.waits();
    let processes = sess.shared.processes.all();
    let tables = index_tables(sess, &active);
    let now_ms = wall_ms();
    let mut out = Vec::new();
    for (id, info) in active {
        // A transaction begun without figures (recovery's, internal ones).
        let Some(info) = info else { continue };
        let wait = waits.iter().find(|w| w.trx == id);
        let process = processes.iter().find(|p| p.id == info.owner).map(|p| p.row(true));
        let running = process.as_ref().is_some_and(|p| matches!(p.command, "Query" | "Execute"));
        let locked = info.locked_indexes();
        let count_tables = |this_statement: bool| {
            let names: HashSet<&str> = locked
                .iter()
                .filter(|(_, now)| !this_statement || *now)
                .filter_map(|(i, _)| tables.get(i).map(String::as_str))
                .collect();
            names.len() as u64
        };
        let lock_structs = info.lock_structs.load(Relaxed);
        let rows_modified = info.rows_modified.load(Relaxed);
        out.push(vec![
            u(id),
            s(if wait.is_some() { "LOCK WAIT" } else { "RUNNING" }),
            datetime_ms(info.started_ms),
            wait.map_or(Value::Null, |w| Value::Str(lock_id(w))),
            wait.map_or(Value::Null, |w| datetime_ms(now_ms.saturating_sub(w.since.elapsed().as_millis() as u64))),
            u(rows_modified + lock_structs),
            u(info.owner.into()),
            process.as_ref().and_then(|p| p.info.clone()).filter(|_| running).map_or(Value::Null, Value::Str),
            Value::Null,
            u(if running { count_tables(true) } else { 0 }),
            u(count_tables(false)),
            u(lock_structs),
            u(info.lock_memory_bytes.load(Relaxed)),
            u(info.rows_locked.load(Relaxed)),
            u(rows_modified),
            u(0),
            s(isolation_name(info.isolation)),
            Value::Int(1),
            Value::Int(info.foreign_key_checks.load(Relaxed).into()),
            Value::Null,
            Value::Int(0),
            u(0),
            Value::Int(info.read_only.into()),
            Value::Int(0),
            Value::Null,
        ]);
    }
    out
}

/// The table (`db/name`) of every index the listed transactions have
/// locked keys of.
fn index_tables(sess: &Session, active: &[(u64, Option<std::sync::Arc<TrxInfo>>)]) -> HashMap<u32, String> {
    let wanted: HashSet<u32> =
        active.iter().filter_map(|(_, i)| i.as_ref()).flat_map(|i| i.locked_indexes()).map(|(i, _)| i).collect();
    let mut out = HashMap::new();
    if wanted.is_empty() {
        return out;
    }
    let e = sess.engine();
    for name in e.table_names() {
        let Ok(t) = e.table(&name) else { continue };
        for ix in t.index_layout() {
            if wanted.contains(&ix.index_id) {
                out.insert(ix.index_id, name.clone());
            }
        }
        if out.len() == wanted.len() {
            break;
        }
    }
    out
}

/// InnoDB's words for the isolation levels (with spaces, as INNODB_TRX
/// prints them).
fn isolation_name(i: Isolation) -> &'static str {
    match i {
        Isolation::ReadUncommitted => "READ UNCOMMITTED",
        Isolation::ReadCommitted => "READ COMMITTED",
        Isolation::RepeatableRead => "REPEATABLE READ",
        Isolation::Serializable => "SERIALIZABLE",
    }
}

fn lock_id(w: &LockWaitInfo) -> String {
    let key = match &w.key.key {
        None => "supremum".to_string(),
        Some(k) => {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in k {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            format!("{h:016x}")
        }
    };
    format!("{}:{}:{key}", w.trx, w.key.index)
}

/// A wall-clock time in milliseconds since the epoch, in the session's
/// time zone.
pub(super) fn datetime_ms(ms: u64) -> Value {
    tz::from_unix_seconds((ms / 1000) as i64, 0).map_or(Value::Null, |dt| Value::DateTime(tz::utc_to_local(dt)))
}

pub(super) fn wall_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
