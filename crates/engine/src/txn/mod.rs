//! Transactions: the row lock system ([`lock`]), transaction ids with MVCC
//! read views ([`view`]), undo log storage ([`undo`]), the record header and
//! undo record format ([`record`]), the history list purge works from
//! ([`purge`]) and statement interrupts that end lock waits ([`interrupt`]). How table operations use them (locking, undo logging,
//! consistent reads, rollback, purge) is in `table/`.

pub mod interrupt;
pub mod lock;
pub mod purge;
pub mod record;
pub mod rsegs;
pub mod undo;
pub mod view;

/// A transaction's id: increasing, never reused (also across restarts).
pub type TrxId = u64;

/// `transaction_isolation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Isolation {
    /// Mapped to READ COMMITTED (quire never reads uncommitted versions).
    ReadUncommitted,
    /// A fresh snapshot per statement; locking reads take no gap locks.
    ReadCommitted,
    /// One snapshot per transaction; locking reads take next-key locks.
    #[default]
    RepeatableRead,
    /// REPEATABLE READ whose plain reads are locking reads in share mode.
    Serializable,
}
