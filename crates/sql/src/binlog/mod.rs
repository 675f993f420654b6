//! The binary log as the SQL layer drives it: opening it at startup
//! (`log_bin`), logging each committing transaction's row changes and
//! each DDL statement (`capture.rs`), the statements that show and manage
//! it (`show.rs`), its variables (`vars.rs`), GTIDs (`gtid.rs`), and
//! sending it to replicas (`source.rs`). The log itself (format,
//! files, group commit) is the `quire-binlog` crate.
//!
//! Commit order (see docs/ARCHITECTURE.md "Binary log"): a transaction's
//! events are written to the log (and synced, as `sync_binlog` asks)
//! *before* the engine commits it, so the engine never holds a change
//! the log lacks when the log was synced; a transaction the log refuses
//! is rolled back. Engine commits of logged transactions run in log
//! order and record their log position; at startup the log is cut back
//! to the engine's last recorded position, so the log never holds a
//! transaction the engine lost in a crash.
//!
//! With `log_bin` OFF, `Shared::binlog` is empty and the commit path pays
//! one `OnceLock::get` test.
//!
//! Invariants:
//! 1. Only committed transactions reach the log, each as one group
//!    (GTID or ANONYMOUS_GTID, BEGIN, TABLE_MAP/ROWS..., XID); a rollback
//!    (whole, or of a statement or savepoint) removes its changes from
//!    the engine's row log before they are ever encoded.
//! 2. DDL is logged after it succeeded, as one QUERY statement.
//! 3. Changes of temporary tables are not logged (MySQL's row format
//!    does not log them either), nor those of a session with
//!    `sql_log_bin=OFF`.

pub mod capture;
pub mod gtid;
pub mod show;
pub mod source;
pub mod vars;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use quire_binlog::{BinLog, Checksum, Options};
use quire_engine::Engine;

use crate::sysvars::{SysVars, VarValue};

/// The open binary log and the settings read at each commit.
pub struct Binlog {
    pub log: BinLog,
    /// `binlog_row_metadata=FULL`.
    pub full_metadata: AtomicBool,
    /// `max_binlog_cache_size`, in bytes.
    pub max_cache_bytes: std::sync::atomic::AtomicU64,
}

fn global_u64(sv: &SysVars, name: &str, default: u64) -> u64 {
    sv.global(name).and_then(|v| v.as_u64()).unwrap_or(default)
}

fn global_str(sv: &SysVars, name: &str) -> String {
    match sv.global(name) {
        Some(VarValue::Str(s)) => s,
        Some(v) => v.display(),
        None => String::new(),
    }
}

/// Where `log_bin`'s value puts the files: `None` when the log is off;
/// else (directory, base name). A bare `log_bin` (ON) is `binlog` in the
/// datadir; a relative name is relative to the datadir.
pub fn location(log_bin: &str, datadir: &Path) -> Option<(PathBuf, String)> {
    let v = log_bin.trim();
    match v.to_ascii_uppercase().as_str() {
        "" | "OFF" | "0" | "FALSE" => return None,
        "ON" | "1" | "TRUE" => return Some((datadir.to_path_buf(), "binlog".to_string())),
        _ => {}
    }
    let p = Path::new(v);
    let p = if p.is_absolute() { p.to_path_buf() } else { datadir.join(p) };
    let base = p.file_name()?.to_string_lossy().to_string();
    // `log_bin=mysql-bin.log`: MySQL drops the extension.
    let base = base.split('.').next().unwrap_or(&base).to_string();
    Some((p.parent().map_or_else(|| datadir.to_path_buf(), Path::to_path_buf), base))
}

