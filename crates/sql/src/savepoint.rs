//! SQL savepoints: `SAVEPOINT name`, `ROLLBACK [WORK] TO [SAVEPOINT]
//! name`, `RELEASE SAVEPOINT name`.
//!
//! A savepoint is a name and an engine [`Savepoint`] (how many undo
//! records the transaction had written); rolling back to it applies the
//! undo records written since, newest first, exactly as a failed
//! statement is undone (`Trx::rollback_to`). Nothing new is logged: the
//! undone records stay in the undo log, and recovery and purge recognise
//! them by the row's roll pointer and skip them.
//!
//! Invariants (MariaDB 10.11's `trans_savepoint` & co., checked by
//! `tests/savepoints.rs` against it):
//! 1. The list is ordered oldest first; names compare case-insensitively
//!    and are unique: setting an existing name moves it to the end.
//! 2. ROLLBACK TO keeps the named savepoint and drops the later ones;
//!    RELEASE drops the named one and the later ones; an unknown name is
//!    1305. Row locks taken after the savepoint are kept (InnoDB's rule).
//! 3. The list lives only inside a transaction (BEGIN, or autocommit=0):
//!    COMMIT, ROLLBACK, implicit commits and a deadlock's rollback clear
//!    it; under autocommit without BEGIN, SAVEPOINT answers OK and keeps
//!    nothing (MariaDB's). A session that never uses a savepoint pays one
//!    empty `Vec::clear` per transaction end.

use quire_engine::table::Savepoint;

use crate::error::{Result, SqlError};
use crate::session::Session;

/// The session's savepoints, oldest first.
#[derive(Default)]
pub(crate) struct Savepoints(Vec<(String, Savepoint)>);

impl Savepoints {
    fn find(&self, name: &str) -> Option<usize> {
        let low = name.to_lowercase();
        self.0.iter().position(|(n, _)| n.to_lowercase() == low)
    }

    /// SAVEPOINT: a name set again moves to the end, at the new point.
    fn set(&mut self, name: &str, at: Savepoint) {
        if let Some(i) = self.find(name) {
            self.0.remove(i);
        }
        self.0.push((name.to_string(), at));
    }

    /// ROLLBACK TO: the point to undo to; later savepoints go.
    fn rollback_to(&mut self, name: &str) -> Result<Savepoint> {
        let i = self.find(name).ok_or_else(|| not_found(name))?;
        self.0.truncate(i + 1);
        Ok(self.0[i].1)
    }

    /// RELEASE: the savepoint and the later ones go.
    fn release(&mut self, name: &str) -> Result<()> {
        let i = self.find(name).ok_or_else(|| not_found(name))?;
        self.0.truncate(i);
        Ok(())
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}

/// 1305 ER_SP_DOES_NOT_EXIST, as MariaDB words it for savepoints.
fn not_found(name: &str) -> SqlError {
    SqlError::new(1305, "42000", format!("SAVEPOINT {name} does not exist"))
}

impl Session {
    /// SAVEPOINT name.
    pub(crate) fn set_savepoint(&mut self, name: &str) {
        if self.autocommit() && !self.in_txn {
            return; // outside a transaction: accepted and gone at once
        }
        // Under autocommit=0 before the first statement there is no
        // engine transaction yet: the savepoint is its start.
        let at = self.trx.as_ref().map_or(Savepoint::START, |t| t.savepoint());
        self.savepoints.set(name, at);
    }

    /// ROLLBACK TO SAVEPOINT name: the changes made since are undone, the
    /// transaction and its locks stay.
    pub(crate) fn rollback_to_savepoint(&mut self, name: &str) -> Result<()> {
        let sp = self.savepoints.rollback_to(name)?;
        let Some(t) = self.trx.as_mut() else { return Ok(()) };
        if let Err(e) = t.rollback_to(sp) {
            // Half undone: the whole transaction goes, as a failed
            // statement rollback does.
            let _ = self.rollback();
            return Err(e.into());
        }
        Ok(())
    }

    /// RELEASE SAVEPOINT name.
    pub(crate) fn release_savepoint(&mut self, name: &str) -> Result<()> {
        self.savepoints.release(name)
    }
}
