//! The MySQL client/server protocol, server side: packets, the v10
//! handshake and authentication, commands, and result sets in the text and
//! binary protocols. It knows nothing of SQL: a connection talks to a
//! [`Backend`] (users, sessions) and its [`Session`] (statements).
//!
//! The types in this file are the contract between the protocol and the
//! SQL layer; the modules below implement the protocol against it.

/// `SERVER_STATUS_IN_TRANS`.
pub const STATUS_IN_TRANS: u16 = 0x0001;
/// `SERVER_STATUS_AUTOCOMMIT`.
pub const STATUS_AUTOCOMMIT: u16 = 0x0002;
/// `SERVER_MORE_RESULTS_EXISTS`.
pub const STATUS_MORE_RESULTS: u16 = 0x0008;
/// `SERVER_STATUS_NO_INDEX_USED`.
pub const STATUS_NO_INDEX_USED: u16 = 0x0020;

/// Column types on the wire (`enum_field_types`).
pub mod column_type {
    pub const DECIMAL: u8 = 0x00;
    pub const TINY: u8 = 0x01;
    pub const SHORT: u8 = 0x02;
    pub const LONG: u8 = 0x03;
    pub const FLOAT: u8 = 0x04;
    pub const DOUBLE: u8 = 0x05;
    pub const NULL: u8 = 0x06;
    pub const TIMESTAMP: u8 = 0x07;
    pub const LONGLONG: u8 = 0x08;
    pub const INT24: u8 = 0x09;
    pub const DATE: u8 = 0x0a;
    pub const TIME: u8 = 0x0b;
    pub const DATETIME: u8 = 0x0c;
    pub const YEAR: u8 = 0x0d;
    pub const VARCHAR: u8 = 0x0f;
    /// MySQL 8.0's MYSQL_TYPE_JSON (MariaDB sends JSON as BLOB).
    pub const JSON: u8 = 0xf5;
    pub const BIT: u8 = 0x10;
    pub const NEWDECIMAL: u8 = 0xf6;
    pub const BLOB: u8 = 0xfc;
    pub const VAR_STRING: u8 = 0xfd;
    pub const STRING: u8 = 0xfe;
}

/// Column definition flags.
pub mod column_flag {
    pub const NOT_NULL: u16 = 0x0001;
    pub const PRI_KEY: u16 = 0x0002;
    pub const UNIQUE_KEY: u16 = 0x0004;
    pub const MULTIPLE_KEY: u16 = 0x0008;
    pub const BLOB: u16 = 0x0010;
    pub const UNSIGNED: u16 = 0x0020;
    pub const ZEROFILL: u16 = 0x0040;
    pub const BINARY: u16 = 0x0080;
    pub const ENUM: u16 = 0x0100;
    pub const AUTO_INCREMENT: u16 = 0x0200;
    pub const SET: u16 = 0x0800;
    pub const NO_DEFAULT_VALUE: u16 = 0x1000;
    pub const NUM: u16 = 0x8000;
}

/// Character sets (collation ids) on the wire.
pub mod charset {
    /// utf8mb4_general_ci.
    pub const UTF8MB4_GENERAL_CI: u16 = 45;
    /// utf8mb4_bin (computed JSON values, as MySQL 8.0 sends them).
    pub const UTF8MB4_BIN: u16 = 46;
    /// binary (numbers, dates).
    pub const BINARY: u16 = 63;
}

/// One column of a result set (Protocol::ColumnDefinition41).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDef {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    /// A collation id ([`charset`]).
    pub charset: u16,
    /// Display length.
    pub length: u32,
    /// A [`column_type`].
    pub column_type: u8,
    /// [`column_flag`]s.
    pub flags: u16,
    pub decimals: u8,
}

