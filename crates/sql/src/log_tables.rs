//! `mysql.general_log` and `mysql.slow_log`, with MySQL 8.0's columns.
//!
//! MySQL always has these two tables (CSV tables that the server writes
//! only with `log_output=TABLE`), and mariadb-dump `--all-databases`
//! dumps their structure (`CREATE TABLE IF NOT EXISTS`) whatever else it
//! dumps of `mysql`, failing when they are missing. quire creates them at
//! start, as ordinary InnoDB tables (it has no CSV engine), and writes no
//! log into them: they stay empty, as MySQL's do with the default
//! `log_output=FILE`.
//!
//! Invariant: created only when missing, so a data directory from an
//! earlier version gains them and one that has them keeps its own.

use quire_engine::Engine;

use crate::error::{Result, SqlError};

/// (engine name, MySQL 8.0's definition).
const TABLES: &[(&str, &str)] = &[
    (
        "mysql/general_log",
        "CREATE TABLE general_log (
            event_time TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
            user_host MEDIUMTEXT NOT NULL,
            thread_id BIGINT UNSIGNED NOT NULL,
            server_id INT UNSIGNED NOT NULL,
            command_type VARCHAR(64) NOT NULL,
            argument MEDIUMBLOB NOT NULL)",
    ),
    (
        "mysql/slow_log",
        "CREATE TABLE slow_log (
            start_time TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
            user_host MEDIUMTEXT NOT NULL,
            query_time TIME(6) NOT NULL,
            lock_time TIME(6) NOT NULL,
            rows_sent INT NOT NULL,
            rows_examined INT NOT NULL,
            db VARCHAR(512) NOT NULL,
            last_insert_id INT NOT NULL,
            insert_id INT NOT NULL,
            server_id INT UNSIGNED NOT NULL,
            sql_text MEDIUMBLOB NOT NULL,
            thread_id BIGINT UNSIGNED NOT NULL)",
    ),
];

/// Creates the log tables that do not exist yet.
pub fn create_tables(engine: &Engine) -> Result<()> {
    create_missing(engine, TABLES)
}

/// Creates each table of `tables` (engine name, CREATE TABLE text) that
/// does not exist yet: quire's own tables in `mysql` (the log tables,
/// the replica's position tables).
pub(crate) fn create_missing(engine: &Engine, tables: &[(&str, &str)]) -> Result<()> {
    let names = engine.table_names();
    for &(name, sql) in tables {
        if names.iter().any(|n| n == name) {
            continue;
        }
        let stmt = crate::session::parse(sql)?.into_iter().next();
        let Some(sqlparser::ast::Statement::CreateTable(ct)) = stmt else {
            return Err(SqlError::internal(format!("the definition of {name} is no CREATE TABLE")));
        };
        engine.create_table(name, crate::ddl::schema_of(&ct)?)?;
    }
    Ok(())
}
