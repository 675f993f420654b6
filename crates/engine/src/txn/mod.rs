//! Transactions. This module holds the row lock system ([`lock`]); undo,
//! read views and purge build on it (issue 4 continues).

pub mod lock;

/// A transaction's id: increasing, never reused.
pub type TrxId = u64;
