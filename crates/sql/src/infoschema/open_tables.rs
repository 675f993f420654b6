//! SHOW OPEN TABLES' rows (the hidden OPEN_TABLES table): the base tables
//! the engine has open, by database and name.
//!
//! quire's engine opens every table of the catalog at startup and keeps
//! it open until it is dropped (`engine::Engine::table`: there is no
//! table cache to evict from, and FLUSH TABLES closes nothing), so every
//! table that opens is listed; a damaged one, which did not open, is not.
//! Left out, as MySQL leaves them out: temporary tables (private to their
//! session, outside the table cache), the data dictionary
//! (`catalog::is_dictionary`), and tables of databases the user has no
//! grant on (MySQL lists only tables the user may use).
//!
//! In_use is the number of table locks held on the table
//! (`table_lock::TableLocks::held_counts`: LOCK TABLES, FLUSH TABLES ...
//! WITH READ LOCK); a statement running on a table is not counted (MySQL
//! counts the TABLE instances of running statements too; quire keeps no
//! per-table count of them, which would cost every statement a shared
//! write). Name_locked is 0, as in MySQL 8.0 and MariaDB, where the
//! column is obsolete.

use quire_engine::row::Value;

use super::{s, Hint};
use crate::session::Session;

pub(super) fn rows(sess: &Session, hint: &Hint) -> Vec<Vec<Value>> {
    let Some(user) = sess.shared.catalog.user(&sess.user) else { return Vec::new() };
    let e = sess.engine();
    let held = sess.shared.table_locks.held_counts();
    let mut out = Vec::new();
    for name in e.table_names() {
        let Some((db, table)) = name.split_once('/') else { continue };
        if db == crate::temp_table::ENGINE_DB || crate::catalog::is_dictionary(db, table) {
            continue;
        }
        if !hint.schema_ok(db) || !hint.table_ok(table) || !user.may_use(db) || e.table(&name).is_err() {
            continue;
        }
        let in_use = held.get(&name).copied().unwrap_or(0);
        out.push(vec![s(db), s(table), Value::Int(in_use as i64), Value::Int(0)]);
    }
    out
}
