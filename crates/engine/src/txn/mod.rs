//! Transactions: the row lock system ([`lock`]) and transaction ids with
//! MVCC read views ([`view`]). Undo logs, consistent reads through them,
//! rollback and purge build on these (issue 4 continues).

pub mod lock;
pub mod undo;
pub mod view;

/// A transaction's id: increasing, never reused.
pub type TrxId = u64;
