//! Transactions: the row lock system ([`lock`]), transaction ids with MVCC
//! read views ([`view`]), undo log storage ([`undo`]), the record header and
//! undo record format ([`record`]), the history list purge works from
//! ([`purge`]) and statement interrupts that end lock waits ([`interrupt`]). How table operations use them (locking, undo logging,
//! consistent reads, rollback, purge) is in `table/`.

pub mod admission;
pub mod interrupt;
pub mod lock;
pub mod purge;
pub mod record;
pub mod rsegs;
pub mod trx_info;
pub mod undo;
pub mod view;

/// A transaction's id: increasing, never reused (also across restarts).
pub type TrxId = u64;

/// `transaction_isolation`, as InnoDB implements each level. The engine
/// decides what a consistent read sees and which locks a locking read
/// takes; turning SERIALIZABLE's plain reads into locking reads is the
/// caller's part (only it knows whether autocommit is on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Isolation {
    /// Consistent reads return each row's newest version, uncommitted
    /// changes included (no read view); locking reads and writes as READ
    /// COMMITTED (record locks, no gap locks).
    ReadUncommitted,
    /// A fresh snapshot per consistent read; locking reads take no gap
    /// locks.
    ReadCommitted,
    /// One snapshot per transaction, taken at its first consistent read;
    /// locking reads take next-key locks.
    #[default]
    RepeatableRead,
    /// REPEATABLE READ whose plain reads the SQL layer runs as share-mode
    /// locking reads when autocommit is off or a transaction was begun
    /// (InnoDB's rule); an autocommit SELECT stays a consistent read.
    Serializable,
}

impl Isolation {
    /// The `transaction_isolation` value naming the level.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadUncommitted => "READ-UNCOMMITTED",
            Isolation::ReadCommitted => "READ-COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE-READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}