impl ColumnDef {
    /// A computed column (no table) of `column_type`.
    pub fn expr(name: &str, column_type: u8) -> Self {
        let text = matches!(
            column_type,
            column_type::VARCHAR | column_type::VAR_STRING | column_type::STRING | column_type::BLOB
        );
        Self {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.to_string(),
            org_name: String::new(),
            charset: if text { charset::UTF8MB4_GENERAL_CI } else { charset::BINARY },
            length: if text { 1024 } else { 21 },
            column_type,
            flags: 0,
            decimals: if matches!(column_type, column_type::DOUBLE | column_type::FLOAT) { 31 } else { 0 },
        }
    }
}

/// One value of a result row. The protocol encodes it for the column's
/// type: in text result sets every non-NULL cell as its SQL text; in binary
/// ones by [`ColumnDef::column_type`] (integers fixed-width, DOUBLE as
/// 8 bytes, DATE/DATETIME/TIMESTAMP as the length-prefixed structure,
/// strings and decimals as length-encoded strings).
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    /// A FLOAT column's value: printed with a single's 6 digits, sent as
    /// 4 bytes in binary rows.
    Float(f32),
    /// Strings, decimals (as their text), anything sent as bytes.
    Bytes(Vec<u8>),
    Date {
        year: u16,
        month: u8,
        day: u8,
    },
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    },
    /// TIME as a signed duration.
    Time {
        negative: bool,
        days: u32,
        hours: u8,
        minutes: u8,
        seconds: u8,
        micros: u32,
    },
}

/// A parameter of COM_STMT_EXECUTE, decoded from the binary protocol by the
/// type the client bound it with (types are remembered across executes
/// that do not resend them).
pub type Param = Cell;

/// An error reply (ERR packet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrPacket {
    /// MySQL error number, e.g. 1064.
    pub code: u16,
    /// SQLSTATE, five characters, e.g. "42000".
    pub state: [u8; 5],
    pub message: String,
}

impl ErrPacket {
    pub fn new(code: u16, state: &str, message: impl Into<String>) -> Self {
        let mut s = *b"HY000";
        if state.len() == 5 {
            s.copy_from_slice(state.as_bytes());
        }
        Self { code, state: s, message: message.into() }
    }
}

/// Where a session writes a command's answers as it produces them; the
/// connection frames them (column definitions, text or binary rows, EOF,
/// OK, ERR) into its buffered output, which is written out as it fills.
///
/// Per statement, in order: [`Replies::columns`], any [`Replies::row`]s,
/// then [`Replies::done`] (the result set's EOF); or `done` alone (an OK);
/// or [`Replies::error`] at any point, even after rows, which ends the
/// command's answer. `status` is the session's status flags, with
/// [`STATUS_MORE_RESULTS`] while another statement of the command follows.
/// A write that fails means the connection is gone: the session should
/// stop the statement and return the error.
pub trait Replies {
    /// A result set begins. An empty `columns` is no result set (a column
    /// count of 0 would read as OK): the statement's `done` is an OK.
    fn columns(&mut self, columns: Vec<ColumnDef>, status: u16) -> std::io::Result<()>;
    /// One row of the result set begun; a cell per column.
    fn row(&mut self, row: &[Cell]) -> std::io::Result<()>;
    /// The statement ended well: the result set's EOF carrying `warnings`,
    /// or, without a result set, the OK.
    fn done(&mut self, done: Done, status: u16) -> std::io::Result<()>;
    /// The statement failed: ERR (the command's last answer).
    fn error(&mut self, e: &ErrPacket) -> std::io::Result<()>;
    /// LOAD DATA LOCAL: the LOCAL INFILE request (0xFB and the file name)
    /// and a reader of the contents the client sends back, ended by its
    /// empty packet. `None`: the client did not set CLIENT_LOCAL_FILES.
    fn local_file(&mut self, _name: &str) -> std::io::Result<Option<Box<dyn std::io::Read + '_>>> {
        Ok(None)
    }
}

/// How a statement ended well: an OK's fields, or (after a result set)
/// the warnings its EOF carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Done {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub warnings: u16,
    pub info: String,
}

/// A statement's whole answer held in memory, for sessions that build it
/// before sending it ([`Reply::write_to`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        warnings: u16,
        info: String,
    },
    /// A result set; `warnings` goes in the EOF packet after the rows.
    Rows {
        columns: Vec<ColumnDef>,
        rows: Vec<Vec<Cell>>,
        warnings: u16,
    },
    Err(ErrPacket),
}

