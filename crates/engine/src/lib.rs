//! quire-engine: the storage engine.
//!
//! Layers, each depending only on those above it in this list:
//! - [`page`]: the page format every page shares (id, LSN, checksum).
//! - [`sync`]: latches, optimistic page views, striped counters.
//! - [`space::files`]: open tablespace files and page I/O.
//! - [`buffer`]: the buffer pool (instances, page table, LRU, flush list).
//! - [`mtr`]: mini-transactions, the unit of atomic page change.
//! - [`space`]: space headers and page allocation.
//! - [`btree`]: B+trees (clustered and secondary indexes).
//! - [`row`]: column types, values, memcomparable keys, row encoding.
//! - [`table`]: the catalog and the embedded table API ([`Engine`]).

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod btree;
pub mod buffer;
pub mod config;
pub mod dblwr;
mod error;
pub mod fsyncs;
pub mod ibuf;
mod ids;
pub mod log;
pub mod mtr;
pub mod page;
pub mod row;
pub mod space;
pub mod sync;
pub mod table;
pub mod txn;
pub mod wait;

pub use config::{EngineConfig, ShutdownMode};
pub use error::{Error, Result};
pub use ids::{Lsn, PageId, PageNo, SpaceId, SYSTEM_SPACE};
pub use table::{Engine, Table};
