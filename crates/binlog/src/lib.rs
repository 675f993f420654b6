//! quire's binary log: MySQL 8.0's v4 format (docs/FORMAT.md "Binary
//! log"), written at commit by the SQL layer.
//!
//! - `crc`: zlib's CRC-32, the events' checksum;
//! - `event`: framing and the control events (FDE, PREVIOUS_GTIDS,
//!   GTID / ANONYMOUS_GTID, QUERY, XID, ROTATE, STOP);
//! - `column`: column types, TABLE_MAP metadata and values as MySQL
//!   encodes them;
//! - `rows`: TABLE_MAP and WRITE/UPDATE/DELETE_ROWS v2;
//! - `gtid`: GTIDs and GTID sets (text and binary forms);
//! - `gtid_files`: `gtid_executed` and `gtid_purged` read back from the
//!   files at open;
//! - `log`: files, index, group commit, rotation, purge;
//! - `recover`: the torn tail of the last file cut at open;
//! - `order`: the engine's commits in log order;
//! - `follow`: the durable end replicas may be sent, and waiting for it;
//! - `dump`: a dump thread's reading of the log (COM_BINLOG_DUMP);
//! - `reconcile`: the log cut back to the engine's last logged commit at
//!   open;
//! - `decode`: events read back (a replica's applier): control events,
//!   TABLE_MAP and row images decoded by the map's types and metadata;
//! - `relay`: a replica's relay log, the source's events appended as
//!   received.
//!
//! A crate of its own (not a module of `quire-sql`): it depends only on
//! the engine's row types, so it builds and tests apart from the SQL
//! layer, and a replication crate can read its files without the SQL
//! layer.

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod column;
pub mod crc;
pub mod decode;
pub mod dump;
pub mod event;
pub mod follow;
pub mod gtid;
pub mod gtid_files;
pub mod log;
mod order;
pub mod reconcile;
pub mod recover;
pub mod relay;
pub mod rows;

pub use dump::{DumpEnd, DumpOut, DumpRequest};
pub use event::{Checksum, Events, Frame, QueryEvent};
pub use gtid::{Gtid, GtidSet, Uuid};
pub use log::{file_number, BinLog, GtidMode, GtidNext, LogError, LogFile, Options, Position};
pub use rows::{LoggedTable, RowMetadata, RowPair, RowsKind};
