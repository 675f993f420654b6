//! The driver's own MySQL client: just the protocol a sysbench-style load
//! needs, so that the client is never the bottleneck of a benchmark.
//!
//! - `packet`: framing and field codecs, ERR / OK / EOF packets;
//! - `auth`: the handshake (mysql_native_password, and the
//!   caching_sha2_password fast path);
//! - `command`: COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE encoders;
//! - `reply`: a reply parsed incrementally as bytes arrive, counting rows
//!   and catching errors, with or without CLIENT_DEPRECATE_EOF;
//! - `conn`: a blocking connection for setup (login, prepare) and tests.
//!
//! Nothing here allocates per statement: commands are encoded into
//! buffers the caller reuses, and replies are parsed in place.

pub mod auth;
pub mod command;
pub mod conn;
pub mod packet;
pub mod reply;

pub use command::Param;
pub use conn::{Conn, ConnectOptions, Prepared};
pub use packet::{ServerError, WireError};
pub use reply::{Outcome, Reply};

/// The retryable errors: sysbench's usual `--mysql-ignore-errors=1213,1205`
/// (deadlock, lock wait timeout).
pub fn retryable(e: &ServerError) -> bool {
    matches!(e.code, 1213 | 1205)
}
