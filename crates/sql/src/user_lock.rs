//! User-level named locks: GET_LOCK(name, timeout), RELEASE_LOCK(name),
//! RELEASE_ALL_LOCKS(), IS_FREE_LOCK(name), IS_USED_LOCK(name).
//!
//! One server-wide table (`Shared::user_locks`) maps a name to the
//! connection holding it and how many times it took it (re-entrant: each
//! GET_LOCK counts, each RELEASE_LOCK gives one back). A waiter sleeps on
//! one condition variable, notified whenever a lock is freed, and wakes at
//! least every 100 ms to see KILL (its statement then fails with 1317) or
//! its deadline. A session's locks go when it disconnects (`Session`'s
//! drop) or at COM_RESET_CONNECTION; they are not transactional (COMMIT
//! and ROLLBACK keep them), as MySQL's.
//!
//! Values (MariaDB 10.11, checked against it by `tests/user_locks.rs`):
//! GET_LOCK 1 / 0 on timeout / NULL for a NULL or empty name or a NULL
//! timeout; RELEASE_LOCK 1 / 0 when another connection holds it / NULL
//! when nobody does; RELEASE_ALL_LOCKS the number of acquisitions given
//! back; IS_FREE_LOCK 1 / 0; IS_USED_LOCK the holder's connection id or
//! NULL. Names compare exactly (MariaDB's; MySQL 8.0 folds case and
//! refuses names over 64 characters with 3057). A negative timeout waits
//! forever, as MySQL 8.0 documents (MariaDB 10.11 answers NULL): the
//! brief asks for MySQL's. Not done: MySQL's deadlock detection between
//! user locks (3058); such waits end at their timeouts.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use quire_engine::row::Value;

use crate::error::Result;
use crate::query::SessionEnv;

/// The server's user locks.
#[derive(Default)]
pub struct UserLocks {
    held: Mutex<HashMap<String, Held>>,
    freed: Condvar,
}

struct Held {
    owner: u32,
    count: u64,
}

/// The functions this module answers.
pub const FUNCS: &[(&str, usize, usize)] = &[
    ("get_lock", 2, 2),
    ("release_lock", 1, 1),
    ("release_all_locks", 0, 0),
    ("is_free_lock", 1, 1),
    ("is_used_lock", 1, 1),
];

/// Whether `name` is one of this module's functions.
pub fn is_lock_func(name: &str) -> bool {
    FUNCS.iter().any(|(n, ..)| *n == name)
}

fn name_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        v => Some(crate::expr::as_string(v)).filter(|s| !s.is_empty()),
    }
}

impl UserLocks {
    /// Runs one of [`FUNCS`] for connection `me` of `session`.
    pub fn call(&self, name: &str, args: &[Value], me: u32, session: &dyn SessionEnv) -> Result<Value> {
        match (name, args) {
            ("get_lock", [n, t]) => {
                let (Some(n), false) = (name_of(n), t.is_null()) else { return Ok(Value::Null) };
                let secs = crate::expr::to_decimal(t).map_or(0.0, |d| d.to_f64());
                let deadline = (secs >= 0.0).then(|| Instant::now() + Duration::from_secs_f64(secs.min(31_536_000.0)));
                self.get(&n, me, deadline, session)
            }
            ("release_lock", [n]) => Ok(name_of(n).map_or(Value::Null, |n| self.release(&n, me))),
            ("release_all_locks", []) => Ok(Value::Int(self.release_all(me) as i64)),
            ("is_free_lock", [n]) => {
                Ok(name_of(n).map_or(Value::Null, |n| Value::Int(i64::from(!self.held.lock().contains_key(&n)))))
            }
            ("is_used_lock", [n]) => Ok(name_of(n)
                .and_then(|n| self.held.lock().get(&n).map(|h| Value::UInt(u64::from(h.owner))))
                .unwrap_or(Value::Null)),
            _ => Err(crate::error::SqlError::internal(format!("user lock function {name}"))),
        }
    }

    fn get(&self, name: &str, me: u32, deadline: Option<Instant>, session: &dyn SessionEnv) -> Result<Value> {
        let mut held = self.held.lock();
        loop {
            match held.get_mut(name) {
                None => {
                    held.insert(name.to_string(), Held { owner: me, count: 1 });
                    return Ok(Value::Int(1));
                }
                Some(h) if h.owner == me => {
                    h.count += 1;
                    return Ok(Value::Int(1));
                }
                Some(_) => {}
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Ok(Value::Int(0));
            }
            // Woken when a lock is freed; at least every 100 ms for KILL.
            let step = now + Duration::from_millis(100);
            let until = deadline.map_or(step, |d| d.min(step));
            quire_engine::txn::admission::blocking(quire_engine::wait::Instrument::UserLock, || {
                self.freed.wait_until(&mut held, until)
            });
            session.check_interrupt()?;
        }
    }

    fn release(&self, name: &str, me: u32) -> Value {
        let mut held = self.held.lock();
        let Some(h) = held.get_mut(name) else { return Value::Null };
        if h.owner != me {
            return Value::Int(0);
        }
        h.count -= 1;
        if h.count == 0 {
            held.remove(name);
            self.freed.notify_all();
        }
        Value::Int(1)
    }

    /// Gives back every lock `me` holds; how many acquisitions that was.
    pub fn release_all(&self, me: u32) -> u64 {
        let mut held = self.held.lock();
        let mut n = 0;
        held.retain(|_, h| {
            if h.owner == me {
                n += h.count;
                false
            } else {
                true
            }
        });
        if n > 0 {
            self.freed.notify_all();
        }
        n
    }
}
