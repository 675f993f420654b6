//! `read_only` and `super_read_only`, as MySQL 8.0 enforces them
//! (`deny_updates_if_read_only_option`, `ha_commit_trans`):
//!
//! | variable            | refused for                 | exempt                                   |
//! |---------------------|-----------------------------|------------------------------------------|
//! | read_only=ON        | users without SUPER         | the replica applier; temporary tables    |
//! | super_read_only=ON  | everyone                    | the replica applier; temporary tables    |
//!
//! What is refused (1290 ER_OPTION_PREVENTS_STATEMENT): INSERT, UPDATE,
//! DELETE, REPLACE, LOAD DATA on base tables; DDL (CREATE / ALTER / DROP /
//! RENAME / TRUNCATE of databases, tables, views, indexes) other than of
//! temporary tables; account statements (CREATE / DROP USER, GRANT, REVOKE,
//! SET PASSWORD); and the COMMIT of a transaction that wrote (a
//! transaction that was open when the variable was turned on). SELECT,
//! SET, SHOW and writes to temporary tables run. quire's SUPER is ALL
//! PRIVILEGES on `*.*`.
//!
//! Setting: `super_read_only=ON` also turns `read_only` ON, and
//! `read_only=OFF` also turns `super_read_only` OFF ([`coupled`]), at
//! runtime and in my.cnf alike. A session that holds LOCK TABLES or has an
//! open transaction cannot turn either on (1192), as in MySQL.
//!
//! The two values are mirrored in atomics ([`ReadOnly`]) so that the
//! check on every write costs two loads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::session::{Plan, Session};
use crate::sysvars::{SysVars, VarValue};

/// The variable `name` set to `v` also sets another: `(name, value)`.
pub fn coupled(name: &str, v: &VarValue) -> Option<(&'static str, VarValue)> {
    let on = v.as_bool()?;
    match name {
        "super_read_only" if on => Some(("read_only", VarValue::Bool(true))),
        "read_only" if !on => Some(("super_read_only", VarValue::Bool(false))),
        _ => None,
    }
}

/// The current values, kept by hooks on the variables.
#[derive(Default)]
pub struct ReadOnly {
    read_only: AtomicBool,
    super_read_only: AtomicBool,
}

impl ReadOnly {
    /// Reads the startup values and follows later changes.
    pub fn follow(sv: &SysVars) -> Arc<ReadOnly> {
        let ro = Arc::new(ReadOnly::default());
        let b = |n: &str| sv.global(n).and_then(|v| v.as_bool()).unwrap_or(false);
        ro.read_only.store(b("read_only"), Ordering::Release);
        ro.super_read_only.store(b("super_read_only"), Ordering::Release);
        for name in ["read_only", "super_read_only"] {
            let r = ro.clone();
            let _ = sv.on_change(
                name,
                Box::new(move |v| {
                    let on = v.as_bool().unwrap_or(false);
                    if name == "read_only" {
                        r.read_only.store(on, Ordering::Release);
                    } else {
                        r.super_read_only.store(on, Ordering::Release);
                    }
                }),
            );
        }
        ro
    }

    /// `Err(1290)` if a user with (`is_super`) or without SUPER may not
    /// write now.
    pub fn check(&self, is_super: bool) -> Result<()> {
        if self.super_read_only.load(Ordering::Acquire) {
            return Err(refused("--super-read-only"));
        }
        if !is_super && self.read_only.load(Ordering::Acquire) {
            return Err(refused("--read-only"));
        }
        Ok(())
    }

    pub fn any(&self) -> bool {
        self.read_only.load(Ordering::Relaxed) || self.super_read_only.load(Ordering::Relaxed)
    }
}

/// 1290 ER_OPTION_PREVENTS_STATEMENT.
pub fn refused(option: &str) -> SqlError {
    SqlError::new(
        1290,
        "HY000",
        format!("The MySQL server is running with the {option} option so it cannot execute this statement"),
    )
}

impl Session {
    fn is_super(&self) -> bool {
        self.shared.catalog.user(&self.user).is_some_and(|u| u.grants.contains("*"))
    }

    /// Whether `db`.`table` is one of this session's temporary tables.
    fn is_temporary(&self, db: Option<&str>, table: &str) -> bool {
        let db = db.or(self.db.as_deref()).unwrap_or("");
        self.temps.get(db, table).is_some()
    }