impl Reply {
    pub fn ok() -> Self {
        Reply::Ok { affected_rows: 0, last_insert_id: 0, warnings: 0, info: String::new() }
    }

    /// Writes this answer to `out`.
    pub fn write_to(self, out: &mut dyn Replies, status: u16) -> std::io::Result<()> {
        match self {
            Reply::Ok { affected_rows, last_insert_id, warnings, info } => {
                out.done(Done { affected_rows, last_insert_id, warnings, info }, status)
            }
            Reply::Rows { columns, rows, warnings } => {
                out.columns(columns, status)?;
                for r in &rows {
                    out.row(r)?;
                }
                out.done(Done { warnings, ..Done::default() }, status)
            }
            Reply::Err(e) => out.error(&e),
        }
    }
}

/// What COM_STMT_PREPARE answers (the statement id is the session's).
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    pub id: u32,
    /// Number of `?` parameters.
    pub params: u16,
    /// The result set's columns (empty for statements without one). The
    /// count must be right: sysbench counts reads by it.
    pub columns: Vec<ColumnDef>,
}

/// Stored password hashes of a user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Credentials {
    /// SHA1(SHA1(password)), for mysql_native_password; `None` for an
    /// empty password.
    pub native: Option<[u8; 20]>,
    /// SHA256(SHA256(password)), for the caching_sha2_password fast path;
    /// `None` for an empty password.
    pub sha2: Option<[u8; 32]>,
}

/// One client's session: its statements, transaction and settings.
pub trait Session: Send {
    /// COM_QUERY. Runs every statement of `sql` when `multi` (the client
    /// set CLIENT_MULTI_STATEMENTS or COM_SET_OPTION on), else only one (a
    /// second statement is a syntax error), writing each one's answer to
    /// `out` as it is produced. Stops at the first error: an error, if
    /// any, is the last answer. `Err`: writing to `out` failed.
    fn query(&mut self, sql: &str, multi: bool, out: &mut dyn Replies) -> std::io::Result<()>;
    /// COM_INIT_DB.
    fn init_db(&mut self, db: &str) -> Result<(), ErrPacket>;
    /// COM_STMT_PREPARE.
    fn prepare(&mut self, sql: &str) -> Result<Prepared, ErrPacket>;
    /// COM_STMT_EXECUTE, with one parameter per `?`: its one answer,
    /// written to `out` (rows in the binary protocol) as it is produced.
    fn execute(&mut self, id: u32, params: &[Param], out: &mut dyn Replies) -> std::io::Result<()>;
    /// COM_STMT_CLOSE (no reply).
    fn close_statement(&mut self, id: u32);
    /// COM_STMT_RESET.
    fn reset_statement(&mut self, id: u32) -> Result<(), ErrPacket>;
    /// COM_RESET_CONNECTION: roll back, drop prepared statements, reset
    /// session variables; the user and database stay.
    fn reset_connection(&mut self);
    /// Status flags for the next OK/EOF: [`STATUS_AUTOCOMMIT`],
    /// [`STATUS_IN_TRANS`].
    fn status_flags(&self) -> u16;
    /// The current database (for the handshake's reply and COM_INIT_DB).
    fn database(&self) -> Option<String>;
    /// COM_STATISTICS' text (server-wide uptime and questions); `None`:
    /// the connection answers with its own counts.
    fn statistics(&self) -> Option<String> {
        None
    }
    /// The capability flags the client sent in its handshake response,
    /// told once before the first command. A session whose answers depend
    /// on them (CLIENT_FOUND_ROWS changes UPDATE's affected rows) keeps
    /// what it needs; one whose answers do not may leave this empty.
    fn client_capabilities(&mut self, _caps: u32) {}
    /// How long the connection may idle between commands
    /// (`wait_timeout`); `None`: for ever.
    fn idle_timeout(&self) -> Option<std::time::Duration> {
        None
    }
    /// The session's `thread_pool_priority` (`high`, `low` or `auto`);
    /// `None`: the global's.
    fn thread_pool_priority(&self) -> Option<&'static str> {
        None
    }
    /// How long a write of an answer may block on a client that does not
    /// read (`net_write_timeout`); `None`: for ever. A write that times
    /// out ends the connection.
    fn write_timeout(&self) -> Option<std::time::Duration> {
        None
    }
    /// The client announced CLIENT_INTERACTIVE: the session's
    /// `wait_timeout` becomes `interactive_timeout` (as MySQL does).
    fn set_interactive(&mut self) {}
    /// KILL CONNECTION hit this session: the connection closes after the
    /// command being answered.
    fn killed(&self) -> bool {
        false
    }
    /// COM_REGISTER_SLAVE (`replication.rs`): OK or ERR.
    fn register_replica(&mut self, _r: &replication::RegisterReplica) -> Result<(), ErrPacket> {
        Err(conn::unknown_command())
    }
    /// COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID: sends the binary log's
    /// events to `out` until the dump ends; the connection closes after.
    fn binlog_dump(
        &mut self,
        _d: &replication::BinlogDump,
        _out: &mut dyn replication::EventSink,
    ) -> replication::DumpOutcome {
        replication::DumpOutcome::Error(conn::unknown_command())
    }
}

