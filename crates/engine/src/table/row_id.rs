//! The row id counter: the hidden `DB_ROW_ID` of tables without a usable
//! key (`ClusterKey::RowId`), one counter for the whole engine as
//! InnoDB's `dict_sys.row_id`.
//!
//! Invariants:
//! 1. Every row id handed out is below the mark persisted in the system
//!    space header (`SYS_ROW_ID_MARK`, docs/FORMAT.md). The mark moves
//!    `ROW_ID_MARK_STEP` past an id *before* that id is returned, through
//!    a mini-transaction whose redo precedes every row change that can
//!    carry the id; so a recovered engine, which starts counting at the
//!    mark, never hands out an id some row (committed or not) holds.
//!    (InnoDB writes its counter every 256 ids and adds 256 at recovery:
//!    the same argument with the step added on the other side.)
//! 2. Ids are unique, not dense: a restart skips to the mark, a failed
//!    insert loses its id.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::buffer::BufferPool;
use crate::{space, Result, SYSTEM_SPACE};

/// System header field: every row id handed out is below it.
pub(crate) const SYS_ROW_ID_MARK: usize = 92;
/// How far the persisted mark moves at a time.
const ROW_ID_MARK_STEP: u64 = 4096;

pub(crate) struct RowIdCounter {
    /// The next id to hand out.
    next: AtomicU64,
    /// The persisted mark (invariant 1); taken to move it.
    mark: crate::wait::Mutex<u64>,
    /// A copy of `mark` read without the mutex.
    mark_fast: AtomicU64,
}

impl RowIdCounter {
    /// A counter resuming at the persisted `mark` (0 in a data directory
    /// made before row ids existed: ids then start at 1).
    pub(crate) fn new(mark: u64) -> Self {
        let mark = mark.max(1);
        Self {
            next: AtomicU64::new(mark),
            mark: crate::wait::Mutex::new(crate::wait::Instrument::RowIdCounter, mark),
            mark_fast: AtomicU64::new(mark),
        }
    }

    /// A new row id, after the persisted mark is above it.
    pub(crate) fn assign(&self, pool: &BufferPool) -> Result<u64> {
        let id = self.next.fetch_add(1, Ordering::AcqRel);
        if id < self.mark_fast.load(Ordering::Acquire) {
            return Ok(id);
        }
        let mut mark = self.mark.lock();
        if id >= *mark {
            let new = id + ROW_ID_MARK_STEP;
            space::set_owner_fields(pool, SYSTEM_SPACE, &[(SYS_ROW_ID_MARK, &new.to_le_bytes())])?;
            *mark = new;
            self.mark_fast.store(new, Ordering::Release);
        }
        Ok(id)
    }

    /// The persisted mark.
    #[allow(dead_code)]
    pub(crate) fn mark(&self) -> u64 {
        *self.mark.lock()
    }
}
