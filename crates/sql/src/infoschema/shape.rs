//! The columns of each information_schema table: names and order as MySQL
//! 8.0 defines them (tools select them by name and some by position), and
//! types as MariaDB 10.11 reports them for the columns both have (varchar
//! lengths, `bigint unsigned`, `datetime`). Columns only MySQL 8.0 has
//! (COLUMNS.SRS_ID, STATISTICS.IS_VISIBLE / EXPRESSION,
//! TABLE_CONSTRAINTS.ENFORCED, SCHEMATA.DEFAULT_ENCRYPTION,
//! COLLATIONS.PAD_ATTRIBUTE, COLUMN_STATISTICS) take MySQL 8.0's types,
//! with its ENUMs as VARCHARs; MariaDB-only columns (TABLES.TEMPORARY,
//! COLUMNS.IS_GENERATED, STATISTICS.IGNORED, VIEWS.ALGORITHM ...) are not
//! there. LONGTEXT columns are quire's TEXT (quire has no LONGTEXT type;
//! the values are not cut).
//!
//! Invariant: every row a table's producer makes has exactly
//! `columns(view).len()` values, in this order (`debug_assert`ed by
//! `infoschema::rows`).

use quire_engine::row::{Column, ColumnType};

use super::{PoolTable, View};

/// A column's type, in the few forms information_schema uses.
#[derive(Clone, Copy)]
pub(crate) enum T {
    Var(u32),
    BigU,
    Big,
    IntU,
    Int,
    DateTime,
    /// performance_schema's `timestamp(6)` columns.
    DateTime6,
    LongText,
    Json,
    Double,
    /// `tinyint(1)`.
    Tiny,
}