    fn object_is_temporary(&self, name: &ast::ObjectName) -> bool {
        let parts: Vec<String> =
            name.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default()).collect();
        match parts.as_slice() {
            [t] => self.is_temporary(None, t),
            [d, t] => self.is_temporary(Some(d), t),
            _ => false,
        }
    }

    /// The statement check: `Err(1290)` for a statement that would change
    /// persistent data while read_only applies to this session. A
    /// statement that may write marks the transaction for the COMMIT
    /// check ([`Session::check_commit_read_only`]).
    pub(crate) fn refuse_if_read_only(&self, plan: &Plan) -> Result<()> {
        if self.replica_applier {
            return Ok(());
        }
        let temp = |t: &crate::plan::TableRef| t.table.name().starts_with(crate::temp_table::ENGINE_DB);
        let writes = match plan {
            Plan::Insert(p) => !temp(&p.table),
            Plan::Update(p) => !temp(&p.table),
            Plan::Delete(p) => !temp(&p.table),
            Plan::Admin(a) => a.is_ddl(),
            Plan::Other(stmt) => self.statement_writes(stmt),
            Plan::Select(_) | Plan::Query(_) | Plan::Explain(_) => false,
        };
        if writes {
            if self.shared.read_only.any() {
                self.shared.read_only.check(self.is_super())?;
            }
            self.wrote_persistent.set(true);
        }
        Ok(())
    }

    /// MySQL's check in `ha_commit_trans`: a transaction that wrote base
    /// tables does not commit once read_only applies to its session (it
    /// is rolled back by the caller).
    pub(crate) fn check_commit_read_only(&self) -> Result<()> {
        if !self.wrote_persistent.replace(false) || self.replica_applier || !self.shared.read_only.any() {
            return Ok(());
        }
        self.shared.read_only.check(self.is_super())
    }

    /// Whether a statement run from its AST writes persistent data.
    fn statement_writes(&self, stmt: &ast::Statement) -> bool {
        use ast::Statement as S;
        match stmt {
            S::CreateTable(ct) => !ct.temporary,
            S::Drop { temporary, object_type, names, .. } => {
                let only_temporary_tables =
                    *object_type == ast::ObjectType::Table && names.iter().all(|n| self.object_is_temporary(n));
                !(*temporary || only_temporary_tables)
            }
            S::Truncate(t) => !t.table_names.iter().all(|n| self.object_is_temporary(&n.name)),
            S::AlterTable(a) => !self.object_is_temporary(&a.name),
            S::CreateIndex(ci) => !self.object_is_temporary(&ci.table_name),
            S::Insert(i) => match &i.table {
                ast::TableObject::TableName(n) => !self.object_is_temporary(n),
                _ => true,
            },
            S::CreateDatabase { .. }
            | S::CreateSchema { .. }
            | S::CreateView(_)
            | S::RenameTable(_)
            | S::Update(_)
            | S::Delete(_)
            | S::LoadData { .. }
            | S::CreateUser(_)
            | S::Grant(_)
            | S::Revoke(_) => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(sv: &SysVars, name: &str) -> bool {
        sv.global(name).and_then(|v| v.as_bool()).unwrap_or(false)
    }

    #[test]
    fn super_read_only_sets_read_only_and_read_only_off_clears_it() {
        let sv = SysVars::new();
        let ro = ReadOnly::follow(&sv);
        sv.set_global("super_read_only", &VarValue::Bool(true)).unwrap();
        assert!(on(&sv, "read_only") && on(&sv, "super_read_only"));
        assert_eq!(ro.check(true).unwrap_err().code, 1290, "super_read_only refuses SUPER too");
        sv.set_global("read_only", &VarValue::Bool(false)).unwrap();
        assert!(!on(&sv, "read_only") && !on(&sv, "super_read_only"));
        assert!(ro.check(false).is_ok());
        sv.set_global("read_only", &VarValue::Bool(true)).unwrap();
        assert!(!on(&sv, "super_read_only"), "read_only=ON leaves super_read_only alone");
        assert!(ro.check(true).is_ok(), "read_only lets SUPER write");
        let e = ro.check(false).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (1290, "The MySQL server is running with the --read-only option so it cannot execute this statement")
        );
        sv.set_global("super_read_only", &VarValue::Bool(false)).unwrap();
        assert!(on(&sv, "read_only"), "super_read_only=OFF leaves read_only on");
    }

    #[test]
    fn the_coupling_holds_for_startup_values() {
        let sv = SysVars::new();
        sv.set_startup("super_read_only", "ON").unwrap();
        assert!(on(&sv, "read_only"));
        sv.set_startup("read_only", "OFF").unwrap();
        assert!(!on(&sv, "super_read_only"));
    }
}
