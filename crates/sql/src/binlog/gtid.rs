//! MySQL 8.0's GTIDs as the SQL layer sees them (the sets and the log's
//! numbering are `quire_binlog::gtid` and `quire_binlog::log`):
//!
//! - `server_uuid`, generated once and kept in the datadir's `auto.cnf`
//!   (`[auto]\nserver-uuid=...`, MySQL's file);
//! - `gtid_mode` (changed one step at a time: OFF ↔ OFF_PERMISSIVE ↔
//!   ON_PERMISSIVE ↔ ON, 1788), `enforce_gtid_consistency` (ON required
//!   by gtid_mode=ON, 1779);
//! - `gtid_executed` / `gtid_purged`, read from the open log;
//! - the session's `gtid_next` (AUTOMATIC, ANONYMOUS or `uuid:N`): the
//!   GTID of the next transaction; a transaction whose `uuid:N` is
//!   already executed is skipped (its writes and DDL do nothing, its
//!   COMMIT logs nothing), as MySQL does for appliers and `mysqlbinlog`
//!   output;
//! - GTID_SUBSET() and GTID_SUBTRACT().
//!
//! `gtid_next` state, per session (MySQL's `Gtid_specification` types):
//!
//! | state                         | next transaction                   | leaves it by           |
//! |-------------------------------|------------------------------------|------------------------|
//! | AUTOMATIC                     | numbered by the log (gtid_mode ON) | SET gtid_next          |
//! | ANONYMOUS                     | anonymous                          | SET gtid_next          |
//! | `uuid:N`, not used            | gets `uuid:N` (or is skipped)      | its COMMIT / ROLLBACK  |
//! | `uuid:N`, used (UNDEFINED)    | refused, 1837                      | SET gtid_next          |
//!
//! quire's statements that MySQL 8.0 refuses under
//! `enforce_gtid_consistency=ON`: none. CREATE TABLE ... SELECT is
//! allowed by 8.0.21+, temporary tables inside transactions are allowed
//! with row-based logging (8.0.13+), and quire has no non-transactional
//! engine for 1785.

use std::path::Path;
use std::sync::Arc;

use quire_binlog::{Gtid, GtidMode, GtidNext, GtidSet, Uuid};
use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::sysvars::{SysVars, VarValue};

use super::Binlog;

/// The datadir file holding `server_uuid` (MySQL's name and format).
pub const AUTO_CNF: &str = "auto.cnf";

/// Reads `server_uuid` from `datadir/auto.cnf`, or makes one and writes
/// the file (synced) when there is none; sets `@@server_uuid`.
pub fn load_server_uuid(sv: &SysVars, datadir: &Path) -> std::result::Result<Uuid, String> {
    let path = datadir.join(AUTO_CNF);
    let uuid = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let line = text.lines().map(str::trim).find_map(|l| l.strip_prefix("server-uuid"));
            let value = line.and_then(|l| l.trim_start().strip_prefix('=')).map(str::trim);
            value
                .and_then(Uuid::parse)
                .ok_or_else(|| format!("'{}' holds no valid server-uuid; fix or remove it", path.display()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let uuid = Uuid::random().map_err(|e| format!("cannot generate server_uuid: {e}"))?;
            write_auto_cnf(&path, &uuid).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
            tracing::info!("generated server_uuid {uuid} in '{}'", path.display());
            uuid
        }
        Err(e) => return Err(format!("cannot read '{}': {e}", path.display())),
    };
    let _ = sv.set_startup("server_uuid", &uuid.to_string());
    Ok(uuid)
}

fn write_auto_cnf(path: &Path, uuid: &Uuid) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("cnf_tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(format!("[auto]\nserver-uuid={uuid}\n").as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(d) = path.parent() {
        std::fs::File::open(d)?.sync_all()?;
    }
    Ok(())
}