/// How a connection ended, for the server's counters
/// (`Aborted_connects`, `Aborted_clients`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnEnd {
    /// The client logged in and left with COM_QUIT.
    Quit,
    /// It never logged in: refused, broken or timed-out handshake, or gone
    /// before answering.
    LoginFailed,
    /// It logged in and then vanished, timed out (`wait_timeout`), broke
    /// the protocol or was killed.
    Aborted,
}

/// Closes a connection's socket from another thread (KILL CONNECTION).
pub type Closer = Box<dyn Fn() + Send + Sync>;

/// The server behind the protocol: users and sessions.
pub trait Backend: Send + Sync + 'static {
    type Session: Session;
    /// The stored hashes of `user` (`None`: no such user, 1045).
    fn credentials(&self, user: &str) -> Option<Credentials>;
    /// A session for an authenticated user with `db` selected (1049 if it
    /// does not exist, 1044 if the user may not use it).
    fn open_session(&self, user: &str, db: Option<&str>, connection_id: u32) -> Result<Self::Session, ErrPacket>;
    /// `version()`, as the handshake announces it.
    fn server_version(&self) -> String;
    /// `max_allowed_packet` in bytes: a larger packet gets error 1153 and
    /// the connection is closed.
    fn max_allowed_packet(&self) -> usize;
    /// A connection was accepted, before its handshake; `peer` is
    /// `ip:port` or `localhost`, `closer` shuts its socket.
    fn connection_opened(&self, _connection_id: u32, _peer: &str, _closer: Option<Closer>) {}
    /// The connection ended (after [`Backend::connection_opened`], always,
    /// once).
    fn connection_closed(&self, _connection_id: u32, _end: ConnEnd) {}
    /// Whether `user` may take the connection kept for administrators
    /// beyond `max_connections` (MySQL's SUPER / CONNECTION_ADMIN).
    fn is_connection_admin(&self, _user: &str) -> bool {
        false
    }
    /// `connect_timeout`: how long the handshake waits for each of the
    /// client's packets; `None`: for ever.
    fn connect_timeout(&self) -> Option<std::time::Duration> {
        None
    }
}

pub mod auth;
pub mod codec;
pub mod conn;
pub mod handshake;
pub mod listener;
pub mod packet;
pub mod pool;
mod pooled;
pub mod replication;
pub mod response;
pub mod socket;
pub mod stmt;
pub mod thread_cache;

pub use auth::credentials_for_password;
pub use conn::{serve_connection, serve_connection_with, ConnOptions};
pub use handshake::AuthPlugin;
pub use listener::{Listener, ListenerHandle, ListenerOptions, Stopper};
pub use socket::SocketControl;
