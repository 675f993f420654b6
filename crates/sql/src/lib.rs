//! quire's SQL layer (`DESIGN.md`: sql/): the catalog of databases and
//! users, sessions, system variables, and statements parsed with
//! `sqlparser` (MySQL dialect), planned and executed against the engine.
//!
//! - `session`: a client's session; statement dispatch, transactions,
//!   plan caches.
//! - `query`, `dml`, `plan`, `expr`, `func`: SELECT / INSERT / UPDATE /
//!   DELETE of one table.
//! - `ddl`, `admin`, `catalog`: DDL, SHOW, accounts; `fk`: FOREIGN KEYs.
//! - `sysvars`: system variables.
//! - `diag`: the diagnostics area (SHOW WARNINGS, warning counts);
//!   `store`: values into columns, with MySQL's warnings or errors.
//! - `process`: the process list (KILL, SHOW PROCESSLIST) and statement
//!   interrupts (`max_execution_time`).
//! - `sink`: where result rows go as they are produced ([`RowSink`]).

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod admin;
pub mod alter;
pub mod assign;
pub(crate) mod auto_is_null;
pub mod binary;
pub mod binlog;
pub mod bit_literal;
pub mod catalog;
pub mod catalog_text;
pub mod check;
pub mod choice;
pub mod coercion;
pub mod compare_const;
pub mod cost;
pub mod create;
pub mod ddl;
pub mod defaults;
pub mod depth;
pub mod diag;
pub mod dml;
pub mod dml_order;
pub mod dynamic_sql;
pub mod error;
pub mod event;
pub mod explain;
pub mod expr;
pub mod filesort;
pub mod finish;
pub mod fk;
pub mod func;
pub mod general_log;
pub mod group_check;
mod having_alias;
pub mod hints;
pub mod infoschema;
pub mod init_connect;
pub mod innodb_status;
pub mod inset;
mod item_names;
pub mod json;
pub mod kill;
pub mod load;
pub mod locale;
mod lock_tables;
pub mod log_tables;
pub mod mathfunc;
pub mod multi_dml;
pub mod names;
pub mod normalize;
pub mod number_text;
pub mod optimize;
pub mod optimizer_switch;
pub mod password;
pub mod perfschema;
pub mod plan;
pub mod process;
pub mod query;
pub mod raw_literals;
pub mod read_only;
pub mod rel;
pub mod replica;
pub mod routine;
pub(crate) mod savepoint;
pub mod select_into;
pub mod session;
pub mod set_transaction;
pub mod sink;
pub mod slow_log;
pub mod snapshot;
pub mod statistics;
pub mod status;
pub mod store;
pub mod stored;
pub mod str_to_date;
pub mod strfunc;
pub mod sysvars;
pub mod table_lock;
pub mod temp_table;
pub mod temporal;
pub mod timeval;
pub mod timezone;
pub mod trigger;
pub mod upsert;
pub mod user_lock;
pub mod view;
pub mod view_dml;
pub mod yearbit;
pub mod zoneinfo;

pub use error::{Result, SqlError};
pub use plan::{ColMeta, MetaType};
pub use quire_engine::row::Value;
pub use session::{Session, Shared};
pub use sink::{Answers, Collect, Outcome, RowSink};

/// `version()`: what clients see (MySQL-compatible version first).
pub const VERSION: &str = sysvars::VERSION;

/// What a statement answers, held in memory: SHOW and the other
/// statements that build their rows (they reach the client through
/// [`sink::deliver`]), and [`Session::query`]'s collected answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Ok { affected: u64, last_insert_id: u64, info: String },
    Rows { columns: Vec<ColMeta>, rows: Vec<Vec<Value>> },
}

impl Output {
    pub fn ok() -> Self {
        Output::Ok { affected: 0, last_insert_id: 0, info: String::new() }
    }
}