/// `gtid_mode` as configured at startup; an `Err` stops the start.
pub fn startup_mode(sv: &SysVars, log_on: bool) -> std::result::Result<GtidMode, String> {
    let m = sv.global("gtid_mode").and_then(|v| v.as_str().and_then(GtidMode::parse)).unwrap_or(GtidMode::Off);
    if m != GtidMode::Off && !log_on {
        return Err(format!("This version of quire doesn't yet support 'gtid_mode={}' without log_bin", m.name()));
    }
    if m == GtidMode::On && !enforce_on(sv) {
        return Err("GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON.".into());
    }
    Ok(m)
}

fn enforce_on(sv: &SysVars) -> bool {
    sv.global("enforce_gtid_consistency").and_then(|v| v.as_str().map(|s| s == "ON")).unwrap_or(false)
}

/// Hooks the open log to the GTID variables: `gtid_executed` and
/// `gtid_purged` read from it, `SET GLOBAL gtid_mode` reaches it.
pub fn hook(sv: &SysVars, b: &Arc<Binlog>) {
    let l = b.clone();
    let _ = sv.compute("gtid_executed", Arc::new(move || VarValue::Str(l.log.gtid_executed().to_string())));
    let l = b.clone();
    let _ = sv.compute("gtid_purged", Arc::new(move || VarValue::Str(l.log.gtid_purged().to_string())));
    let l = b.clone();
    let _ = sv.on_change(
        "gtid_mode",
        Box::new(move |v| {
            if let Some(m) = v.as_str().and_then(GtidMode::parse) {
                l.log.set_gtid_mode(m);
            }
        }),
    );
}

fn malformed_set(s: &str) -> SqlError {
    SqlError::new(1772, "HY000", format!("Malformed GTID set specification '{s}'."))
}

fn parse_set(v: &Value) -> Result<Option<GtidSet>> {
    match v {
        Value::Null => Ok(None),
        v => {
            let s = crate::expr::as_string(v);
            GtidSet::parse(&s).map(Some).ok_or_else(|| malformed_set(&s))
        }
    }
}

/// GTID_SUBSET(a, b) and GTID_SUBTRACT(a, b); `None` for other names.
pub fn call(name: &str, args: &[Value]) -> Result<Option<Value>> {
    if !matches!(name, "gtid_subset" | "gtid_subtract") || args.len() != 2 {
        return Ok(None);
    }
    let (Some(a), Some(b)) = (parse_set(&args[0])?, parse_set(&args[1])?) else { return Ok(Some(Value::Null)) };
    Ok(Some(match name {
        "gtid_subset" => Value::Int(i64::from(a.is_subset(&b))),
        _ => Value::Str(a.subtract(&b).to_string()),
    }))
}

impl Session {
    /// The GTID this session's next transaction takes (`gtid_next`);
    /// 1837 once a `uuid:N` was used by a COMMIT or ROLLBACK.
    pub(crate) fn gtid_next(&self) -> Result<GtidNext> {
        let v = self.vars.get("gtid_next").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        match v.as_str() {
            "" | "AUTOMATIC" => Ok(GtidNext::Automatic),
            "ANONYMOUS" => Ok(GtidNext::Anonymous),
            s => {
                if self.gtid_next_used.get() {
                    return Err(SqlError::new(
                        1837,
                        "HY000",
                        format!(
                            "When @@SESSION.GTID_NEXT is set to a GTID, you must explicitly set it to a different \
                             value after a COMMIT or ROLLBACK. Please check GTID_NEXT variable manual page for \
                             detailed explanation. Current @@SESSION.GTID_NEXT is '{s}'."
                        ),
                    ));
                }
                Gtid::parse(s).map(GtidNext::Given).ok_or_else(|| malformed_gtid(s))
            }
        }
    }

    /// A transaction logged with `next`: a given GTID is used up.
    pub(crate) fn gtid_logged(&self, next: GtidNext) {
        if matches!(next, GtidNext::Given(_)) {
            self.gtid_next_used.set(true);
        }
    }

    /// Before a statement that writes or is logged DDL: 1837 when
    /// `gtid_next` is used up (before anything runs, so that DDL is not
    /// done unlogged); `Ok(true)` when `gtid_next` names a GTID already
    /// executed: the session's writes and DDL are then skipped until its
    /// COMMIT.
    pub(crate) fn gtid_skips_statement(&self) -> Result<bool> {
        let GtidNext::Given(g) = self.gtid_next()? else { return Ok(false) };
        Ok(self.shared.binlog.get().is_some_and(|b| b.log.is_executed(&g)))
    }

