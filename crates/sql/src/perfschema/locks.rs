//! `data_locks` and `data_lock_waits`: the row locks the engine's lock
//! table holds and the waits between them, as InnoDB shows them in MySQL
//! 8.0 (LOCK_MODE `X`, `S,REC_NOT_GAP`, `X,GAP`, `X,GAP,INSERT_INTENTION`;
//! LOCK_DATA the key's values, `supremum pseudo-record` past the last).
//!
//! quire has no table-level intention locks (InnoDB's TABLE IX rows): its
//! tables are protected by metadata locks outside the engine, so only
//! RECORD locks are listed. A lock's ENGINE_LOCK_ID is
//! `<trx id>:<index id>:<key hash>`, the same for a request in both
//! tables.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use quire_engine::row::Value;
use quire_engine::txn::lock::{LockKey, LockKind, LockMode};
use quire_engine::txn::TrxId;

use crate::session::Session;

fn key_hash(key: &LockKey) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

fn lock_id(trx: TrxId, key: &LockKey) -> String {
    format!("{trx}:{}:{:016x}", key.index, key_hash(key))
}

/// OBJECT_INSTANCE_BEGIN: a number naming the request.
fn instance(trx: TrxId, key: &LockKey) -> u64 {
    key_hash(key) ^ trx.rotate_left(32)
}

fn mode_text(mode: LockMode, kind: LockKind) -> String {
    let m = match mode {
        LockMode::S => "S",
        LockMode::X => "X",
    };
    let k = match kind {
        LockKind::NextKey => "",
        LockKind::Record => ",REC_NOT_GAP",
        LockKind::Gap => ",GAP",
        LockKind::InsertIntention => ",GAP,INSERT_INTENTION",
    };
    format!("{m}{k}")
}

/// Who runs each transaction: its performance_schema THREAD_ID.
fn threads_of(s: &Session) -> HashMap<TrxId, u64> {
    let by_connection: HashMap<u64, u64> = quire_engine::wait::threads()
        .into_iter()
        .filter(|t| t.processlist_id != 0)
        .map(|t| (t.processlist_id, t.thread_id))
        .collect();
    s.engine()
        .txn()
        .trx_sys
        .active_list()
        .into_iter()
        .filter_map(|(trx, owner)| by_connection.get(&u64::from(owner)).map(|t| (trx, *t)))
        .collect()
}

/// (schema, table, index, lock data) of a lock key, looked up among the
/// engine's open tables (cached per index by the caller).
fn object_of(s: &Session, key: &LockKey) -> Option<(String, String, String, String)> {
    let engine = s.engine();
    for name in engine.table_names() {
        let Ok(t) = engine.table(&name) else { continue };
        if let Some((index, data)) = t.lock_key_text(key.index, key.key.as_deref()) {
            let (db, table) = name.split_once('/').unwrap_or(("", name.as_str()));
            return Some((db.to_string(), table.to_string(), index, data));
        }
    }
    None
}

fn opt_u(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::UInt)
}

fn text(v: &str) -> Value {
    Value::Str(v.to_string())
}

/// data_locks: one row per lock request, granted or waiting. Only an
/// administrator sees other connections' locks (as PROCESS gates it in
/// MySQL); others see their own.
pub fn data_locks(s: &Session) -> Vec<Vec<Value>> {
    let threads = threads_of(s);
    let mine = own_trx(s);
    let admin = crate::kill::is_admin(s);
    let mut out = Vec::new();
    for l in s.engine().txn().locks.snapshot() {
        if !admin && Some(l.trx) != mine {
            continue;
        }
        let obj = object_of(s, &l.key);
        let (db, table, index, data) = match obj {
            Some((d, t, i, data)) => (text(&d), text(&t), text(&i), text(&data)),
            // Its table was dropped meanwhile.
            None => (Value::Null, Value::Null, Value::Null, Value::Null),
        };
        out.push(vec![
            text("INNODB"),
            Value::Str(lock_id(l.trx, &l.key)),
            Value::UInt(l.trx),
            opt_u(threads.get(&l.trx).copied()),
            Value::Null, // EVENT_ID: quire keeps no event history
            db,
            table,
            Value::Null,
            Value::Null,
            index,
            Value::UInt(instance(l.trx, &l.key)),
            text("RECORD"),
            Value::Str(mode_text(l.mode, l.kind)),
            text(if l.waiting { "WAITING" } else { "GRANTED" }),
            data,
        ]);
    }
    out
}

/// data_lock_waits: one row per (waiting request, transaction whose lock
/// on the same key it waits for).
pub fn data_lock_waits(s: &Session) -> Vec<Vec<Value>> {
    let threads = threads_of(s);
    let mine = own_trx(s);
    let admin = crate::kill::is_admin(s);
    let mut out = Vec::new();
    for w in s.engine().txn().locks.waits() {
        if !admin && Some(w.trx) != mine {
            continue;
        }
        for &b in &w.blockers {
            out.push(vec![
                text("INNODB"),
                Value::Str(lock_id(w.trx, &w.key)),
                Value::UInt(w.trx),
                opt_u(threads.get(&w.trx).copied()),
                Value::Null,
                Value::UInt(instance(w.trx, &w.key)),
                Value::Str(lock_id(b, &w.key)),
                Value::UInt(b),
                opt_u(threads.get(&b).copied()),
                Value::Null,
                Value::UInt(instance(b, &w.key)),
            ]);
        }
    }
    out
}

/// The running transaction of `s`, if it has an id.
fn own_trx(s: &Session) -> Option<TrxId> {
    let me = s.connection_id;
    s.engine().txn().trx_sys.active_list().into_iter().find(|(_, owner)| *owner == me).map(|(t, _)| t)
}
