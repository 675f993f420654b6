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

const VARIABLES: &[Def] = &[("VARIABLE_NAME", T::Var(64), NN), ("VARIABLE_VALUE", T::Var(1024), N)];

/// The columns of `t`.
pub(crate) fn defs(t: Table) -> &'static [Def] {
    match t {
        Table::WaitsGlobal => WAITS_GLOBAL,
        Table::WaitsByThread => WAITS_BY_THREAD,
        Table::FileSummary => FILE_SUMMARY,
        Table::SetupInstruments => SETUP_INSTRUMENTS,
        Table::Threads => THREADS,
        Table::GlobalStatus | Table::SessionStatus | Table::GlobalVariables | Table::SessionVariables => VARIABLES,
    }
}