    /// After an explicit transaction's COMMIT (`committed`) or ROLLBACK
    /// with `gtid_next` = `uuid:N` not used by a logged transaction: a
    /// COMMIT of a transaction that logged nothing logs an empty one
    /// (GTID, BEGIN, COMMIT), as MySQL does, unless the GTID was already
    /// executed (skipped); either way the GTID is used up.
    pub(crate) fn gtid_after_transaction(&self, committed: bool) -> Result<()> {
        let next = match self.gtid_next() {
            Ok(GtidNext::Given(g)) => g,
            _ => return Ok(()),
        };
        self.gtid_next_used.set(true);
        let Some(b) = self.shared.binlog.get() else { return Ok(()) };
        if !committed || b.log.is_executed(&next) {
            return Ok(());
        }
        self.log_empty_transaction(GtidNext::Given(next))
    }

    /// SET SESSION gtid_next = `v`: the canonical value to store.
    pub(crate) fn check_gtid_next(&self, v: &VarValue) -> Result<VarValue> {
        let s = v.as_str().map(str::trim).unwrap_or("").to_string();
        if self.in_txn {
            return Err(SqlError::new(
                1768,
                "HY000",
                "The system variable @@SESSION.GTID_NEXT cannot change inside a transaction.",
            ));
        }
        let mode = self.shared.binlog.get().map_or(GtidMode::Off, |b| b.log.gtid_mode());
        let canonical = if s.eq_ignore_ascii_case("AUTOMATIC") {
            "AUTOMATIC".to_string()
        } else if s.eq_ignore_ascii_case("ANONYMOUS") {
            if mode == GtidMode::On {
                return Err(SqlError::new(
                    1782,
                    "HY000",
                    "@@SESSION.GTID_NEXT cannot be set to ANONYMOUS when @@GLOBAL.GTID_MODE = ON.",
                ));
            }
            "ANONYMOUS".to_string()
        } else {
            let g = Gtid::parse(&s).ok_or_else(|| malformed_gtid(&s))?;
            if mode == GtidMode::Off {
                return Err(SqlError::new(
                    1781,
                    "HY000",
                    "@@SESSION.GTID_NEXT cannot be set to UUID:NUMBER when @@GLOBAL.GTID_MODE = OFF.",
                ));
            }
            g.to_string()
        };
        self.gtid_next_used.set(false);
        Ok(VarValue::Str(canonical))
    }

