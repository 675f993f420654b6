//! TPC-C in `quire bench`: the nine tables, the initial population, the
//! five transactions in the standard mix, and the consistency conditions,
//! written from the TPC-C specification (v5.11: clause 1.3 for the
//! tables, 4.3 for the population, 2.4 to 2.8 for the transactions, 3.3.2
//! for the consistency conditions). Runs against any MySQL-compatible
//! server; the columns and indexes are sysbench-tpcc's, so results are
//! comparable with it.
//!
//! - `schema`: the tables, their keys and foreign keys, and [`Scale`];
//! - `rand`: NURand, last names, a-strings, data fields, money;
//! - `load`: the initial population over several connections;
//! - `input`: the mix and each transaction's input;
//! - `txn`: one terminal's transactions;
//! - `run`: the terminals, timed and sampled like the sysbench driver's
//!   points (the same report, charts and CSV, plus tpmC);
//! - `check`: the consistency conditions (3.3.2.1 to 3.3.2.10 and
//!   3.3.2.12) as SQL.

pub mod check;
pub mod input;
pub mod load;
pub mod rand;
pub mod run;
pub mod schema;
pub mod txn;

pub use check::Outcome;
pub use run::{run, TpccRun};
pub use schema::Scale;

use crate::error::Result;
use crate::target::TargetSpec;

/// Runs the consistency conditions against `spec`'s database.
pub fn check(spec: &TargetSpec) -> Result<Vec<Outcome>> {
    let mut conn = spec.connect(true, 4)?;
    check::run(&mut conn)
}