/// (name, type, nullable)
pub(crate) type Def = (&'static str, T, bool);

pub(crate) const N: bool = true;
pub(crate) const NN: bool = false;

const SCHEMATA: &[Def] = &[
    ("CATALOG_NAME", T::Var(512), NN),
    ("SCHEMA_NAME", T::Var(64), NN),
    ("DEFAULT_CHARACTER_SET_NAME", T::Var(32), NN),
    ("DEFAULT_COLLATION_NAME", T::Var(64), NN),
    ("SQL_PATH", T::Var(512), N),
    ("DEFAULT_ENCRYPTION", T::Var(3), NN),
];

const TABLES: &[Def] = &[
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("TABLE_TYPE", T::Var(64), NN),
    ("ENGINE", T::Var(64), N),
    ("VERSION", T::BigU, N),
    ("ROW_FORMAT", T::Var(10), N),
    ("TABLE_ROWS", T::BigU, N),
    ("AVG_ROW_LENGTH", T::BigU, N),
    ("DATA_LENGTH", T::BigU, N),
    ("MAX_DATA_LENGTH", T::BigU, N),
    ("INDEX_LENGTH", T::BigU, N),
    ("DATA_FREE", T::BigU, N),
    ("AUTO_INCREMENT", T::BigU, N),
    ("CREATE_TIME", T::DateTime, N),
    ("UPDATE_TIME", T::DateTime, N),
    ("CHECK_TIME", T::DateTime, N),
    ("TABLE_COLLATION", T::Var(64), N),
    ("CHECKSUM", T::BigU, N),
    ("CREATE_OPTIONS", T::Var(2048), N),
    ("TABLE_COMMENT", T::Var(2048), NN),
];

const COLUMNS: &[Def] = &[
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("COLUMN_NAME", T::Var(64), NN),
    ("ORDINAL_POSITION", T::BigU, NN),
    ("COLUMN_DEFAULT", T::LongText, N),
    ("IS_NULLABLE", T::Var(3), NN),
    ("DATA_TYPE", T::Var(64), NN),
    ("CHARACTER_MAXIMUM_LENGTH", T::BigU, N),
    ("CHARACTER_OCTET_LENGTH", T::BigU, N),
    ("NUMERIC_PRECISION", T::BigU, N),
    ("NUMERIC_SCALE", T::BigU, N),
    ("DATETIME_PRECISION", T::BigU, N),
    ("CHARACTER_SET_NAME", T::Var(32), N),
    ("COLLATION_NAME", T::Var(64), N),
    ("COLUMN_TYPE", T::LongText, NN),
    ("COLUMN_KEY", T::Var(3), NN),
    ("EXTRA", T::Var(80), NN),
    ("PRIVILEGES", T::Var(80), NN),
    ("COLUMN_COMMENT", T::Var(1024), NN),
    ("GENERATION_EXPRESSION", T::LongText, N),
    ("SRS_ID", T::IntU, N),
];

const STATISTICS: &[Def] = &[
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("NON_UNIQUE", T::Big, NN),
    ("INDEX_SCHEMA", T::Var(64), NN),
    ("INDEX_NAME", T::Var(64), NN),
    ("SEQ_IN_INDEX", T::IntU, NN),
    ("COLUMN_NAME", T::Var(64), NN),
    ("COLLATION", T::Var(1), N),
    ("CARDINALITY", T::Big, N),
    ("SUB_PART", T::Big, N),
    ("PACKED", T::Var(10), N),
    ("NULLABLE", T::Var(3), NN),
    ("INDEX_TYPE", T::Var(16), NN),
    ("COMMENT", T::Var(16), N),
    ("INDEX_COMMENT", T::Var(1024), NN),
    ("IS_VISIBLE", T::Var(3), NN),
    ("EXPRESSION", T::LongText, N),
];

const KEY_COLUMN_USAGE: &[Def] = &[
    ("CONSTRAINT_CATALOG", T::Var(512), NN),
    ("CONSTRAINT_SCHEMA", T::Var(64), NN),
    ("CONSTRAINT_NAME", T::Var(64), NN),
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("COLUMN_NAME", T::Var(64), NN),
    ("ORDINAL_POSITION", T::Big, NN),
    ("POSITION_IN_UNIQUE_CONSTRAINT", T::Big, N),
    ("REFERENCED_TABLE_SCHEMA", T::Var(64), N),
    ("REFERENCED_TABLE_NAME", T::Var(64), N),
    ("REFERENCED_COLUMN_NAME", T::Var(64), N),
];

const TABLE_CONSTRAINTS: &[Def] = &[
    ("CONSTRAINT_CATALOG", T::Var(512), NN),
    ("CONSTRAINT_SCHEMA", T::Var(64), NN),
    ("CONSTRAINT_NAME", T::Var(64), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("CONSTRAINT_TYPE", T::Var(64), NN),
    ("ENFORCED", T::Var(3), NN),
];

const REFERENTIAL_CONSTRAINTS: &[Def] = &[
    ("CONSTRAINT_CATALOG", T::Var(512), NN),
    ("CONSTRAINT_SCHEMA", T::Var(64), NN),
    ("CONSTRAINT_NAME", T::Var(64), NN),
    ("UNIQUE_CONSTRAINT_CATALOG", T::Var(512), NN),
    ("UNIQUE_CONSTRAINT_SCHEMA", T::Var(64), NN),
    ("UNIQUE_CONSTRAINT_NAME", T::Var(64), N),
    ("MATCH_OPTION", T::Var(64), NN),
    ("UPDATE_RULE", T::Var(64), NN),
    ("DELETE_RULE", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("REFERENCED_TABLE_NAME", T::Var(64), N),
];

const CHECK_CONSTRAINTS: &[Def] = &[
    ("CONSTRAINT_CATALOG", T::Var(512), NN),
    ("CONSTRAINT_SCHEMA", T::Var(64), NN),
    ("CONSTRAINT_NAME", T::Var(64), NN),
    ("CHECK_CLAUSE", T::LongText, NN),
];

const VIEWS: &[Def] = &[
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("VIEW_DEFINITION", T::LongText, NN),
    ("CHECK_OPTION", T::Var(8), NN),
    ("IS_UPDATABLE", T::Var(3), NN),
    ("DEFINER", T::Var(384), NN),
    ("SECURITY_TYPE", T::Var(7), NN),
    ("CHARACTER_SET_CLIENT", T::Var(32), NN),
    ("COLLATION_CONNECTION", T::Var(64), NN),
];

const ENGINES: &[Def] = &[
    ("ENGINE", T::Var(64), NN),
    ("SUPPORT", T::Var(8), NN),
    ("COMMENT", T::Var(160), NN),
    ("TRANSACTIONS", T::Var(3), N),
    ("XA", T::Var(3), N),
    ("SAVEPOINTS", T::Var(3), N),
];

const CHARACTER_SETS: &[Def] = &[
    ("CHARACTER_SET_NAME", T::Var(32), NN),
    ("DEFAULT_COLLATE_NAME", T::Var(64), NN),
    ("DESCRIPTION", T::Var(60), NN),
    ("MAXLEN", T::Big, NN),
];

const COLLATIONS: &[Def] = &[
    ("COLLATION_NAME", T::Var(64), NN),
    ("CHARACTER_SET_NAME", T::Var(32), N),
    ("ID", T::Big, N),
    ("IS_DEFAULT", T::Var(3), N),
    ("IS_COMPILED", T::Var(3), NN),
    ("SORTLEN", T::Big, NN),
    ("PAD_ATTRIBUTE", T::Var(9), NN),
];

const COLLATION_CHARACTER_SET_APPLICABILITY: &[Def] =
    &[("COLLATION_NAME", T::Var(64), NN), ("CHARACTER_SET_NAME", T::Var(32), NN)];

const PROCESSLIST: &[Def] = &[
    ("ID", T::BigU, NN),
    ("USER", T::Var(128), NN),
    ("HOST", T::Var(64), NN),
    ("DB", T::Var(64), N),
    ("COMMAND", T::Var(16), NN),
    ("TIME", T::Int, NN),
    ("STATE", T::Var(64), N),
    ("INFO", T::LongText, N),
];

const ROUTINES: &[Def] = &[
    ("SPECIFIC_NAME", T::Var(64), NN),
    ("ROUTINE_CATALOG", T::Var(512), NN),
    ("ROUTINE_SCHEMA", T::Var(64), NN),
    ("ROUTINE_NAME", T::Var(64), NN),
    ("ROUTINE_TYPE", T::Var(13), NN),
    ("DATA_TYPE", T::Var(64), NN),
    ("CHARACTER_MAXIMUM_LENGTH", T::Int, N),
    ("CHARACTER_OCTET_LENGTH", T::Int, N),
    ("NUMERIC_PRECISION", T::Int, N),
    ("NUMERIC_SCALE", T::Int, N),
    ("DATETIME_PRECISION", T::BigU, N),
    ("CHARACTER_SET_NAME", T::Var(64), N),
    ("COLLATION_NAME", T::Var(64), N),
    ("DTD_IDENTIFIER", T::LongText, N),
    ("ROUTINE_BODY", T::Var(8), NN),
    ("ROUTINE_DEFINITION", T::LongText, N),
    ("EXTERNAL_NAME", T::Var(64), N),
    ("EXTERNAL_LANGUAGE", T::Var(64), N),
    ("PARAMETER_STYLE", T::Var(8), NN),
    ("IS_DETERMINISTIC", T::Var(3), NN),
    ("SQL_DATA_ACCESS", T::Var(64), NN),
    ("SQL_PATH", T::Var(64), N),
    ("SECURITY_TYPE", T::Var(7), NN),
    ("CREATED", T::DateTime, NN),
    ("LAST_ALTERED", T::DateTime, NN),
    ("SQL_MODE", T::Var(8192), NN),
    ("ROUTINE_COMMENT", T::LongText, NN),
    ("DEFINER", T::Var(384), NN),
    ("CHARACTER_SET_CLIENT", T::Var(32), NN),
    ("COLLATION_CONNECTION", T::Var(64), NN),
    ("DATABASE_COLLATION", T::Var(64), NN),
];

const PARAMETERS: &[Def] = &[
    ("SPECIFIC_CATALOG", T::Var(512), NN),
    ("SPECIFIC_SCHEMA", T::Var(64), NN),
    ("SPECIFIC_NAME", T::Var(64), NN),
    ("ORDINAL_POSITION", T::IntU, NN),
    ("PARAMETER_MODE", T::Var(5), N),
    ("PARAMETER_NAME", T::Var(64), N),
    ("DATA_TYPE", T::LongText, N),
    ("CHARACTER_MAXIMUM_LENGTH", T::Big, N),
    ("CHARACTER_OCTET_LENGTH", T::Big, N),
    ("NUMERIC_PRECISION", T::IntU, N),
    ("NUMERIC_SCALE", T::Big, N),
    ("DATETIME_PRECISION", T::IntU, N),
    ("CHARACTER_SET_NAME", T::Var(64), N),
    ("COLLATION_NAME", T::Var(64), N),
    ("DTD_IDENTIFIER", T::LongText, NN),
    ("ROUTINE_TYPE", T::Var(9), NN),
];

const TRIGGERS: &[Def] = &[
    ("TRIGGER_CATALOG", T::Var(512), NN),
    ("TRIGGER_SCHEMA", T::Var(64), NN),
    ("TRIGGER_NAME", T::Var(64), NN),
    ("EVENT_MANIPULATION", T::Var(6), NN),
    ("EVENT_OBJECT_CATALOG", T::Var(512), NN),
    ("EVENT_OBJECT_SCHEMA", T::Var(64), NN),
    ("EVENT_OBJECT_TABLE", T::Var(64), NN),
    ("ACTION_ORDER", T::Big, NN),
    ("ACTION_CONDITION", T::LongText, N),
    ("ACTION_STATEMENT", T::LongText, NN),
    ("ACTION_ORIENTATION", T::Var(9), NN),
    ("ACTION_TIMING", T::Var(6), NN),
    ("ACTION_REFERENCE_OLD_TABLE", T::Var(64), N),
    ("ACTION_REFERENCE_NEW_TABLE", T::Var(64), N),
    ("ACTION_REFERENCE_OLD_ROW", T::Var(3), NN),
    ("ACTION_REFERENCE_NEW_ROW", T::Var(3), NN),
    ("CREATED", T::DateTime, N),
    ("SQL_MODE", T::Var(8192), NN),
    ("DEFINER", T::Var(384), NN),
    ("CHARACTER_SET_CLIENT", T::Var(32), NN),
    ("COLLATION_CONNECTION", T::Var(64), NN),
    ("DATABASE_COLLATION", T::Var(64), NN),
];

const EVENTS: &[Def] = &[
    ("EVENT_CATALOG", T::Var(64), NN),
    ("EVENT_SCHEMA", T::Var(64), NN),
    ("EVENT_NAME", T::Var(64), NN),
    ("DEFINER", T::Var(384), NN),
    ("TIME_ZONE", T::Var(64), NN),
    ("EVENT_BODY", T::Var(8), NN),
    ("EVENT_DEFINITION", T::LongText, NN),
    ("EVENT_TYPE", T::Var(9), NN),
    ("EXECUTE_AT", T::DateTime, N),
    ("INTERVAL_VALUE", T::Var(256), N),
    ("INTERVAL_FIELD", T::Var(18), N),
    ("SQL_MODE", T::Var(8192), NN),
    ("STARTS", T::DateTime, N),
    ("ENDS", T::DateTime, N),
    ("STATUS", T::Var(18), NN),
    ("ON_COMPLETION", T::Var(12), NN),
    ("CREATED", T::DateTime, NN),
    ("LAST_ALTERED", T::DateTime, NN),
    ("LAST_EXECUTED", T::DateTime, N),
    ("EVENT_COMMENT", T::Var(64), NN),
    ("ORIGINATOR", T::Big, NN),
    ("CHARACTER_SET_CLIENT", T::Var(32), NN),
    ("COLLATION_CONNECTION", T::Var(64), NN),
    ("DATABASE_COLLATION", T::Var(64), NN),
];

const PARTITIONS: &[Def] = &[
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("PARTITION_NAME", T::Var(64), N),
    ("SUBPARTITION_NAME", T::Var(64), N),
    ("PARTITION_ORDINAL_POSITION", T::BigU, N),
    ("SUBPARTITION_ORDINAL_POSITION", T::BigU, N),
    ("PARTITION_METHOD", T::Var(18), N),
    ("SUBPARTITION_METHOD", T::Var(12), N),
    ("PARTITION_EXPRESSION", T::LongText, N),
    ("SUBPARTITION_EXPRESSION", T::LongText, N),
    ("PARTITION_DESCRIPTION", T::LongText, N),
    ("TABLE_ROWS", T::BigU, NN),
    ("AVG_ROW_LENGTH", T::BigU, NN),
    ("DATA_LENGTH", T::BigU, NN),
    ("MAX_DATA_LENGTH", T::BigU, N),
    ("INDEX_LENGTH", T::BigU, NN),
    ("DATA_FREE", T::BigU, NN),
    ("CREATE_TIME", T::DateTime, N),
    ("UPDATE_TIME", T::DateTime, N),
    ("CHECK_TIME", T::DateTime, N),
    ("CHECKSUM", T::BigU, N),
    ("PARTITION_COMMENT", T::Var(80), NN),
    ("NODEGROUP", T::Var(12), NN),
    ("TABLESPACE_NAME", T::Var(64), N),
];

const FILES: &[Def] = &[
    ("FILE_ID", T::Big, NN),
    ("FILE_NAME", T::Var(512), N),
    ("FILE_TYPE", T::Var(20), NN),
    ("TABLESPACE_NAME", T::Var(64), N),
    ("TABLE_CATALOG", T::Var(64), NN),
    ("TABLE_SCHEMA", T::Var(64), N),
    ("TABLE_NAME", T::Var(64), N),
    ("LOGFILE_GROUP_NAME", T::Var(64), N),
    ("LOGFILE_GROUP_NUMBER", T::Big, N),
    ("ENGINE", T::Var(64), NN),
    ("FULLTEXT_KEYS", T::Var(64), N),
    ("DELETED_ROWS", T::Big, N),
    ("UPDATE_COUNT", T::Big, N),
    ("FREE_EXTENTS", T::Big, N),
    ("TOTAL_EXTENTS", T::Big, N),
    ("EXTENT_SIZE", T::Big, NN),
    ("INITIAL_SIZE", T::BigU, N),
    ("MAXIMUM_SIZE", T::BigU, N),
    ("AUTOEXTEND_SIZE", T::BigU, N),
    ("CREATION_TIME", T::DateTime, N),
    ("LAST_UPDATE_TIME", T::DateTime, N),
    ("LAST_ACCESS_TIME", T::DateTime, N),
    ("RECOVER_TIME", T::Big, N),
    ("TRANSACTION_COUNTER", T::Big, N),
    ("VERSION", T::BigU, N),
    ("ROW_FORMAT", T::Var(10), N),
    ("TABLE_ROWS", T::BigU, N),
    ("AVG_ROW_LENGTH", T::BigU, N),
    ("DATA_LENGTH", T::BigU, N),
    ("MAX_DATA_LENGTH", T::BigU, N),
    ("INDEX_LENGTH", T::BigU, N),
    ("DATA_FREE", T::BigU, N),
    ("CREATE_TIME", T::DateTime, N),
    ("UPDATE_TIME", T::DateTime, N),
    ("CHECK_TIME", T::DateTime, N),
    ("CHECKSUM", T::BigU, N),
    ("STATUS", T::Var(20), NN),
    ("EXTRA", T::Var(255), N),
];

const COLUMN_STATISTICS: &[Def] = &[
    ("SCHEMA_NAME", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("COLUMN_NAME", T::Var(64), NN),
    ("HISTOGRAM", T::Json, NN),
];

const USER_PRIVILEGES: &[Def] = &[
    ("GRANTEE", T::Var(385), NN),
    ("TABLE_CATALOG", T::Var(512), NN),
    ("PRIVILEGE_TYPE", T::Var(64), NN),
    ("IS_GRANTABLE", T::Var(3), NN),
];

const SCHEMA_PRIVILEGES: &[Def] = &[
    ("GRANTEE", T::Var(385), NN),
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("PRIVILEGE_TYPE", T::Var(64), NN),
    ("IS_GRANTABLE", T::Var(3), NN),
];

const TABLE_PRIVILEGES: &[Def] = &[
    ("GRANTEE", T::Var(385), NN),
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("PRIVILEGE_TYPE", T::Var(64), NN),
    ("IS_GRANTABLE", T::Var(3), NN),
];

// The InnoDB tables, as MySQL 8.0's InnoDB declares them (i_s.cc); where
// MariaDB 10.11 differs, MySQL 8.0 is followed: INNODB_TRX has
// trx_adaptive_hash_latched, trx_adaptive_hash_timeout and
// trx_schedule_weight (MariaDB: none of them)
// and a varchar(105) lock id (81); INNODB_BUFFER_POOL_STATS' POOL_ID is a
// bigint unsigned (int unsigned) and its rates doubles (floats);
// INNODB_METRICS says STATUS 'enabled' (MariaDB: ENABLED 1) with a
// varchar TYPE (an ENUM). INNODB_TABLES / INNODB_INDEXES are MySQL 8.0's
// names for MariaDB's INNODB_SYS_TABLES / INNODB_SYS_INDEXES.

const INNODB_TRX: &[Def] = &[
    ("trx_id", T::BigU, NN),
    ("trx_state", T::Var(13), NN),
    ("trx_started", T::DateTime, NN),
    ("trx_requested_lock_id", T::Var(105), N),
    ("trx_wait_started", T::DateTime, N),
    ("trx_weight", T::BigU, NN),
    ("trx_mysql_thread_id", T::BigU, NN),
    ("trx_query", T::Var(1024), N),
    ("trx_operation_state", T::Var(64), N),
    ("trx_tables_in_use", T::BigU, NN),
    ("trx_tables_locked", T::BigU, NN),
    ("trx_lock_structs", T::BigU, NN),
    ("trx_lock_memory_bytes", T::BigU, NN),
    ("trx_rows_locked", T::BigU, NN),
    ("trx_rows_modified", T::BigU, NN),
    ("trx_concurrency_tickets", T::BigU, NN),
    ("trx_isolation_level", T::Var(16), NN),
    ("trx_unique_checks", T::Int, NN),
    ("trx_foreign_key_checks", T::Int, NN),
    ("trx_last_foreign_key_error", T::Var(256), N),
    ("trx_adaptive_hash_latched", T::Int, NN),
    ("trx_adaptive_hash_timeout", T::BigU, NN),
    ("trx_is_read_only", T::Int, NN),
    ("trx_autocommit_non_locking", T::Int, NN),
    ("trx_schedule_weight", T::BigU, N),
];

const INNODB_BUFFER_POOL_STATS: &[Def] = &[
    ("POOL_ID", T::BigU, NN),
    ("POOL_SIZE", T::BigU, NN),
    ("FREE_BUFFERS", T::BigU, NN),
    ("DATABASE_PAGES", T::BigU, NN),
    ("OLD_DATABASE_PAGES", T::BigU, NN),
    ("MODIFIED_DATABASE_PAGES", T::BigU, NN),
    ("PENDING_DECOMPRESS", T::BigU, NN),
    ("PENDING_READS", T::BigU, NN),
    ("PENDING_FLUSH_LRU", T::BigU, NN),
    ("PENDING_FLUSH_LIST", T::BigU, NN),
    ("PAGES_MADE_YOUNG", T::BigU, NN),
    ("PAGES_NOT_MADE_YOUNG", T::BigU, NN),
    ("PAGES_MADE_YOUNG_RATE", T::Double, NN),
    ("PAGES_MADE_NOT_YOUNG_RATE", T::Double, NN),
    ("NUMBER_PAGES_READ", T::BigU, NN),
    ("NUMBER_PAGES_CREATED", T::BigU, NN),
    ("NUMBER_PAGES_WRITTEN", T::BigU, NN),
    ("PAGES_READ_RATE", T::Double, NN),
    ("PAGES_CREATE_RATE", T::Double, NN),
    ("PAGES_WRITTEN_RATE", T::Double, NN),
    ("NUMBER_PAGES_GET", T::BigU, NN),
    ("HIT_RATE", T::BigU, NN),
    ("YOUNG_MAKE_PER_THOUSAND_GETS", T::BigU, NN),
    ("NOT_YOUNG_MAKE_PER_THOUSAND_GETS", T::BigU, NN),
    ("NUMBER_PAGES_READ_AHEAD", T::BigU, NN),
    ("NUMBER_READ_AHEAD_EVICTED", T::BigU, NN),
    ("READ_AHEAD_RATE", T::Double, NN),
    ("READ_AHEAD_EVICTED_RATE", T::Double, NN),
    ("LRU_IO_TOTAL", T::BigU, NN),
    ("LRU_IO_CURRENT", T::BigU, NN),
    ("UNCOMPRESS_TOTAL", T::BigU, NN),
    ("UNCOMPRESS_CURRENT", T::BigU, NN),
];

const INNODB_METRICS: &[Def] = &[
    ("NAME", T::Var(193), NN),
    ("SUBSYSTEM", T::Var(193), NN),
    ("COUNT", T::Big, NN),
    ("MAX_COUNT", T::Big, N),
    ("MIN_COUNT", T::Big, N),
    ("AVG_COUNT", T::Double, N),
    ("COUNT_RESET", T::Big, NN),
    ("MAX_COUNT_RESET", T::Big, N),
    ("MIN_COUNT_RESET", T::Big, N),
    ("AVG_COUNT_RESET", T::Double, N),
    ("TIME_ENABLED", T::DateTime, N),
    ("TIME_DISABLED", T::DateTime, N),
    ("TIME_ELAPSED", T::Big, N),
    ("TIME_RESET", T::DateTime, N),
    ("STATUS", T::Var(193), NN),
    ("TYPE", T::Var(193), NN),
    ("COMMENT", T::Var(193), NN),
];

const INNODB_CMP: &[Def] = &[
    ("page_size", T::Int, NN),
    ("compress_ops", T::Int, NN),
    ("compress_ops_ok", T::Int, NN),
    ("compress_time", T::Int, NN),
    ("uncompress_ops", T::Int, NN),
    ("uncompress_time", T::Int, NN),
];

const INNODB_CMPMEM: &[Def] = &[
    ("page_size", T::Int, NN),
    ("buffer_pool_instance", T::Int, NN),
    ("pages_used", T::Int, NN),
    ("pages_free", T::Int, NN),
    ("relocation_ops", T::Big, NN),
    ("relocation_time", T::Int, NN),
];

const INNODB_TABLES: &[Def] = &[
    ("TABLE_ID", T::BigU, NN),
    ("NAME", T::Var(655), NN),
    ("FLAG", T::Int, NN),
    ("N_COLS", T::Int, NN),
    ("SPACE", T::Big, NN),
    ("ROW_FORMAT", T::Var(12), N),
    ("ZIP_PAGE_SIZE", T::IntU, NN),
    ("SPACE_TYPE", T::Var(10), N),
    ("INSTANT_COLS", T::Int, NN),
    ("TOTAL_ROW_VERSIONS", T::Int, NN),
];

const INNODB_INDEXES: &[Def] = &[
    ("INDEX_ID", T::BigU, NN),
    ("NAME", T::Var(193), NN),
    ("TABLE_ID", T::BigU, NN),
    ("TYPE", T::Int, NN),
    ("N_FIELDS", T::Int, NN),
    ("PAGE_NO", T::Int, NN),
    ("SPACE", T::Int, NN),
    ("MERGE_THRESHOLD", T::Int, NN),
];

// INNODB_COLUMNS: MySQL 8.0's name and columns for MariaDB's
// INNODB_SYS_COLUMNS (NAME as long as MariaDB's); HAS_DEFAULT and
// DEFAULT_VALUE are MySQL 8.0's only.
const INNODB_COLUMNS: &[Def] = &[
    ("TABLE_ID", T::BigU, NN),
    ("NAME", T::Var(64), NN),
    ("POS", T::BigU, NN),
    ("MTYPE", T::Int, NN),
    ("PRTYPE", T::Int, NN),
    ("LEN", T::Int, NN),
    ("HAS_DEFAULT", T::Int, NN),
    ("DEFAULT_VALUE", T::LongText, N),
];

// PLUGINS: MySQL 8.0's eleven columns (MariaDB adds PLUGIN_MATURITY and
// PLUGIN_AUTH_VERSION), MariaDB's types.
const PLUGINS: &[Def] = &[
    ("PLUGIN_NAME", T::Var(64), NN),
    ("PLUGIN_VERSION", T::Var(20), NN),
    ("PLUGIN_STATUS", T::Var(16), NN),
    ("PLUGIN_TYPE", T::Var(80), NN),
    ("PLUGIN_TYPE_VERSION", T::Var(20), NN),
    ("PLUGIN_LIBRARY", T::Var(64), N),
    ("PLUGIN_LIBRARY_VERSION", T::Var(20), N),
    ("PLUGIN_AUTHOR", T::Var(64), N),
    ("PLUGIN_DESCRIPTION", T::LongText, N),
    ("PLUGIN_LICENSE", T::Var(80), NN),
    ("LOAD_OPTION", T::Var(64), NN),
];

// MariaDB 10.11's thread pool tables (sql/threadpool_info.cc).
const THREAD_POOL_GROUPS: &[Def] = &[
    ("GROUP_ID", T::Int, NN),
    ("CONNECTIONS", T::Int, NN),
    ("THREADS", T::Int, NN),
    ("ACTIVE_THREADS", T::Int, NN),
    ("STANDBY_THREADS", T::Int, NN),
    ("QUEUE_LENGTH", T::Int, NN),
    ("HAS_LISTENER", T::Tiny, NN),
    ("IS_STALLED", T::Tiny, NN),
];

const THREAD_POOL_QUEUES: &[Def] = &[
    ("GROUP_ID", T::Int, NN),
    ("POSITION", T::Int, NN),
    ("PRIORITY", T::Int, NN),
    ("CONNECTION_ID", T::BigU, true),
    ("QUEUEING_TIME_MICROSECONDS", T::Big, NN),
];

const THREAD_POOL_STATS: &[Def] = &[
    ("GROUP_ID", T::Int, NN),
    ("THREAD_CREATIONS", T::Big, NN),
    ("THREAD_CREATIONS_DUE_TO_STALL", T::Big, NN),
    ("WAKES", T::Big, NN),
    ("WAKES_DUE_TO_STALL", T::Big, NN),
    ("THROTTLES", T::Big, NN),
    ("STALLS", T::Big, NN),
    ("POLLS_BY_LISTENER", T::Big, NN),
    ("POLLS_BY_WORKER", T::Big, NN),
    ("DEQUEUES_BY_LISTENER", T::Big, NN),
    ("DEQUEUES_BY_WORKER", T::Big, NN),
];

const THREAD_POOL_WAITS: &[Def] = &[("REASON", T::Var(16), NN), ("COUNT", T::Big, NN)];

// OPEN_TABLES: SHOW OPEN TABLES' columns (a hidden table, as in MySQL and
// MariaDB: only the SHOW reads it).
const OPEN_TABLES: &[Def] =
    &[("Database", T::Var(64), NN), ("Table", T::Var(64), NN), ("In_use", T::Big, NN), ("Name_locked", T::Big, NN)];

const COLUMN_PRIVILEGES: &[Def] = &[
    ("GRANTEE", T::Var(385), NN),
    ("TABLE_CATALOG", T::Var(512), NN),
    ("TABLE_SCHEMA", T::Var(64), NN),
    ("TABLE_NAME", T::Var(64), NN),
    ("COLUMN_NAME", T::Var(64), NN),
    ("PRIVILEGE_TYPE", T::Var(64), NN),
    ("IS_GRANTABLE", T::Var(3), NN),
];

fn defs(v: View) -> &'static [Def] {
    match v {
        View::Schemata => SCHEMATA,
        View::Tables => TABLES,
        View::Columns => COLUMNS,
        View::Statistics => STATISTICS,
        View::KeyColumnUsage => KEY_COLUMN_USAGE,
        View::TableConstraints => TABLE_CONSTRAINTS,
        View::ReferentialConstraints => REFERENTIAL_CONSTRAINTS,
        View::CheckConstraints => CHECK_CONSTRAINTS,
        View::Views => VIEWS,
        View::Engines => ENGINES,
        View::CharacterSets => CHARACTER_SETS,
        View::Collations => COLLATIONS,
        View::CollationCharacterSetApplicability => COLLATION_CHARACTER_SET_APPLICABILITY,
        View::Processlist => PROCESSLIST,
        View::Routines => ROUTINES,
        View::Parameters => PARAMETERS,
        View::Triggers => TRIGGERS,
        View::Events => EVENTS,
        View::Partitions => PARTITIONS,
        View::Files => FILES,
        View::ColumnStatistics => COLUMN_STATISTICS,
        View::UserPrivileges => USER_PRIVILEGES,
        View::SchemaPrivileges => SCHEMA_PRIVILEGES,
        View::TablePrivileges => TABLE_PRIVILEGES,
        View::ColumnPrivileges => COLUMN_PRIVILEGES,
        View::InnodbTrx => INNODB_TRX,
        View::InnodbBufferPoolStats => INNODB_BUFFER_POOL_STATS,
        View::InnodbMetrics => INNODB_METRICS,
        View::InnodbCmp => INNODB_CMP,
        View::InnodbCmpmem => INNODB_CMPMEM,
        View::InnodbTables => INNODB_TABLES,
        View::InnodbIndexes => INNODB_INDEXES,
        View::InnodbColumns => INNODB_COLUMNS,
        View::Plugins => PLUGINS,
        View::ThreadPool(PoolTable::Groups) => THREAD_POOL_GROUPS,
        View::ThreadPool(PoolTable::Queues) => THREAD_POOL_QUEUES,
        View::ThreadPool(PoolTable::Stats) => THREAD_POOL_STATS,
        View::ThreadPool(PoolTable::Waits) => THREAD_POOL_WAITS,
        View::OpenTables => OPEN_TABLES,
        View::Perf(t) => crate::perfschema::defs(t),
    }
}

/// The columns of `v`, as table columns (utf8mb4_general_ci strings: names
/// compare without case, as MariaDB's utf8mb3_general_ci columns do).
pub fn columns(v: View) -> Vec<Column> {
    defs(v)
        .iter()
        .map(|&(name, t, nullable)| {
            let ty = match t {
                T::Var(len) => ColumnType::Varchar { len },
                T::BigU => ColumnType::BigInt { unsigned: true },
                T::Big => ColumnType::BigInt { unsigned: false },
                T::IntU => ColumnType::Int { unsigned: true },
                T::Int => ColumnType::Int { unsigned: false },
                T::DateTime => ColumnType::DateTime { fsp: 0 },
                T::DateTime6 => ColumnType::DateTime { fsp: 6 },
                T::LongText => ColumnType::Text,
                T::Json => ColumnType::Json,
                T::Double => ColumnType::Double { digits: None, unsigned: false },
                T::Tiny => ColumnType::TinyInt1 { unsigned: false },
            };
            let c = Column::new(name, ty);
            if nullable {
                c
            } else {
                c.not_null()
            }
        })
        .collect()
}

/// The position of column `name` of `v`.
pub fn position(v: View, name: &str) -> Option<usize> {
    defs(v).iter().position(|(n, _, _)| n.eq_ignore_ascii_case(name))
}
