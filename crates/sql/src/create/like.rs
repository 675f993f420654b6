//! `CREATE TABLE [IF NOT EXISTS] t LIKE s`: an empty copy of `s`'s
//! definition, as MySQL makes it: the same columns (types, NULL, defaults,
//! AUTO_INCREMENT property, COMMENTs), keys and clustering, the table
//! COMMENT; not the AUTO_INCREMENT counter or its start, not the rows, and
//! no FOREIGN KEYs (their indexes stay, being part of `s`'s keys).
//! A view as the source is 1347 (MySQL's answer; MariaDB copies its
//! columns).

use quire_engine::row::TableExtras;
use sqlparser::ast;

use crate::admin::{check_access, open_error, split_name};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// Creates the engine table `full` (known not to exist), named
/// `new_name` in SQL, like the table `like`.
pub fn create(s: &mut Session, full: &str, new_name: &str, like: &ast::CreateTableLikeKind) -> Result<Output> {
    let src = match like {
        ast::CreateTableLikeKind::Plain(l) | ast::CreateTableLikeKind::Parenthesized(l) => {
            if l.defaults.is_some() {
                return Err(SqlError::unsupported("LIKE ... INCLUDING / EXCLUDING DEFAULTS"));
            }
            &l.name
        }
    };
    let (db, t) = split_name(s, src)?;
    check_access(s, &db)?;
    if s.shared.catalog.views_in(&db).iter().any(|v| v.eq_ignore_ascii_case(&t)) {
        return Err(SqlError::new(1347, "HY000", format!("'{db}.{t}' is not BASE TABLE")));
    }
    let tab = s.engine().table(&s.table_key(&db, &t)).map_err(|e| open_error(e, &db, &t))?;
    let from = tab.extras();
    // CHECK constraints come along; generated names take the new table's
    // (`s_chk_1` → `t_chk_1`), as MySQL names them.
    let checks = from
        .checks
        .into_iter()
        .map(|mut c| {
            if let Some(n) = c.name.strip_prefix(&format!("{t}_chk_")) {
                c.name = format!("{new_name}_chk_{n}");
            }
            c
        })
        .collect();
    let extras = TableExtras {
        auto_increment_start: 0,
        comment: from.comment,
        column_comments: from.column_comments,
        checks,
        generated: from.generated,
        default_collation: from.default_collation,
    };
    s.engine().create_table_with_extras(full, tab.schema(), Vec::new(), extras)?;
    Ok(Output::ok())
}
