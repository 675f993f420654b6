//! The columns of each performance_schema table: names, order and types
//! as MySQL 8.0 defines them (ENUM columns as VARCHARs holding the same
//! values; TIMER columns `bigint unsigned`).

use crate::infoschema::shape::{Def, N, NN, T};

use super::Table;

const SUMMARY: [Def; 5] = [
    ("COUNT_STAR", T::BigU, NN),
    ("SUM_TIMER_WAIT", T::BigU, NN),
    ("MIN_TIMER_WAIT", T::BigU, NN),
    ("AVG_TIMER_WAIT", T::BigU, NN),
    ("MAX_TIMER_WAIT", T::BigU, NN),
];

const WAITS_GLOBAL: &[Def] =
    &[("EVENT_NAME", T::Var(128), NN), SUMMARY[0], SUMMARY[1], SUMMARY[2], SUMMARY[3], SUMMARY[4]];

const WAITS_BY_THREAD: &[Def] = &[
    ("THREAD_ID", T::BigU, NN),
    ("EVENT_NAME", T::Var(128), NN),
    SUMMARY[0],
    SUMMARY[1],
    SUMMARY[2],
    SUMMARY[3],
    SUMMARY[4],
];

const FILE_SUMMARY: &[Def] = &[
    ("EVENT_NAME", T::Var(128), NN),
    SUMMARY[0],
    SUMMARY[1],
    SUMMARY[2],
    SUMMARY[3],
    SUMMARY[4],
    ("COUNT_READ", T::BigU, NN),
    ("SUM_TIMER_READ", T::BigU, NN),
    ("MIN_TIMER_READ", T::BigU, NN),
    ("AVG_TIMER_READ", T::BigU, NN),
    ("MAX_TIMER_READ", T::BigU, NN),
    ("SUM_NUMBER_OF_BYTES_READ", T::Big, NN),
    ("COUNT_WRITE", T::BigU, NN),
    ("SUM_TIMER_WRITE", T::BigU, NN),
    ("MIN_TIMER_WRITE", T::BigU, NN),
    ("AVG_TIMER_WRITE", T::BigU, NN),
    ("MAX_TIMER_WRITE", T::BigU, NN),
    ("SUM_NUMBER_OF_BYTES_WRITE", T::Big, NN),
    ("COUNT_MISC", T::BigU, NN),
    ("SUM_TIMER_MISC", T::BigU, NN),
    ("MIN_TIMER_MISC", T::BigU, NN),
    ("AVG_TIMER_MISC", T::BigU, NN),
    ("MAX_TIMER_MISC", T::BigU, NN),
];

const SETUP_INSTRUMENTS: &[Def] = &[
    ("NAME", T::Var(128), NN),
    ("ENABLED", T::Var(3), NN),
    ("TIMED", T::Var(3), N),
    ("PROPERTIES", T::Var(64), NN),
    ("VOLATILITY", T::Int, NN),
    ("DOCUMENTATION", T::LongText, N),
];

const THREADS: &[Def] = &[
    ("THREAD_ID", T::BigU, NN),
    ("NAME", T::Var(128), NN),
    ("TYPE", T::Var(10), NN),
    ("PROCESSLIST_ID", T::BigU, N),
    ("PROCESSLIST_USER", T::Var(32), N),
    ("PROCESSLIST_HOST", T::Var(255), N),
    ("PROCESSLIST_DB", T::Var(64), N),
    ("PROCESSLIST_COMMAND", T::Var(16), N),
    ("PROCESSLIST_TIME", T::Big, N),
    ("PROCESSLIST_STATE", T::Var(64), N),
    ("PROCESSLIST_INFO", T::LongText, N),
    ("PARENT_THREAD_ID", T::BigU, N),
    ("ROLE", T::Var(64), N),
    ("INSTRUMENTED", T::Var(3), NN),
    ("HISTORY", T::Var(3), NN),
    ("CONNECTION_TYPE", T::Var(16), N),
    ("THREAD_OS_ID", T::BigU, N),
    ("RESOURCE_GROUP", T::Var(64), N),
];

