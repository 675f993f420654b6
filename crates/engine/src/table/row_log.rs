//! The row changes a transaction made, kept for the binary log.
//!
//! A [`Trx`] keeps them only when asked ([`Trx::keep_row_log`]): the SQL
//! layer asks when `log_bin` is on, so with the binary log off the only
//! cost on the write path is one `Option` test per row change.
//!
//! Each change is the table's space id and the encoded row (the engine's
//! row codec, `row/codec.rs`) before and after: an INSERT has only an
//! after image, a DELETE only a before image, an UPDATE both. The images
//! are the very bytes the row write put in (or found in) the clustered
//! record, so every path that changes rows (INSERT, REPLACE, ON DUPLICATE
//! KEY UPDATE, LOAD DATA, FOREIGN KEY cascades, multi-table DML) is caught
//! in one place: `table/dml.rs`'s three row writes.
//!
//! Invariants:
//! 1. Changes are in the order the rows were written.
//! 2. Each change remembers how many undo records the transaction had
//!    written once it was made, so a statement rollback or ROLLBACK TO
//!    SAVEPOINT drops exactly the changes it undid; a full rollback or a
//!    commit empties the log (the SQL layer takes it before commit).

use super::trx::Trx;

/// One row change: space id and the encoded row before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowChange {
    /// The table's space id (`Table::space_id`).
    pub space_id: u32,
    /// The row before the change (UPDATE, DELETE).
    pub before: Option<Vec<u8>>,
    /// The row after the change (INSERT, UPDATE).
    pub after: Option<Vec<u8>>,
    /// The transaction's undo record count once this change was made.
    undo_count: usize,
}

/// The row changes of one transaction, oldest first.
#[derive(Clone, Debug, Default)]
pub struct RowLog {
    changes: Vec<RowChange>,
    /// The bytes of the images kept (`max_binlog_cache_size`).
    bytes: u64,
}

impl RowLog {
    pub fn changes(&self) -> &[RowChange] {
        &self.changes
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    pub(super) fn clear(&mut self) {
        self.changes.clear();
        self.bytes = 0;
    }

    fn size(c: &RowChange) -> u64 {
        (c.before.as_ref().map_or(0, Vec::len) + c.after.as_ref().map_or(0, Vec::len)) as u64
    }

    /// Drops the changes a rollback to `undo_count` records undid.
    pub(super) fn truncate_to_undo(&mut self, undo_count: usize) {
        while self.changes.last().is_some_and(|c| c.undo_count > undo_count) {
            if let Some(c) = self.changes.pop() {
                self.bytes -= Self::size(&c);
            }
        }
    }
}

impl Trx {
    /// Starts (or stops) keeping the row changes of this transaction and
    /// the following ones. Turning it on in the middle of a transaction
    /// keeps only the changes from then on.
    pub fn keep_row_log(&mut self, on: bool) {
        match (on, self.row_log.is_some()) {
            (true, false) => self.row_log = Some(RowLog::default()),
            (false, true) => self.row_log = None,
            _ => {}
        }
    }

    /// Takes the row changes made so far (the caller logs them before
    /// committing); the log stays on, empty.
    pub fn take_row_log(&mut self) -> Option<RowLog> {
        self.row_log.as_mut().map(std::mem::take)
    }

    /// The bytes of row images kept so far (0 when none are kept).
    pub fn row_log_bytes(&self) -> u64 {
        self.row_log.as_ref().map_or(0, |l| l.bytes)
    }

    /// Records a row change (a no-op unless the log is kept).
    #[inline]
    pub(super) fn log_row(&mut self, space_id: u32, before: Option<&[u8]>, after: Option<&[u8]>) {
        if self.row_log.is_none() {
            return;
        }
        let undo_count = self.undo_count();
        if let Some(l) = &mut self.row_log {
            let c = RowChange {
                space_id,
                before: before.map(<[u8]>::to_vec),
                after: after.map(<[u8]>::to_vec),
                undo_count,
            };
            l.bytes += RowLog::size(&c);
            l.changes.push(c);
        }
    }

    /// Turns the last two changes, a DELETE then an INSERT of one table
    /// (an UPDATE that changed the primary key), into one UPDATE, as
    /// MySQL logs it.
    pub(super) fn log_merge_key_change(&mut self) {
        let Some(l) = &mut self.row_log else { return };
        let n = l.changes.len();
        if n < 2 {
            return;
        }
        let (del, ins) = (&l.changes[n - 2], &l.changes[n - 1]);
        if del.space_id != ins.space_id || del.after.is_some() || ins.before.is_some() {
            return;
        }
        let ins = l.changes.pop().expect("two changes");
        let del = l.changes.last_mut().expect("two changes");
        del.after = ins.after;
        del.undo_count = ins.undo_count;
    }
}

impl super::Engine {
    /// The open table whose space id is `space_id` (the tables a
    /// [`RowLog`] names).
    pub fn table_by_space_id(&self, space_id: u32) -> Option<std::sync::Arc<super::Table>> {
        self.txn().table(space_id)
    }
}
