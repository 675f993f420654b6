//! The general query log (`general_log`, `general_log_file`,
//! `log_output`), written as MySQL 8.0 writes it to a file: when the file
//! is opened a header of three lines, then one line per event:
//!
//! ```text
//! 2024-05-01T10:00:00.123456Z<TAB>   12 Query<TAB>SELECT 1
//! ```
//!
//! the UTC time with microseconds, a tab, the connection id right-aligned
//! in five columns, a space, the command, a tab, the argument. Events:
//! `Connect` (`user@host on db using TCP/IP`), `Query` (each COM_QUERY
//! text, before it runs) and `Quit` (COM_QUIT). Prepared statements'
//! `Prepare` / `Execute` are not logged yet.
//!
//! `log_output` NONE logs nothing; TABLE is refused (1235): quire's
//! `mysql.general_log` table stays empty (`log_tables`).
//!
//! The slow query log (`slow_query_log`, `slow_query_log_file`) is the
//! same kind of file ([`TextLog`]) with its own entries (`slow_log.rs`).
//!
//! Thread safety: the open file sits behind a mutex; `on` is an atomic
//! that a session tests per command without the lock. The `SET GLOBAL`
//! hooks ([`TextLog::follow`]) run under `SysVars`' set lock, one at a
//! time, and read the other two variables through a `Weak`.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::sysvars::{SysVars, VarError, VarValue};

/// The general query log.
pub type GeneralLog = TextLog;

/// A server log file that `log_output` and two variables of its own
/// (whether it is on, its file's name) govern: the general query log, the
/// slow query log.
pub struct TextLog {
    /// Whether events are written (the log's variable ON, log_output has
    /// FILE, and the file opened).
    on: AtomicBool,
    /// The open log and its path.
    file: Mutex<Option<(PathBuf, File)>>,
    /// Where a relative file name lives.
    datadir: PathBuf,
    /// The variables that turn it on and name its file.
    vars: [&'static str; 2],
}

impl TextLog {
    /// The general query log, following `general_log` and
    /// `general_log_file`.
    pub fn follow(sysvars: &Arc<SysVars>, datadir: PathBuf) -> Arc<Self> {
        Self::following(sysvars, datadir, ["general_log", "general_log_file"])
    }

    /// A log that follows `vars` (on, file) and `log_output`: opened now
    /// if they say so, and again after each `SET GLOBAL` of one of them.
    pub fn following(sysvars: &Arc<SysVars>, datadir: PathBuf, vars: [&'static str; 2]) -> Arc<Self> {
        let log = Arc::new(TextLog { on: AtomicBool::new(false), file: Mutex::new(None), datadir, vars });
        log.apply(sysvars);
        for name in [vars[0], vars[1], "log_output"] {
            let (weak_log, weak_vars): (Weak<TextLog>, Weak<SysVars>) = (Arc::downgrade(&log), Arc::downgrade(sysvars));
            let _ = sysvars.on_change(
                name,
                Box::new(move |_: &VarValue| {
                    if let (Some(log), Some(vars)) = (weak_log.upgrade(), weak_vars.upgrade()) {
                        log.apply(&vars);
                    }
                }),
            );
        }
        log
    }

    /// Opens, reopens or closes the file as the variables now say.
    fn apply(&self, sysvars: &SysVars) {
        let [switch, file_var] = self.vars;
        let wanted = sysvars.global(switch).and_then(|v| v.as_bool()) == Some(true)
            && sysvars.global("log_output").is_some_and(|v| v.display().split(',').any(|m| m == "FILE"));
        let mut file = self.file.lock();
        if !wanted {
            self.on.store(false, Ordering::Release);
            *file = None;
            return;
        }
        let name = sysvars.global(file_var).map_or_else(|| "quire.log".to_string(), |v| v.display());
        let path = self.datadir.join(name.trim());
        if file.as_ref().is_some_and(|(p, _)| *p == path) {
            self.on.store(true, Ordering::Release);
            return;
        }
        let port = sysvars.global("port").map_or_else(String::new, |v| v.display());
        let socket = sysvars.global("socket").map_or_else(String::new, |v| v.display());
        let opened = std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| {
            write!(
                f,
                "{}, Version: {} (quire). started with:\nTcp port: {port}  Unix socket: {socket}\n\
                 Time                 Id Command    Argument\n",
                std::env::args().next().unwrap_or_else(|| "quire".into()),
                crate::sysvars::VERSION
            )?;
            Ok(f)
        });
        match opened {
            Ok(f) => {
                *file = Some((path, f));
                self.on.store(true, Ordering::Release);
            }
            Err(e) => {
                tracing::warn!("{switch}: cannot open {}: {e}; the log stays off", path.display());
                *file = None;
                self.on.store(false, Ordering::Release);
            }
        }
    }

    /// Whether events are being written.
    pub fn enabled(&self) -> bool {
        self.on.load(Ordering::Acquire)
    }

    /// Writes one event line (see the module note).
    pub fn write(&self, connection_id: u32, command: &str, argument: &str) {
        if !self.enabled() {
            return;
        }
        self.append(&format!("{}\t{connection_id:5} {command}\t{argument}\n", utc_now()));
    }

    /// Writes `text` as it is, when the log is on.
    pub fn append(&self, text: &str) {
        if !self.enabled() {
            return;
        }
        if let Some((path, f)) = self.file.lock().as_mut() {
            if let Err(e) = f.write_all(text.as_bytes()) {
                tracing::warn!("{}: writing {}: {e}", self.vars[0], path.display());
            }
        }
    }
}

/// 1235 for `log_output` naming TABLE (see the module note).
pub(crate) fn refuse(name: &str, value: &VarValue) -> Result<(), VarError> {
    if name == "log_output" && value.as_str().is_some_and(|v| v.split(',').any(|m| m == "TABLE")) {
        return Err(VarError {
            code: 1235,
            state: "42000",
            message: format!("This version of quire doesn't yet support 'SET log_output = '{}''", value.display()),
        });
    }
    Ok(())
}

/// Now as MySQL's logs print it: `2024-05-01T10:00:00.123456Z`.
pub(crate) fn utc_now() -> String {
    let us = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
    let (days, in_day) = (us.div_euclid(86_400_000_000), us.rem_euclid(86_400_000_000));
    let secs = in_day / 1_000_000;
    match quire_engine::row::tz::civil_from_days(days) {
        Some(d) => format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
            d.year,
            d.month,
            d.day,
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            in_day % 1_000_000
        ),
        None => String::new(),
    }
}
