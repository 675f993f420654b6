//! The engine's error type. Corruption is an error naming the page, never a
//! panic; I/O errors keep their OS error so that ENOSPC stays recognisable.

use std::io;

use crate::PageId;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("I/O error on {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
    /// A page failed its checksum, carries the wrong id or holds impossible
    /// contents. It is never served.
    #[error("corrupt page {page}: {reason}")]
    Corruption { page: PageId, reason: String },
    /// A table whose file is damaged: it stays in the catalog (and in SHOW
    /// TABLES) but every use answers this until it is dropped. `path` and
    /// `page` say where the damage was found (MySQL's ER_TABLE_CORRUPT).
    #[error("table '{table}' is corrupted: {page} of {path}: {reason}")]
    TableCorrupt { table: String, path: String, page: PageId, reason: String },
    /// A write to a table or server that `innodb_force_recovery` (or a
    /// damaged file) made read-only.
    #[error("table '{0}' is read only")]
    ReadOnly(String),
    /// A file that is not what it should be (wrong magic, page size ...).
    #[error("corrupt file {path}: {reason}")]
    CorruptFile { path: String, reason: String },
    #[error("duplicate entry for key '{key}' in index '{index}'")]
    DuplicateKey { index: String, key: String },
    #[error("table '{0}' already exists")]
    TableExists(String),
    #[error("table '{0}' doesn't exist")]
    NoSuchTable(String),
    #[error("unknown column '{0}'")]
    NoSuchColumn(String),
    #[error("index '{0}' doesn't exist")]
    NoSuchIndex(String),
    #[error("column '{column}' cannot be null")]
    NullNotAllowed { column: String },
    #[error("data too long for column '{column}'")]
    DataTooLong { column: String },
    #[error("out of range value for column '{column}'")]
    OutOfRange { column: String },
    #[error("incorrect value for column '{column}': {reason}")]
    BadValue { column: String, reason: String },
    #[error("key too long: {len} bytes, at most {max} allowed")]
    KeyTooLong { len: usize, max: usize },
    #[error("invalid schema: {0}")]
    InvalidSchema(String),
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Every frame of a buffer pool instance is latched: the pool is too
    /// small for the concurrency.
    #[error("buffer pool exhausted: no frame could be freed in instance {instance}")]
    PoolExhausted { instance: usize },
    /// A space file could not grow: the disk (or quota) is full. Nothing
    /// was changed (MySQL's 1114 "The table is full").
    #[error("the table is full: no space to extend {path}")]
    TableFull { path: String },
    #[error("the engine is shut down")]
    Shutdown,
    /// A wait for a lock (or a DDL wait for users of an object) timed out.
    #[error("lock wait timeout exceeded: {0}")]
    LockWaitTimeout(String),
    /// Every undo log slot holds a log that is active or not yet purged
    /// (MySQL's "Too many active concurrent transactions", 1637).
    #[error("too many active concurrent transactions")]
    UndoSlotsFull,
    /// This transaction was chosen as a deadlock victim and has been rolled
    /// back whole (MySQL error 1213).
    #[error("deadlock found when trying to get lock; try restarting transaction")]
    Deadlock,
    /// The statement was interrupted (KILL QUERY, or its deadline passed)
    /// while it waited for a row lock; only the statement is undone.
    #[error("query execution was interrupted")]
    Interrupted,
    /// A locking read under NOWAIT met a row lock another transaction
    /// holds (MySQL 8.0's 3572); only the statement is undone.
    #[error("lock(s) could not be acquired immediately and NOWAIT is set")]
    LockNowait,
    /// A locking read under SKIP LOCKED met a row lock another
    /// transaction holds: the row is skipped (never reaches SQL).
    #[error("row skipped: locked by another transaction")]
    LockSkipped,
    /// The transaction is no longer usable (rolled back as a deadlock
    /// victim, or after a failed rollback); only ROLLBACK is accepted.
    #[error("transaction is not active: {0}")]
    TrxNotActive(String),
}

impl Error {
    pub fn io(what: impl Into<String>, source: io::Error) -> Self {
        Error::Io { what: what.into(), source }
    }

    pub fn corruption(page: PageId, reason: impl Into<String>) -> Self {
        Error::Corruption { page, reason: reason.into() }
    }

    pub fn is_corruption(&self) -> bool {
        matches!(self, Error::Corruption { .. } | Error::CorruptFile { .. } | Error::TableCorrupt { .. })
    }

    /// Names the file a corrupt page was read from (the buffer pool knows
    /// only the space id; the user needs the path).
    pub fn in_file(self, path: &std::path::Path) -> Self {
        match self {
            Error::Corruption { page, reason } if !reason.contains(" in file ") => {
                Error::Corruption { page, reason: format!("{reason} in file {}", path.display()) }
            }
            other => other,
        }
    }
}
