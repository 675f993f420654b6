//! SQL errors: a MySQL error number, its SQLSTATE and a message, as the
//! client sees them. Engine errors map to the codes MySQL gives for the
//! same condition.

use quire_engine::Error as EngineError;

/// An error for the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub state: &'static str,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, SqlError>;

impl SqlError {
    /// 1175: an UPDATE or DELETE without a key or LIMIT under
    /// `sql_safe_updates` (MariaDB's text; MySQL 8.0 adds a hint about
    /// Workbench's preferences).
    pub fn safe_update() -> Self {
        SqlError::new(
            1175,
            "HY000",
            "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column",
        )
    }

    pub fn new(code: u16, state: &'static str, message: impl Into<String>) -> Self {
        Self { code, state, message: message.into() }
    }

    /// 1064 ER_PARSE_ERROR.
    pub fn syntax(msg: impl std::fmt::Display) -> Self {
        Self::new(1064, "42000", format!("You have an error in your SQL syntax; {msg}"))
    }

    /// 1235 ER_NOT_SUPPORTED_YET.
    pub fn unsupported(what: impl std::fmt::Display) -> Self {
        Self::new(1235, "42000", format!("This version of quire doesn't yet support '{what}'"))
    }

    /// 1046 ER_NO_DB_ERROR.
    pub fn no_database() -> Self {
        Self::new(1046, "3D000", "No database selected")
    }

    /// 1049 ER_BAD_DB_ERROR.
    pub fn unknown_database(db: &str) -> Self {
        Self::new(1049, "42000", format!("Unknown database '{db}'"))
    }

    /// 1146 ER_NO_SUCH_TABLE.
    pub fn no_such_table(db: &str, table: &str) -> Self {
        Self::new(1146, "42S02", format!("Table '{db}.{table}' doesn't exist"))
    }

    /// 1054 ER_BAD_FIELD_ERROR.
    pub fn unknown_column(col: &str, place: &str) -> Self {
        Self::new(1054, "42S22", format!("Unknown column '{col}' in '{place}'"))
    }

    /// 1105 ER_UNKNOWN_ERROR.
    pub fn internal(msg: impl std::fmt::Display) -> Self {
        Self::new(1105, "HY000", msg.to_string())
    }

    /// 1317 ER_QUERY_INTERRUPTED (KILL QUERY).
    pub fn interrupted() -> Self {
        Self::new(1317, "70100", "Query execution was interrupted")
    }

    /// 3024 ER_QUERY_TIMEOUT (`max_execution_time`, MySQL 8.0).
    pub fn execution_time_exceeded() -> Self {
        Self::new(3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded")
    }

    /// 1927 ER_CONNECTION_KILLED (MariaDB's answer to a connection that
    /// kills itself).
    pub fn connection_killed() -> Self {
        Self::new(1927, "70100", "Connection was killed")
    }

    /// 1210 ER_WRONG_ARGUMENTS.
    pub fn wrong_arguments(f: &str) -> Self {
        Self::new(1210, "HY000", format!("Incorrect arguments to {f}"))
    }
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl std::error::Error for SqlError {}

impl From<EngineError> for SqlError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::DuplicateKey { index, key } => {
                SqlError::new(1062, "23000", format!("Duplicate entry '{key}' for key '{index}'"))
            }
            EngineError::TableExists(t) => {
                SqlError::new(1050, "42S01", format!("Table '{}' already exists", dotted(&t)))
            }
            EngineError::NoSuchTable(t) => {
                SqlError::new(1146, "42S02", format!("Table '{}' doesn't exist", dotted(&t)))
            }
            // MySQL's ER_TABLE_CORRUPT (MariaDB 10.11 answers the same
            // code for a table whose pages fail their checks), with where
            // the damage is, which MySQL leaves to the error log.
            EngineError::TableCorrupt { table, path, page, reason } => SqlError::new(
                1877,
                "HY000",
                format!(
                    "Table {} is corrupted (page {} of {path}: {reason}). Please drop the table and recreate.",
                    quoted(&table),
                    page.page_no
                ),
            ),
            EngineError::Corruption { page, reason } => SqlError::new(
                1877,
                "HY000",
                format!(
                    "A table is corrupted (page {} of space {}: {reason}). Please drop the table and recreate.",
                    page.page_no, page.space
                ),
            ),
            // ER_OPEN_AS_READONLY.
            EngineError::ReadOnly(t) => {
                SqlError::new(1036, "HY000", format!("Table '{}' is read only", t.rsplit('/').next().unwrap_or(&t)))
            }
            EngineError::NoSuchColumn(c) => {
                SqlError::new(1054, "42S22", format!("Unknown column '{c}' in 'field list'"))
            }
            EngineError::NoSuchIndex(i) => {
                SqlError::new(1091, "42000", format!("Can't DROP '{i}'; check that column/key exists"))
            }
            EngineError::NullNotAllowed { column } => {
                SqlError::new(1048, "23000", format!("Column '{column}' cannot be null"))
            }
            EngineError::DataTooLong { column } => {
                SqlError::new(1406, "22001", format!("Data too long for column '{column}' at row 1"))
            }
            EngineError::OutOfRange { column } => {
                SqlError::new(1264, "22003", format!("Out of range value for column '{column}' at row 1"))
            }
            EngineError::BadValue { column, reason } => {
                SqlError::new(1366, "HY000", format!("Incorrect value for column '{column}' at row 1: {reason}"))
            }
            EngineError::KeyTooLong { max, .. } => {
                SqlError::new(1071, "42000", format!("Specified key was too long; max key length is {max} bytes"))
            }
            EngineError::InvalidSchema(m) => SqlError::new(1105, "HY000", m),
            EngineError::LockWaitTimeout(_) => {
                SqlError::new(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction")
            }
            EngineError::Deadlock => {
                SqlError::new(1213, "40001", "Deadlock found when trying to get lock; try restarting transaction")
            }
            EngineError::Interrupted => SqlError::interrupted(),
            // MySQL 8.0's code and text (MariaDB 10.11 answers 1205).
            EngineError::LockNowait => SqlError::new(
                3572,
                "HY000",
                "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.",
            ),
            EngineError::LockSkipped => SqlError::internal("a skipped row lock reached SQL"),
            EngineError::UndoSlotsFull => SqlError::new(1637, "HY000", "Too many active concurrent transactions"),
            EngineError::TrxNotActive(m) => SqlError::new(1105, "HY000", format!("Transaction is not active: {m}")),
            EngineError::Shutdown => SqlError::new(1053, "08S01", "Server shutdown in progress"),
            EngineError::TableFull { path } => {
                let stem = std::path::Path::new(&path).file_stem().map(|s| s.to_string_lossy().into_owned());
                SqlError::new(1114, "HY000", format!("The table '{}' is full", stem.unwrap_or(path)))
            }
            EngineError::Io { what, source } if source.raw_os_error() == Some(libc_enospc()) => {
                SqlError::new(1021, "HY000", format!("Disk full ({what}); waiting for someone to free some space"))
            }
            other => SqlError::new(1105, "HY000", other.to_string()),
        }
    }
}

fn libc_enospc() -> i32 {
    28
}

/// `db/table` as MySQL prints it in ER_TABLE_CORRUPT: `db`.`table`.
fn quoted(name: &str) -> String {
    name.split('/').map(|p| format!("`{p}`")).collect::<Vec<_>>().join(".")
}

/// `db/table` as MySQL prints it: `db.table`.
fn dotted(name: &str) -> String {
    name.replace('/', ".")
}