    /// SET GLOBAL of a GTID variable: `Ok(true)` when done here (nothing
    /// left for the caller to store), `Ok(false)` when the caller stores
    /// the checked value.
    pub(crate) fn set_global_gtid_var(&self, name: &str, v: &VarValue) -> Result<bool> {
        let sv = &self.shared.sysvars;
        let text = || v.as_str().map(str::to_string).unwrap_or_else(|| v.display());
        match name {
            "gtid_mode" => {
                let Some(new) = GtidMode::parse(&text()).or_else(|| {
                    v.as_u64().and_then(|i| GtidMode::NAMES.get(i as usize)).copied().and_then(GtidMode::parse)
                }) else {
                    return Ok(false); // the caller's 1231
                };
                let cur =
                    sv.global("gtid_mode").and_then(|v| v.as_str().and_then(GtidMode::parse)).unwrap_or(GtidMode::Off);
                if (new as i32 - cur as i32).abs() > 1 {
                    return Err(SqlError::new(
                        1788,
                        "HY000",
                        "The value of @@GLOBAL.GTID_MODE can only be changed one step at a time: OFF <-> \
                         OFF_PERMISSIVE <-> ON_PERMISSIVE <-> ON. Also note that this value must be stepped up \
                         or down simultaneously on all servers. See the Manual for instructions.",
                    ));
                }
                if new != GtidMode::Off && self.shared.binlog.get().is_none() {
                    return Err(SqlError::unsupported(format!("gtid_mode={} without log_bin", new.name())));
                }
                if new == GtidMode::On && !enforce_on(sv) {
                    return Err(SqlError::new(1779, "HY000", "GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON."));
                }
                if new == GtidMode::Off && crate::replica::auto_positioned(&self.shared.engine) {
                    return Err(SqlError::new(
                        3111,
                        "HY000",
                        "SET @@GLOBAL.GTID_MODE = OFF is not allowed because replication channel '' is configured \
                         in AUTO_POSITION mode. Execute CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0 FOR \
                         CHANNEL '' before you set @@GLOBAL.GTID_MODE = OFF.",
                    ));
                }
                Ok(false)
            }
            "enforce_gtid_consistency" => {
                let on = matches!(v, VarValue::Str(s) if s.eq_ignore_ascii_case("ON"))
                    || matches!(v, VarValue::Int(1) | VarValue::UInt(1) | VarValue::Bool(true));
                let mode = sv.global("gtid_mode").and_then(|v| v.as_str().and_then(GtidMode::parse));
                if mode == Some(GtidMode::On) && !on {
                    return Err(SqlError::new(1779, "HY000", "GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON."));
                }
                Ok(false)
            }
            "gtid_purged" => {
                let t = text();
                let (add, plus) = match t.trim().strip_prefix('+') {
                    Some(rest) => (rest.to_string(), true),
                    None => (t.clone(), false),
                };
                let set = GtidSet::parse(&add).ok_or_else(|| malformed_set(&t))?;
                let Some(b) = self.shared.binlog.get() else {
                    return Err(SqlError::unsupported("SET GLOBAL gtid_purged without log_bin"));
                };
                match b.log.add_gtid_purged(&set, !plus) {
                    Ok(()) => Ok(true),
                    Err(None) if plus => Err(SqlError::new(
                        3546,
                        "HY000",
                        "@@GLOBAL.GTID_PURGED cannot be changed: the added gtid set must not overlap with \
                         @@GLOBAL.GTID_EXECUTED",
                    )),
                    Err(None) => Err(SqlError::new(
                        1840,
                        "HY000",
                        "@@GLOBAL.GTID_PURGED can only be set when @@GLOBAL.GTID_EXECUTED is empty.",
                    )),
                    Err(Some(e)) => Err(super::capture::logging_impossible(&e.0)),
                }
            }
            "gtid_executed" => Err(SqlError::new(1238, "HY000", "Variable 'gtid_executed' is a read only variable")),
            _ => Ok(false),
        }
    }
}

fn malformed_gtid(s: &str) -> SqlError {
    SqlError::new(1774, "HY000", format!("Malformed GTID specification '{s}'."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_cnf_is_made_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let sv = SysVars::new();
        let a = load_server_uuid(&sv, dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(AUTO_CNF)).unwrap();
        assert_eq!(text, format!("[auto]\nserver-uuid={a}\n"));
        assert_eq!(load_server_uuid(&sv, dir.path()).unwrap(), a);
        assert_eq!(sv.global("server_uuid"), Some(VarValue::Str(a.to_string())));
        std::fs::write(dir.path().join(AUTO_CNF), "[auto]\nserver-uuid=nope\n").unwrap();
        assert!(load_server_uuid(&sv, dir.path()).is_err());
    }

    #[test]
    fn subset_and_subtract_functions() {
        let a = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        let s = |x: &str| Value::Str(x.to_string());
        let f = |n: &str, x: &str, y: &str| call(n, &[s(x), s(y)]).unwrap().unwrap();
        assert_eq!(f("gtid_subset", &format!("{a}:2-3"), &format!("{a}:1-5")), Value::Int(1));
        assert_eq!(f("gtid_subset", &format!("{a}:2-7"), &format!("{a}:1-5")), Value::Int(0));
        assert_eq!(f("gtid_subtract", &format!("{a}:1-10"), &format!("{a}:3-4")), s(&format!("{a}:1-2:5-10")));
        assert_eq!(call("gtid_subset", &[Value::Null, s("")]).unwrap(), Some(Value::Null));
        assert_eq!(call("gtid_subset", &[s("bad"), s("")]).unwrap_err().code, 1772);
    }
}