/// Opens the log when `log_bin` asks for it, sets `log_bin`,
/// `log_bin_basename` and `log_bin_index` to what they are, and hooks
/// the dynamic variables. `Ok(None)`: the log is off.
///
/// With the log on, the log is first cut back to the engine's last
/// logged commit (`quire_binlog::reconcile`), then the new file's start
/// is recorded in the engine (so a position exists from the first start
/// with the log on). With the log off, a position the engine holds is
/// cleared: the commits of this run are not logged, so at the next start
/// with the log on that position would not say what the engine holds.
pub fn open(sv: &Arc<SysVars>, datadir: &Path, engine: &Engine) -> Result<Option<Arc<Binlog>>, String> {
    let server_uuid = gtid::load_server_uuid(sv, datadir)?;
    let recorded = engine.binlog_position().map_err(|e| e.to_string())?;
    let loc = location(&global_str(sv, "log_bin"), datadir);
    let gtid_mode = gtid::startup_mode(sv, loc.is_some())?;
    let Some((dir, base)) = loc else {
        let _ = sv.set_startup("log_bin", "OFF");
        if recorded.is_some() {
            engine.set_binlog_position(None).map_err(|e| e.to_string())?;
            tracing::info!("log_bin is off: the engine's binary log position is cleared");
        }
        return Ok(None);
    };
    // Commits in a segment without the field record nothing: the highest
    // recorded position could then be older than what the engine holds,
    // and a cut would drop committed transactions. Not cutting is safe.
    let recorded = if engine.records_binlog_position() {
        recorded
    } else {
        tracing::error!(
            "a rollback segment page has no room for the binary log position: the binary log and the engine \
             are not reconciled after a crash"
        );
        None
    };
    let index = match global_str(sv, "log_bin_index") {
        s if s.is_empty() => dir.join(format!("{base}.index")),
        s if Path::new(&s).is_absolute() => PathBuf::from(s),
        s => datadir.join(s),
    };
    let checksum = if global_str(sv, "binlog_checksum") == "NONE" { Checksum::None } else { Checksum::Crc32 };
    let opts = Options {
        dir: dir.clone(),
        basename: base.clone(),
        index: index.clone(),
        server_id: global_u64(sv, "server_id", 1) as u32,
        checksum,
        sync_binlog: global_u64(sv, "sync_binlog", 1),
        max_size: global_u64(sv, "max_binlog_size", 1 << 30),
        expire_secs: global_u64(sv, "binlog_expire_logs_seconds", 2_592_000),
        server_uuid,
        gtid_mode,
    };
    if recorded.is_none() {
        tracing::info!(
            "the engine holds no binary log position (the log was off at the last start): the log is not cut"
        );
    }
    let log = BinLog::open_after(opts, recorded).map_err(|e| e.0)?;
    // The runner of a chain of ordered commits ran them on its thread:
    // one redo flush up to its last makes them all durable
    // (`quire_binlog::order`), as `innodb_flush_log_at_trx_commit` asks.
    let redo = Arc::clone(engine.log());
    log.after_ordered_commits(Box::new(move || {
        let lsn = quire_engine::mtr::last_commit_lsn();
        if lsn != 0 {
            let _ = redo.commit(lsn);
        }
    }));
    let start = log.status();
    engine.set_binlog_position(Some((start.file_number(), start.end))).map_err(|e| e.to_string())?;
    let _ = log.expire();
    let _ = sv.set_startup("log_bin", "ON");
    let _ = sv.set_startup("log_bin_basename", &dir.join(&base).display().to_string());
    let _ = sv.set_startup("log_bin_index", &index.display().to_string());
    let b = Arc::new(Binlog {
        log,
        full_metadata: AtomicBool::new(global_str(sv, "binlog_row_metadata") == "FULL"),
        max_cache_bytes: global_u64(sv, "max_binlog_cache_size", u64::MAX).into(),
    });
    b.log.sync_delay_us.store(global_u64(sv, "binlog_group_commit_sync_delay", 0), Ordering::Relaxed);
    b.log.sync_no_delay_count.store(global_u64(sv, "binlog_group_commit_sync_no_delay_count", 0), Ordering::Relaxed);
    hook(sv, &b);
    gtid::hook(sv, &b);
    Ok(Some(b))
}

/// `SET GLOBAL` of the log's dynamic variables reaches the open log.
fn hook(sv: &SysVars, b: &Arc<Binlog>) {
    for name in [
        "sync_binlog",
        "max_binlog_size",
        "binlog_expire_logs_seconds",
        "server_id",
        "binlog_row_metadata",
        "max_binlog_cache_size",
        "binlog_group_commit_sync_delay",
        "binlog_group_commit_sync_no_delay_count",
    ] {
        let b = b.clone();
        let _ = sv.on_change(
            name,
            Box::new(move |v| {
                let n = v.as_u64().unwrap_or(0);
                match name {
                    "sync_binlog" => b.log.sync_binlog.store(n, Ordering::Relaxed),
                    "max_binlog_size" => b.log.max_size.store(n, Ordering::Relaxed),
                    "binlog_expire_logs_seconds" => b.log.expire_secs.store(n, Ordering::Relaxed),
                    "server_id" => b.log.server_id.store(n as u32, Ordering::Relaxed),
                    "max_binlog_cache_size" => b.max_cache_bytes.store(n, Ordering::Relaxed),
                    "binlog_group_commit_sync_delay" => b.log.sync_delay_us.store(n, Ordering::Relaxed),
                    "binlog_group_commit_sync_no_delay_count" => b.log.sync_no_delay_count.store(n, Ordering::Relaxed),
                    _ => b.full_metadata.store(matches!(v, VarValue::Str(s) if s == "FULL"), Ordering::Relaxed),
                }
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::location;
    use std::path::{Path, PathBuf};

    #[test]
    fn log_bin_values_name_directory_and_base() {
        let d = Path::new("/data");
        assert_eq!(location("OFF", d), None);
        assert_eq!(location("ON", d), Some((PathBuf::from("/data"), "binlog".into())));
        assert_eq!(location("mysql-bin", d), Some((PathBuf::from("/data"), "mysql-bin".into())));
        assert_eq!(location("/logs/b.log", d), Some((PathBuf::from("/logs"), "b".into())));
    }
}