const STATEMENTS_BY_DIGEST: &[Def] = &[
    ("SCHEMA_NAME", T::Var(64), N),
    ("DIGEST", T::Var(64), N),
    ("DIGEST_TEXT", T::LongText, N),
    SUMMARY[0],
    SUMMARY[1],
    SUMMARY[2],
    SUMMARY[3],
    SUMMARY[4],
    ("SUM_LOCK_TIME", T::BigU, NN),
    ("SUM_ERRORS", T::BigU, NN),
    ("SUM_WARNINGS", T::BigU, NN),
    ("SUM_ROWS_AFFECTED", T::BigU, NN),
    ("SUM_ROWS_SENT", T::BigU, NN),
    ("SUM_ROWS_EXAMINED", T::BigU, NN),
    ("SUM_CREATED_TMP_DISK_TABLES", T::BigU, NN),
    ("SUM_CREATED_TMP_TABLES", T::BigU, NN),
    ("SUM_SELECT_FULL_JOIN", T::BigU, NN),
    ("SUM_SELECT_FULL_RANGE_JOIN", T::BigU, NN),
    ("SUM_SELECT_RANGE", T::BigU, NN),
    ("SUM_SELECT_RANGE_CHECK", T::BigU, NN),
    ("SUM_SELECT_SCAN", T::BigU, NN),
    ("SUM_SORT_MERGE_PASSES", T::BigU, NN),
    ("SUM_SORT_RANGE", T::BigU, NN),
    ("SUM_SORT_ROWS", T::BigU, NN),
    ("SUM_SORT_SCAN", T::BigU, NN),
    ("SUM_NO_INDEX_USED", T::BigU, NN),
    ("SUM_NO_GOOD_INDEX_USED", T::BigU, NN),
    ("SUM_CPU_TIME", T::BigU, NN),
    ("MAX_CONTROLLED_MEMORY", T::BigU, NN),
    ("MAX_TOTAL_MEMORY", T::BigU, NN),
    ("COUNT_SECONDARY", T::BigU, NN),
    ("FIRST_SEEN", T::DateTime6, NN),
    ("LAST_SEEN", T::DateTime6, NN),
    ("QUANTILE_95", T::BigU, NN),
    ("QUANTILE_99", T::BigU, NN),
    ("QUANTILE_999", T::BigU, NN),
    ("QUERY_SAMPLE_TEXT", T::LongText, N),
    ("QUERY_SAMPLE_SEEN", T::DateTime6, NN),
    ("QUERY_SAMPLE_TIMER_WAIT", T::BigU, NN),
];

const DATA_LOCKS: &[Def] = &[
    ("ENGINE", T::Var(32), NN),
    ("ENGINE_LOCK_ID", T::Var(128), NN),
    ("ENGINE_TRANSACTION_ID", T::BigU, N),
    ("THREAD_ID", T::BigU, N),
    ("EVENT_ID", T::BigU, N),
    ("OBJECT_SCHEMA", T::Var(64), N),
    ("OBJECT_NAME", T::Var(64), N),
    ("PARTITION_NAME", T::Var(64), N),
    ("SUBPARTITION_NAME", T::Var(64), N),
    ("INDEX_NAME", T::Var(64), N),
    ("OBJECT_INSTANCE_BEGIN", T::BigU, NN),
    ("LOCK_TYPE", T::Var(32), NN),
    ("LOCK_MODE", T::Var(32), NN),
    ("LOCK_STATUS", T::Var(32), NN),
    ("LOCK_DATA", T::Var(8192), N),
];

const DATA_LOCK_WAITS: &[Def] = &[
    ("ENGINE", T::Var(32), NN),
    ("REQUESTING_ENGINE_LOCK_ID", T::Var(128), NN),
    ("REQUESTING_ENGINE_TRANSACTION_ID", T::BigU, N),
    ("REQUESTING_THREAD_ID", T::BigU, N),
    ("REQUESTING_EVENT_ID", T::BigU, N),
    ("REQUESTING_OBJECT_INSTANCE_BEGIN", T::BigU, NN),
    ("BLOCKING_ENGINE_LOCK_ID", T::Var(128), NN),
    ("BLOCKING_ENGINE_TRANSACTION_ID", T::BigU, N),
    ("BLOCKING_THREAD_ID", T::BigU, N),
    ("BLOCKING_EVENT_ID", T::BigU, N),
    ("BLOCKING_OBJECT_INSTANCE_BEGIN", T::BigU, NN),
];

const VARIABLES: &[Def] = &[("VARIABLE_NAME", T::Var(64), NN), ("VARIABLE_VALUE", T::Var(1024), N)];

/// The columns of `t`.
pub(crate) fn defs(t: Table) -> &'static [Def] {
    match t {
        Table::WaitsGlobal => WAITS_GLOBAL,
        Table::WaitsByThread => WAITS_BY_THREAD,
        Table::FileSummary => FILE_SUMMARY,
        Table::SetupInstruments => SETUP_INSTRUMENTS,
        Table::Threads => THREADS,
        Table::StatementsByDigest => STATEMENTS_BY_DIGEST,
        Table::DataLocks => DATA_LOCKS,
        Table::DataLockWaits => DATA_LOCK_WAITS,
        Table::GlobalStatus | Table::SessionStatus | Table::GlobalVariables | Table::SessionVariables => VARIABLES,
    }
}
