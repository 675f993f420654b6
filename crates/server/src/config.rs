//! Startup configuration: a `my.cnf` and the command line, read into the
//! system variables ([`quire_sql::sysvars`]) and from them into the
//! engine's settings ([`EngineConfig`]).
//!
//! Sources, in the order applied (a later value wins):
//! 1. the variables' defaults;
//! 2. the defaults file, if one is given, top to bottom (`!include` and
//!    `!includedir` in place); no file is read unless named, so a MySQL
//!    installed on the same machine (`/etc/my.cnf`) is never picked up;
//! 3. the command line, left to right.
//!
//! Groups read from a `my.cnf`: `[mysqld]`, `[server]`, `[mysqld-8.0]`
//! and `[quire]`; others (`[client]`, `[mysqldump]` ...) are skipped.
//!
//! Option names, in both sources, are compared lowercase with `-` as
//! `_`, and may carry MySQL's prefixes: `loose-` (an unknown option is a
//! warning anyway, so it only comes off), `skip-`/`disable-` (the option
//! OFF; `=0` turns it back ON) and `enable-` (ON; `=0` OFF). A prefix is
//! only a prefix when the name without it is a variable: `skip_name_resolve`
//! is a variable of its own.
//!
//! What happens to each option:
//!
//! | option                               | outcome                                      |
//! |--------------------------------------|----------------------------------------------|
//! | variable quire honours, good value   | set                                          |
//! | variable with no effect by design    | set; warning "accepted but not used: why"    |
//! | refused non-default value (1235)     | [`ConfigError::Value`], fatal                |
//! | unknown name                         | warning "unknown variable 'x' ignored"       |
//! | session-only variable                | warning, ignored                             |
//! | bad value (type, range, enum member) | [`ConfigError::Value`], fatal                |
//! | malformed `my.cnf` line              | [`ConfigError::Syntax`] with its line, fatal |

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use quire_engine::config::FlushMethod;
use quire_engine::dblwr::DoublewriteMode;
use quire_engine::ibuf::Mode as ChangeBufferMode;
use quire_engine::log::FlushAtCommit;
use quire_engine::EngineConfig;
use quire_engine::ShutdownMode;
use quire_sql::sysvars::{self, normalise_name, SysVars, VarKind, VarValue};

/// How deep `!include` may nest (a guard against include cycles).
const MAX_INCLUDE_DEPTH: usize = 10;

/// `back_log`'s upper bound; its autosized value (`max_connections`) is
/// capped here, as in MySQL 8.0.
const MAX_BACK_LOG: u64 = 65535;

/// `my.cnf` groups quire reads.
const GROUPS: &[&str] = &["mysqld", "server", "mysqld-8.0", "quire"];

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A `my.cnf` line that is not a group, option, comment or directive.
    #[error("{file}:{line}: {reason}")]
    Syntax { file: String, line: usize, reason: String },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("command line: {0}")]
    CommandLine(String),
    /// A known variable given a value it cannot take.
    #[error("invalid value for '{name}': {reason}")]
    Value { name: String, reason: String },
}

fn value_error(name: &str, reason: impl ToString) -> ConfigError {
    ConfigError::Value { name: name.to_string(), reason: reason.to_string() }
}

// ---------------------------------------------------------------------------
// Option names.

/// Normalises an option name and resolves a `skip_`/`disable_`/`enable_`
/// prefix into the value, keeping a `loose_` prefix in front of the
/// result. Idempotent, so options may pass through it more than once.
fn resolve_option(key: &str, value: &str) -> (String, String) {
    let key = normalise_name(key);
    let (loose, name) = match key.strip_prefix("loose_") {
        Some(rest) => ("loose_", rest),
        None => ("", key.as_str()),
    };
    if sysvars::lookup(name).is_none() {
        for (prefix, negates) in [("skip_", true), ("disable_", true), ("enable_", false)] {
            if let Some(target) = name.strip_prefix(prefix).filter(|t| sysvars::lookup(t).is_some()) {
                let zero = value.trim() == "0";
                let on = if negates { zero } else { !zero };
                return (format!("{loose}{target}"), if on { "ON" } else { "OFF" }.to_string());
            }
        }
    }
    (format!("{loose}{name}"), value.to_string())
}

// ---------------------------------------------------------------------------
// my.cnf.

/// The options of the `[mysqld]`-like groups of a `my.cnf`, in order,
/// names normalised (see the module note; a `loose_` prefix is kept),
/// bare flags given the value `ON`. `!include` paths are relative to the
/// current directory; use [`load`] for paths relative to the file.
pub fn parse_my_cnf(text: &str) -> Result<Vec<(String, String)>, ConfigError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    parse_into(text, "my.cnf", None, 0, &mut out, &mut warnings)?;
    for w in warnings {
        tracing::warn!("{w}");
    }
    Ok(out)
}

/// Reads and parses the file at `path` (directives relative to it).
fn parse_file(
    path: &Path,
    depth: usize,
    out: &mut Vec<(String, String)>,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
    parse_into(&text, &path.display().to_string(), path.parent(), depth, out, warnings)
}

fn parse_into(
    text: &str,
    file: &str,
    base: Option<&Path>,
    depth: usize,
    out: &mut Vec<(String, String)>,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let syntax = |line: usize, reason: String| ConfigError::Syntax { file: file.to_string(), line, reason };
    // None before the first group; Some(read?) after it.
    let mut group: Option<bool> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(directive) = line.strip_prefix('!') {
            let (word, arg) = directive.split_once(char::is_whitespace).unwrap_or((directive, ""));
            let arg = arg.trim();
            if arg.is_empty() {
                return Err(syntax(line_no, format!("'!{word}' needs a path")));
            }
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(syntax(line_no, format!("includes nest deeper than {MAX_INCLUDE_DEPTH}")));
            }
            let path = base.map_or_else(|| PathBuf::from(arg), |b| b.join(arg));
            match word {
                "include" => parse_file(&path, depth + 1, out, warnings)?,
                "includedir" => include_dir(&path, depth + 1, out, warnings)?,
                _ => return Err(syntax(line_no, format!("unknown directive '!{word}'"))),
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let rest = strip_comment(rest);
            let name = rest
                .trim_end()
                .strip_suffix(']')
                .ok_or_else(|| syntax(line_no, format!("malformed group header '{line}'")))?;
            let name = name.trim().to_ascii_lowercase();
            group = Some(GROUPS.contains(&name.as_str()));
            continue;
        }
        match group {
            None => return Err(syntax(line_no, format!("option '{line}' before any [group]"))),
            Some(false) => continue,
            Some(true) => {}
        }
        let (key, value) = parse_option_line(line).map_err(|reason| syntax(line_no, reason))?;
        out.push(resolve_option(&key, &value));
    }
    Ok(())
}

/// `!includedir`: every `*.cnf` in the directory, in name order.
fn include_dir(
    dir: &Path,
    depth: usize,
    out: &mut Vec<(String, String)>,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            // mysqld skips a missing include directory too.
            warnings.push(format!("!includedir {}: {e}; skipped", dir.display()));
            return Ok(());
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cnf") && p.is_file())
        .collect();
    files.sort();
    for f in files {
        parse_file(&f, depth, out, warnings)?;
    }
    Ok(())
}

/// Cuts a `#` comment that is not inside quotes.
fn strip_comment(s: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q && !escaped => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') => return &s[..i],
            _ => {}
        }
        escaped = quote.is_some() && c == '\\' && !escaped;
    }
    s
}

/// `key`, `key = value`, `key="value"  # comment`. A bare key is a flag
/// set ON. Quotes come off only when they enclose the whole value;
/// escapes are mysqld's (`\n \t \r \b \s \" \' \\`; others stay).
fn parse_option_line(line: &str) -> Result<(String, String), String> {
    let line = strip_comment(line).trim();
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (line, None),
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if key.is_empty() || !key.chars().all(valid) {
        return Err(format!("malformed option line '{line}'"));
    }
    let Some(value) = value else {
        return Ok((key.to_string(), "ON".to_string()));
    };
    let bytes = value.as_bytes();
    let quoted = bytes.len() >= 2 && matches!(bytes[0], b'\'' | b'"') && bytes[0] == bytes[bytes.len() - 1];
    let value = if quoted { &value[1..value.len() - 1] } else { value };
    Ok((key.to_string(), unescape(value)))
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('s') => out.push(' '),
            Some(q @ ('"' | '\'' | '\\')) => out.push(q),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Command line.

/// Options from raw command-line arguments (without the program name):
/// `--key=value`, `--key value` (when `key` is a variable that takes a
/// value and the next argument is not an option), `--flag` (ON),
/// `--skip-flag`, `--loose-...`. `--` ends the options; anything else is
/// an error. Names come out as [`parse_my_cnf`]'s do.
pub fn parse_cli_overrides(args: &[String]) -> Result<Vec<(String, String)>, ConfigError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            if let Some(extra) = args.get(i) {
                return Err(ConfigError::CommandLine(format!("unexpected argument '{extra}'")));
            }
            break;
        }
        let Some(body) = arg.strip_prefix("--").filter(|b| !b.is_empty()) else {
            return Err(ConfigError::CommandLine(format!("unexpected argument '{arg}'")));
        };
        if let Some((key, value)) = body.split_once('=') {
            out.push(resolve_option(key, value));
            continue;
        }
        let (key, value) = resolve_option(body, "ON");
        let name = key.strip_prefix("loose_").unwrap_or(&key);
        let negated = normalise_name(body).trim_start_matches("loose_") != name;
        let takes_value = !negated && sysvars::lookup(name).is_some_and(|d| d.kind != VarKind::Bool);
        match args.get(i) {
            Some(next) if takes_value && !next.starts_with('-') => {
                out.push((key, next.clone()));
                i += 1;
            }
            _ => out.push((key, value)),
        }
    }
    Ok(out)
}

/// Removes `--defaults-file` from the options and returns its path (the
/// last one given), for callers that hand the raw command line to
/// [`parse_cli_overrides`] and then call [`load`].
pub fn take_defaults_file(options: &mut Vec<(String, String)>) -> Option<PathBuf> {
    take_option(options, "defaults_file").map(PathBuf::from)
}

/// Removes every option named `name` (`-` and `_` alike) and returns the
/// last one's value.
pub fn take_option(options: &mut Vec<(String, String)>, name: &str) -> Option<String> {
    let name = normalise_name(name);
    let mut found = None;
    options.retain(|(k, v)| {
        let is_it = normalise_name(k) == name;
        if is_it {
            found = Some(v.clone());
        }
        !is_it
    });
    found
}

// ---------------------------------------------------------------------------
// The configuration.

/// The server's configuration after startup: the system variables as the
/// sources left them, and what the sources said that quire ignores.
#[derive(Debug)]
pub struct ServerConfig {
    /// Global variables; the server keeps this `Arc` for `SET GLOBAL`.
    pub sysvars: Arc<SysVars>,
    /// One line per ignored or unknown option, for the caller to log.
    pub warnings: Vec<String>,
    /// The defaults file read, if any.
    pub defaults_file: Option<PathBuf>,
}

/// Reads the defaults file (if given), then applies `overrides` (from the
/// command line, `(name, value)` with or without prefixes) over it; see
/// the module note for what each option leads to. Also checks that the
/// engine settings the variables describe are coherent.
pub fn load(defaults_file: Option<&Path>, overrides: &[(String, String)]) -> Result<ServerConfig, ConfigError> {
    let sysvars = Arc::new(SysVars::new());
    let mut warnings = Vec::new();
    let mut options = Vec::new();
    if let Some(path) = defaults_file {
        parse_file(path, 0, &mut options, &mut warnings)?;
    }
    options.extend(overrides.iter().map(|(k, v)| resolve_option(k, v)));

    let mut noted = HashSet::new();
    for (key, value) in &options {
        let name = key.strip_prefix("loose_").unwrap_or(key);
        match sysvars.set_startup(name, value) {
            Ok(()) => {
                if let Some(def) = sysvars::lookup(name) {
                    if let sysvars::Effect::NoEffectByDesign(why) = def.effect {
                        if noted.insert(def.name.to_string()) {
                            warnings.push(format!("variable '{}' is accepted but not used by quire: {why}", def.name));
                        }
                    }
                }
            }
            Err(e) if e.code == 1193 => {
                if noted.insert(key.clone()) {
                    warnings.push(format!("unknown variable '{key}' ignored"));
                }
            }
            Err(e) if e.code == 1228 => {
                warnings.push(format!("variable '{name}' is a session variable and cannot be set at startup; ignored"));
            }
            Err(e) => {
                let expected =
                    sysvars::lookup(name).map_or_else(String::new, |d| format!("; expected {}", expected(d.kind)));
                return Err(value_error(name, format!("{}{expected}", e.message)));
            }
        }
    }

    let config = ServerConfig { sysvars, warnings, defaults_file: defaults_file.map(Path::to_path_buf) };
    if !config.sysvars.is_set("back_log") {
        let back_log = config.max_connections().min(MAX_BACK_LOG as usize) as u64;
        config
            .sysvars
            .autosize("back_log", &VarValue::UInt(back_log))
            .map_err(|e| value_error("back_log", e.message))?;
    }
    if !config.sysvars.is_set("thread_cache_size") {
        let n = (8 + config.max_connections() / 100).min(100) as u64;
        config
            .sysvars
            .autosize("thread_cache_size", &VarValue::UInt(n))
            .map_err(|e| value_error("thread_cache_size", e.message))?;
    }
    if !config.sysvars.is_set("thread_pool_size") {
        // MariaDB's default: one group per CPU.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        config
            .sysvars
            .autosize("thread_pool_size", &VarValue::UInt(cpus))
            .map_err(|e| value_error("thread_pool_size", e.message))?;
    }
    config.engine_config()?;
    Ok(config)
}

/// What a variable of `kind` takes, for error messages.
fn expected(kind: VarKind) -> String {
    match kind {
        VarKind::Bool => "ON or OFF".to_string(),
        VarKind::Int { min, max } => format!("an integer from {min} to {max}"),
        VarKind::UInt { min, max } => format!("a number from {min} to {max} (a K, M, G or T suffix may scale it)"),
        VarKind::Float => "a number".to_string(),
        VarKind::Enum(names) => format!("one of {}", names.join(", ")),
        VarKind::Set(names) => format!("a comma-separated list of {}", names.join(", ")),
        VarKind::Str => "text".to_string(),
        VarKind::TimeZone => "SYSTEM or an offset from UTC such as +05:30".to_string(),
        VarKind::OptimizerSwitch => "a comma-separated list of flag=on|off".to_string(),
    }
}

impl ServerConfig {
    /// The engine's settings from the `innodb_*` variables and `datadir`.
    ///
    /// The redo log's size is `innodb_redo_log_capacity` if that was set,
    /// else `innodb_log_file_size * innodb_log_files_in_group` (InnoDB's
    /// total redo capacity; quire keeps it in one file). A relative
    /// `innodb_doublewrite_dir` is relative to the data directory, as
    /// mysqld (which runs in its data directory) reads it.
    pub fn engine_config(&self) -> Result<EngineConfig, ConfigError> {
        let datadir = self.datadir();
        let mut cfg = EngineConfig::new(&datadir);

        cfg.page_size = self.usize("innodb_page_size")?;
        quire_engine::page::validate_page_size(cfg.page_size).map_err(|e| value_error("innodb_page_size", e))?;
        cfg.buffer_pool_size = self.usize("innodb_buffer_pool_size")?;
        cfg.buffer_pool_instances = self.usize("innodb_buffer_pool_instances")?;
        let frames_per_instance = cfg.buffer_pool_size / cfg.page_size / cfg.buffer_pool_instances.max(1);
        if frames_per_instance < quire_engine::buffer::MIN_FRAMES_PER_INSTANCE {
            return Err(value_error(
                "innodb_buffer_pool_size",
                format!(
                    "{} bytes in {} instances of {}-byte pages leaves {frames_per_instance} pages per instance; \
                     at least {} are needed",
                    cfg.buffer_pool_size,
                    cfg.buffer_pool_instances,
                    cfg.page_size,
                    quire_engine::buffer::MIN_FRAMES_PER_INSTANCE
                ),
            ));
        }
        cfg.old_blocks_pct = self.u32("innodb_old_blocks_pct")?;
        cfg.old_blocks_time_ms = self.u32("innodb_old_blocks_time")?;
        cfg.read_io_threads = self.usize("innodb_read_io_threads")?;
        cfg.write_io_threads = self.usize("innodb_write_io_threads")?;
        cfg.read_ahead_threshold = self.u32("innodb_read_ahead_threshold")?;
        cfg.random_read_ahead = self.bool("innodb_random_read_ahead")?;
        cfg.adaptive_hash_index = self.bool("innodb_adaptive_hash_index")?;
        cfg.adaptive_hash_index_parts = self.usize("innodb_adaptive_hash_index_parts")?;
        cfg.change_buffering = ChangeBufferMode::from_name(&self.text("innodb_change_buffering")?)
            .ok_or_else(|| value_error("innodb_change_buffering", "not a change buffering mode"))?;
        cfg.change_buffer_max_size = self.u32("innodb_change_buffer_max_size")?;
        cfg.fast_shutdown = ShutdownMode::from_u64(self.u64("innodb_fast_shutdown")?)
            .ok_or_else(|| value_error("innodb_fast_shutdown", "not 0, 1 or 2"))?;
        cfg.flush_method = FlushMethod::parse(&self.text("innodb_flush_method")?)
            .map_err(|e| value_error("innodb_flush_method", e))?;

        cfg.log.file_size = self.redo_capacity()?;
        cfg.log.buffer_size = self.usize("innodb_log_buffer_size")?;
        let flush = self.u64("innodb_flush_log_at_trx_commit")?;
        cfg.log.flush_at_commit = u8::try_from(flush)
            .ok()
            .and_then(FlushAtCommit::from_u8)
            .ok_or_else(|| value_error("innodb_flush_log_at_trx_commit", format!("{flush} is not 0, 1 or 2")))?;

        cfg.doublewrite.mode = DoublewriteMode::parse(&self.text("innodb_doublewrite")?)
            .map_err(|e| value_error("innodb_doublewrite", e))?;
        let dir = self.text("innodb_doublewrite_dir")?;
        cfg.doublewrite.dir = (!dir.is_empty()).then(|| datadir.join(dir));
        cfg.doublewrite.files = self.usize("innodb_doublewrite_files")?;
        cfg.doublewrite.pages = self.usize("innodb_doublewrite_pages")?;
        cfg.doublewrite.batch_size = self.usize("innodb_doublewrite_batch_size")?;

        cfg.lock_wait_timeout = Duration::from_secs(self.u64("innodb_lock_wait_timeout")?);
        cfg.deadlock_detect = self.bool("innodb_deadlock_detect")?;
        cfg.purge_threads = self.usize("innodb_purge_threads")?;
        cfg.max_purge_lag = self.u64("innodb_max_purge_lag")?;
        cfg.max_purge_lag_delay_us = self.u64("innodb_max_purge_lag_delay")?;
        cfg.force_recovery = self.u64("innodb_force_recovery")? as u8; // 0..=6, checked by its definition
        let pct = |name: &str| self.sysvars.global(name).and_then(|v| v.as_f64()).unwrap_or(0.0);
        cfg.flushing = quire_engine::buffer::page_cleaner::FlushTuningConfig {
            page_cleaners: self.usize("innodb_page_cleaners")?,
            io_capacity: self.u64("innodb_io_capacity")?,
            io_capacity_max: self.u64("innodb_io_capacity_max")?,
            max_dirty_pages_pct: pct("innodb_max_dirty_pages_pct"),
            max_dirty_pages_pct_lwm: pct("innodb_max_dirty_pages_pct_lwm"),
            adaptive_flushing: self.bool("innodb_adaptive_flushing")?,
            adaptive_flushing_lwm: self.u64("innodb_adaptive_flushing_lwm")?,
        };
        Ok(cfg)
    }

    /// The redo log's size in bytes (see [`ServerConfig::engine_config`]).
    fn redo_capacity(&self) -> Result<u64, ConfigError> {
        if self.sysvars.is_set("innodb_redo_log_capacity") {
            return self.u64("innodb_redo_log_capacity");
        }
        let size = self.u64("innodb_log_file_size")?;
        let files = self.u64("innodb_log_files_in_group")?;
        size.checked_mul(files)
            .ok_or_else(|| value_error("innodb_log_file_size", "times innodb_log_files_in_group overflows"))
    }

    /// `port` (default 3306). 0 asks the OS for a free port; mysqld would
    /// take 0 to mean 3306.
    pub fn port(&self) -> u16 {
        self.u64("port").ok().and_then(|p| u16::try_from(p).ok()).unwrap_or(3306)
    }

    /// `bind_address` (default 127.0.0.1).
    pub fn bind_address(&self) -> String {
        self.text("bind_address").ok().filter(|a| !a.is_empty()).unwrap_or_else(|| "127.0.0.1".to_string())
    }

    /// `socket`: the Unix socket to listen on, none unless configured
    /// (MySQL's `/tmp/mysql.sock` would collide with a real MySQL).
    pub fn socket(&self) -> Option<PathBuf> {
        self.text("socket").ok().filter(|s| !s.is_empty()).map(PathBuf::from)
    }

    /// `datadir` (default `./quire-data`).
    pub fn datadir(&self) -> PathBuf {
        PathBuf::from(self.text("datadir").ok().filter(|d| !d.is_empty()).unwrap_or_else(|| "./quire-data".to_string()))
    }

    /// `max_connections` (default 151).
    pub fn max_connections(&self) -> usize {
        self.usize("max_connections").unwrap_or(151)
    }

    /// `back_log`: the listen queue's length. Unless configured it is
    /// `max_connections` (at most 65535), as in MySQL 8.0 (WL#9704), so
    /// that every client of a server that lost all its connections can
    /// reconnect at once. MariaDB 10.11 autosizes to 50 + max_connections
    /// / 5, at most 900 (450 at max_connections=2000), which still
    /// overflows under a burst of 1000 connects. The kernel caps the queue
    /// at `net.core.somaxconn` (the listener warns).
    pub fn back_log(&self) -> u32 {
        self.u32("back_log").unwrap_or(151)
    }

    /// `thread_cache_size`: unless configured, MySQL's autosize, 8 +
    /// max_connections / 100, at most 100.
    pub fn thread_cache_size(&self) -> usize {
        self.usize("thread_cache_size").unwrap_or(9)
    }

    /// `default_authentication_plugin`: the plugin the handshake announces.
    pub fn auth_plugin(&self) -> crate::proto::AuthPlugin {
        match self.get("default_authentication_plugin") {
            Ok(VarValue::Str(s)) if s == "caching_sha2_password" => crate::proto::AuthPlugin::CachingSha2Password,
            _ => crate::proto::AuthPlugin::NativePassword,
        }
    }

    /// `thread_handling=pool-of-threads`.
    pub fn thread_pool(&self) -> bool {
        matches!(self.get("thread_handling"), Ok(VarValue::Str(s)) if s.eq_ignore_ascii_case("pool-of-threads"))
    }

    /// `thread_pool_size`: the pool's groups (unless configured, the CPUs).
    pub fn thread_pool_size(&self) -> usize {
        self.usize("thread_pool_size").unwrap_or(1)
    }

    /// `max_allowed_packet` in bytes (default 64M).
    pub fn max_allowed_packet(&self) -> usize {
        self.usize("max_allowed_packet").unwrap_or(64 << 20)
    }

    fn get(&self, name: &str) -> Result<VarValue, ConfigError> {
        self.sysvars.global(name).ok_or_else(|| value_error(name, "no global value"))
    }

    fn u64(&self, name: &str) -> Result<u64, ConfigError> {
        let v = self.get(name)?;
        v.as_u64().ok_or_else(|| value_error(name, format!("'{v}' is not a number")))
    }

    fn usize(&self, name: &str) -> Result<usize, ConfigError> {
        let n = self.u64(name)?;
        usize::try_from(n).map_err(|_| value_error(name, format!("{n} is too large for this machine")))
    }

    fn u32(&self, name: &str) -> Result<u32, ConfigError> {
        let n = self.u64(name)?;
        u32::try_from(n).map_err(|_| value_error(name, format!("{n} is too large")))
    }

    fn bool(&self, name: &str) -> Result<bool, ConfigError> {
        let v = self.get(name)?;
        v.as_bool().ok_or_else(|| value_error(name, format!("'{v}' is not ON or OFF")))
    }

    fn text(&self, name: &str) -> Result<String, ConfigError> {
        Ok(self.get(name)?.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `[mysqld]` section of the my.cnf in seed 001 (MySQL 8.0.20's
    /// new doublewrite benchmark), with one of its three buffer pool sizes.
    const SEED_DBLWR_MY_CNF: &str = r#"
[mysqld]

# general
 max_connections=4000
 back_log=4000
 ssl=0
 table_open_cache=8000
 table_open_cache_instances=16
 default_authentication_plugin=mysql_native_password
 default_password_lifetime=0
 max_prepared_stmt_count=512000
 skip_log_bin=1
 character_set_server=latin1
 collation_server=latin1_swedish_ci
 skip-character-set-client-handshake
 transaction_isolation=REPEATABLE-READ

# files
 innodb_file_per_table
 innodb_log_file_size=1024M
 innodb_log_files_in_group=16
 innodb_open_files=4000

# buffers
 innodb_buffer_pool_size=32000M
 innodb_buffer_pool_instances=24
 innodb_log_buffer_size=64M

# tune
 innodb_doublewrite=1
 innodb_thread_concurrency=0
 innodb_flush_log_at_trx_commit=1
 innodb_max_dirty_pages_pct=90
 innodb_max_dirty_pages_pct_lwm=10

 join_buffer_size=32K
 sort_buffer_size=32K
 innodb_use_native_aio=1
 innodb_stats_persistent=1
 innodb_spin_wait_delay=6

 innodb_max_purge_lag_delay=300000
 innodb_max_purge_lag=0
 innodb_flush_method=O_DIRECT
 innodb_checksum_algorithm=crc32
 innodb_io_capacity=20000
 innodb_io_capacity_max=40000
 innodb_lru_scan_depth=1000
 innodb_change_buffering=none
 innodb_read_only=0
 innodb_page_cleaners=24
 innodb_undo_log_truncate=off

# perf special
 innodb_adaptive_flushing=1
 innodb_flush_neighbors=0
 innodb_read_io_threads=16
 innodb_write_io_threads=4
 innodb_purge_threads=4
 innodb_adaptive_hash_index=0

# monitoring
 innodb_monitor_enable='%'
 performance_schema=ON

# etc.
 loose_log_error_verbosity=3
 secure_file_priv=
 core_file
 innodb_buffer_pool_in_core_file=off
"#;

    /// The server settings of seed 000 (Percona Server 5.7 benchmark).
    const SEED_PERCONA_MY_CNF: &str = r#"
[mysqld]
innodb_buffer_pool_size=25G
innodb_log_file_size=10G
innodb_doublewrite=1
innodb_flush_log_at_trx_commit=1
innodb_buffer_pool_instances=8
innodb_change_buffering=none
innodb_adaptive_hash_index=OFF
innodb_flush_method=O_DIRECT
innodb_flush_neighbors=0
innodb_read_io_threads=8
innodb_write_io_threads=8
innodb_lru_scan_depth=8192
innodb_io_capacity=15000
innodb_io_capacity_max=25000
loose-innodb-page-cleaners=4
table_open_cache_instances=64
table_open_cache=5000
loose-innodb-log_checksum-algorithm=crc32
loose-innodb-checksum-algorithm=strict_crc32
max_connections=50000
skip_name_resolve=ON
loose-performance_schema=ON
loose-performance-schema-instrument='wait/synch/%=ON',
"#;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn seed_dblwr_my_cnf_loads_with_a_scaled_buffer_pool() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "my.cnf", SEED_DBLWR_MY_CNF);
        let overrides = pairs(&[("innodb-buffer-pool-size", "384M"), ("datadir", "/srv/quire")]);
        let config = load(Some(&path), &overrides).unwrap();

        let engine = config.engine_config().unwrap();
        assert_eq!(engine.datadir, PathBuf::from("/srv/quire"));
        assert_eq!(engine.buffer_pool_size, 384 << 20, "the command line overrides my.cnf");
        assert_eq!(engine.buffer_pool_instances, 24);
        assert_eq!(engine.page_size, 16384);
        assert_eq!(engine.log.file_size, 16 << 30, "1024M per file * 16 files");
        assert_eq!(engine.log.buffer_size, 64 << 20);
        assert_eq!(engine.log.flush_at_commit, FlushAtCommit::Sync);
        assert_eq!(engine.doublewrite.mode, DoublewriteMode::On);
        assert_eq!(engine.flush_method, FlushMethod::ODirect);
        assert_eq!(engine.purge_threads, 4);
        assert_eq!(engine.max_purge_lag, 0);
        assert_eq!(engine.max_purge_lag_delay_us, 300_000);
        assert_eq!(config.max_connections(), 4000);
        assert_eq!(config.sysvars.global("transaction_isolation"), Some(VarValue::Str("REPEATABLE-READ".into())));

        let warned = |name: &str| {
            config
                .warnings
                .iter()
                .any(|w| w.starts_with(&format!("variable '{name}' is accepted but not used by quire:")))
        };
        assert_eq!(config.back_log(), 4000);
        for name in [
            "character_set_client_handshake",
            "innodb_spin_wait_delay",
            "innodb_use_native_aio",
            "innodb_monitor_enable",
            "log_error_verbosity",
            "core_file",
            "innodb_buffer_pool_in_core_file",
        ] {
            assert!(warned(name), "no warning for {name}: {:#?}", config.warnings);
        }
        for name in [
            "back_log",
            "max_connections",
            "innodb_buffer_pool_size",
            "innodb_doublewrite",
            "transaction_isolation",
            "innodb_max_dirty_pages_pct",
            "innodb_page_cleaners",
            "innodb_io_capacity",
            "secure_file_priv",
            // Refused unless default, and given their defaults.
            "ssl",
            "innodb_file_per_table",
        ] {
            assert!(!warned(name), "{name} is used");
        }
        assert!(config.warnings.iter().all(|w| !w.starts_with("unknown")), "{:#?}", config.warnings);
        assert_eq!(config.sysvars.global("log_bin"), Some(VarValue::Str("OFF".into())));
        assert_eq!(config.sysvars.global("character_set_client_handshake"), Some(VarValue::Bool(false)));
        assert_eq!(config.sysvars.global("innodb_monitor_enable"), Some(VarValue::Str("%".into())));
    }

    #[test]
    fn seed_percona_settings_load_with_loose_unknowns_only_warned() {
        let mut options = parse_my_cnf(SEED_PERCONA_MY_CNF).unwrap();
        options.push(("innodb_buffer_pool_size".into(), "128M".into()));
        options.push(("innodb_log_file_size".into(), "64M".into()));
        let config = load(None, &options).unwrap();
        let engine = config.engine_config().unwrap();
        assert_eq!(engine.buffer_pool_instances, 8);
        assert_eq!(engine.log.file_size, 128 << 20, "64M * the default 2 files");
        assert_eq!(config.max_connections(), 50000);
        assert_eq!(config.back_log(), 50000, "autosized to max_connections");
        assert!(config.warnings.contains(&"unknown variable 'loose_innodb_log_checksum_algorithm' ignored".into()));
        assert!(
            !config.warnings.iter().any(|w| w.contains("'innodb_page_cleaners'")),
            "page cleaners are used: {:#?}",
            config.warnings
        );
        // The stray comma after the quotes keeps them, as mysqld does.
        assert_eq!(
            config.sysvars.global("performance_schema_instrument"),
            Some(VarValue::Str("'wait/synch/%=ON',".into()))
        );
    }

    #[test]
    fn unknown_variables_only_warn() {
        let config = load(None, &pairs(&[("frobnicate", "7"), ("port", "3310")])).unwrap();
        assert_eq!(config.warnings, vec!["unknown variable 'frobnicate' ignored".to_string()]);
        assert_eq!(config.port(), 3310);
    }

    #[test]
    fn bad_values_are_fatal_and_name_the_variable() {
        for (name, value) in [
            ("innodb_buffer_pool_size", "128000M / 64000M / 32000M"),
            ("innodb_flush_log_at_trx_commit", "3"),
            ("innodb_flush_method", "O_SOMETIMES"),
            ("port", "eighty"),
            ("innodb_page_size", "12k"),
        ] {
            match load(None, &pairs(&[(name, value)])) {
                Err(e @ ConfigError::Value { .. }) => {
                    assert!(matches!(&e, ConfigError::Value { name: n, .. } if n == name));
                    assert!(e.to_string().starts_with(&format!("invalid value for '{name}'")), "{e}");
                }
                other => panic!("{name}={value}: {other:?}"),
            }
        }
        // Too small a pool for 24 instances is caught before the engine opens.
        let err = load(None, &pairs(&[("innodb_buffer_pool_size", "5M"), ("innodb_buffer_pool_instances", "24")]));
        assert!(matches!(err, Err(ConfigError::Value { name, .. }) if name == "innodb_buffer_pool_size"));
    }

    #[test]
    fn change_buffering_and_its_size_reach_the_engine() {
        for (value, mode) in
            [("all", ChangeBufferMode::All), ("inserts", ChangeBufferMode::Inserts), ("NONE", ChangeBufferMode::None)]
        {
            let config =
                load(None, &pairs(&[("innodb_change_buffering", value), ("innodb_change_buffer_max_size", "10")]))
                    .unwrap();
            assert!(config.warnings.is_empty(), "{value}: {:?}", config.warnings);
            let engine = config.engine_config().unwrap();
            assert_eq!((engine.change_buffering, engine.change_buffer_max_size), (mode, 10), "{value}");
        }
        assert!(load(None, &pairs(&[("innodb_change_buffering", "sometimes")])).is_err());
    }

    #[test]
    fn fast_shutdown_reaches_the_engine() {
        let engine = |v: &str| load(None, &pairs(&[("innodb_fast_shutdown", v)])).unwrap().engine_config().unwrap();
        assert_eq!(load(None, &[]).unwrap().engine_config().unwrap().fast_shutdown, ShutdownMode::Fast);
        assert_eq!(engine("0").fast_shutdown, ShutdownMode::Slow);
        assert_eq!(engine("2").fast_shutdown, ShutdownMode::Cold);
        assert!(load(None, &pairs(&[("innodb_fast_shutdown", "3")])).is_err());
    }

    #[test]
    fn defaults_match_the_engine_and_server_defaults() {
        let config = load(None, &[]).unwrap();
        assert!(config.warnings.is_empty());
        let ours = config.engine_config().unwrap();
        let engine = EngineConfig::new("./quire-data");
        assert_eq!(ours.datadir, engine.datadir);
        assert_eq!(ours.page_size, engine.page_size);
        assert_eq!(ours.buffer_pool_size, engine.buffer_pool_size);
        assert_eq!(ours.buffer_pool_instances, engine.buffer_pool_instances);
        assert_eq!(ours.old_blocks_pct, engine.old_blocks_pct);
        assert_eq!(ours.old_blocks_time_ms, engine.old_blocks_time_ms);
        assert_eq!(ours.flush_method, engine.flush_method);
        assert_eq!(ours.log.file_size, engine.log.file_size);
        assert_eq!(ours.log.buffer_size, engine.log.buffer_size);
        assert_eq!(ours.log.flush_at_commit, engine.log.flush_at_commit);
        assert_eq!(ours.doublewrite.mode, engine.doublewrite.mode);
        assert_eq!(ours.doublewrite.dir, engine.doublewrite.dir);
        assert_eq!(ours.doublewrite.files, engine.doublewrite.files);
        assert_eq!(ours.doublewrite.pages, engine.doublewrite.pages);
        assert_eq!(ours.doublewrite.batch_size, engine.doublewrite.batch_size);
        assert_eq!(ours.lock_wait_timeout, engine.lock_wait_timeout);
        assert_eq!(ours.deadlock_detect, engine.deadlock_detect);
        assert_eq!(ours.purge_threads, engine.purge_threads);
        assert_eq!(ours.max_purge_lag, engine.max_purge_lag);
        assert_eq!(ours.max_purge_lag_delay_us, engine.max_purge_lag_delay_us);

        assert_eq!(config.port(), 3306);
        assert_eq!(config.bind_address(), "127.0.0.1");
        assert_eq!(config.socket(), None);
        assert_eq!(config.datadir(), PathBuf::from("./quire-data"));
        assert_eq!(config.max_connections(), 151);
        assert_eq!(config.back_log(), 151);
        assert_eq!(config.max_allowed_packet(), 64 << 20);
    }

    #[test]
    fn back_log_is_autosized_to_max_connections_capped_at_65535_unless_given() {
        let opts = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let config = load(None, &opts(&[("max_connections", "2000")])).unwrap();
        assert_eq!(config.back_log(), 2000);
        assert!(!config.sysvars.is_set("back_log"), "a derived value is not a configured one");
        let config = load(None, &opts(&[("max_connections", "100000")])).unwrap();
        assert_eq!(config.back_log(), 65535);
        let config = load(None, &opts(&[("back_log", "300"), ("max_connections", "2000")])).unwrap();
        assert_eq!(config.back_log(), 300, "a configured back_log wins");
        assert!(load(None, &opts(&[("back_log", "70000")])).is_err(), "out of range");
    }

    #[test]
    fn every_engine_variable_reaches_the_engine_config() {
        let options = pairs(&[
            ("innodb_page_size", "8k"),
            ("innodb_buffer_pool_size", "64M"),
            ("innodb_buffer_pool_instances", "2"),
            ("innodb_old_blocks_pct", "20"),
            ("innodb_old_blocks_time", "0"),
            ("innodb_flush_method", "fsync"),
            ("innodb_redo_log_capacity", "200M"),
            ("innodb_log_file_size", "1G"),
            ("innodb_log_buffer_size", "1M"),
            ("innodb_flush_log_at_trx_commit", "2"),
            ("innodb_doublewrite", "detect_only"),
            ("innodb_doublewrite_dir", "dblwr"),
            ("innodb_doublewrite_files", "4"),
            ("innodb_doublewrite_pages", "32"),
            ("innodb_doublewrite_batch_size", "16"),
            ("innodb_lock_wait_timeout", "5"),
            ("skip-innodb-deadlock-detect", "ON"),
            ("innodb_purge_threads", "2"),
            ("innodb_max_purge_lag", "100"),
            ("innodb_max_purge_lag_delay", "0"),
            ("datadir", "/data/q"),
            ("socket", "/tmp/quire.sock"),
            ("bind-address", "0.0.0.0"),
            ("max_allowed_packet", "16M"),
        ]);
        let config = load(None, &options).unwrap();
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
        let e = config.engine_config().unwrap();
        assert_eq!((e.page_size, e.buffer_pool_size, e.buffer_pool_instances), (8192, 64 << 20, 2));
        assert_eq!((e.old_blocks_pct, e.old_blocks_time_ms), (20, 0));
        assert_eq!(e.flush_method, FlushMethod::Fsync);
        assert_eq!(e.log.file_size, 200 << 20, "innodb_redo_log_capacity wins over the per-file size");
        assert_eq!(e.log.buffer_size, 1 << 20);
        assert_eq!(e.log.flush_at_commit, FlushAtCommit::Write);
        assert_eq!(e.doublewrite.mode, DoublewriteMode::DetectOnly);
        assert_eq!(e.doublewrite.dir, Some(PathBuf::from("/data/q/dblwr")));
        assert_eq!((e.doublewrite.files, e.doublewrite.pages, e.doublewrite.batch_size), (4, 32, 16));
        assert_eq!(e.lock_wait_timeout, Duration::from_secs(5));
        assert!(!e.deadlock_detect);
        assert_eq!((e.purge_threads, e.max_purge_lag, e.max_purge_lag_delay_us), (2, 100, 0));
        assert_eq!(config.socket(), Some(PathBuf::from("/tmp/quire.sock")));
        assert_eq!(config.bind_address(), "0.0.0.0");
        assert_eq!(config.max_allowed_packet(), 16 << 20);
    }

    #[test]
    fn my_cnf_syntax_follows_mysqld() {
        let text = "\
# comment
; another
[client]
port = 1
[mysqld]
Port = 3307   # trailing comment
bind-address=\"0.0.0.0\"
innodb_doublewrite_dir = 'a # b'
skip-innodb-doublewrite
innodb_file_per_table
skip_name_resolve
enable-innodb-deadlock-detect = 0
loose-no-such-thing = 1
init_connect = SET\\sNAMES\\tx\\\\y\\q
[MYSQLD-8.0]
sql_mode=ANSI
[mysqldump]
quick
";
        let got = parse_my_cnf(text).unwrap();
        let want = pairs(&[
            ("port", "3307"),
            ("bind_address", "0.0.0.0"),
            ("innodb_doublewrite_dir", "a # b"),
            ("innodb_doublewrite", "OFF"),
            ("innodb_file_per_table", "ON"),
            ("skip_name_resolve", "ON"),
            ("innodb_deadlock_detect", "OFF"),
            ("loose_no_such_thing", "1"),
            ("init_connect", "SET NAMES\tx\\y\\q"),
            ("sql_mode", "ANSI"),
        ]);
        assert_eq!(got, want);
    }

    #[test]
    fn my_cnf_errors_carry_line_numbers() {
        for (text, line) in [
            ("port=1\n", 1),
            ("[mysqld]\n\nport 3306\n", 3),
            ("[mysqld]\n[broken\n", 2),
            ("[mysqld]\n= 5\n", 2),
            ("[mysqld]\n!frobnicate x\n", 2),
        ] {
            match parse_my_cnf(text) {
                Err(ConfigError::Syntax { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
        // Lines in groups quire does not read are not its business.
        assert!(parse_my_cnf("[client]\nport 3306\n").unwrap().is_empty());
    }

    #[test]
    fn includes_are_relative_to_the_including_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("conf.d")).unwrap();
        write(dir.path(), "extra.cnf", "[mysqld]\nmax_connections=10\n");
        write(&dir.path().join("conf.d"), "b.cnf", "[mysqld]\nmax_connections=30\n");
        write(&dir.path().join("conf.d"), "a.cnf", "[mysqld]\nmax_connections=20\nport=3400\n");
        write(&dir.path().join("conf.d"), "ignored.txt", "[mysqld]\nport=1\n");
        let main = write(
            dir.path(),
            "my.cnf",
            "[mysqld]\nport=3300\n!include extra.cnf\n!includedir conf.d\n!includedir missing.d\nwait_timeout=5\n",
        );
        let config = load(Some(&main), &[]).unwrap();
        assert_eq!(config.max_connections(), 30, "conf.d files are read in name order, after extra.cnf");
        assert_eq!(config.port(), 3400);
        assert!(config.warnings.iter().any(|w| w.contains("missing.d")));

        let cyclic = write(dir.path(), "loop.cnf", "!include loop.cnf\n");
        assert!(matches!(load(Some(&cyclic), &[]), Err(ConfigError::Syntax { .. })));
        assert!(matches!(load(Some(&dir.path().join("absent.cnf")), &[]), Err(ConfigError::Read { .. })));
    }

    #[test]
    fn command_line_options_parse_like_mysqld() {
        let args: Vec<String> = [
            "--port",
            "3308",
            "--innodb-buffer-pool-size=1G",
            "--skip-innodb-deadlock-detect",
            "--skip-name-resolve",
            "--innodb-file-per-table",
            "--loose-frob=2",
            "--defaults-file=/etc/q.cnf",
            "--performance-schema",
            "--datadir",
            "/d",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut got = parse_cli_overrides(&args).unwrap();
        assert_eq!(take_defaults_file(&mut got), Some(PathBuf::from("/etc/q.cnf")));
        let want = pairs(&[
            ("port", "3308"),
            ("innodb_buffer_pool_size", "1G"),
            ("innodb_deadlock_detect", "OFF"),
            ("skip_name_resolve", "ON"),
            ("innodb_file_per_table", "ON"),
            ("loose_frob", "2"),
            ("performance_schema", "ON"),
            ("datadir", "/d"),
        ]);
        assert_eq!(got, want);
        assert!(parse_cli_overrides(&["stray".to_string()]).is_err());
        assert!(parse_cli_overrides(&["-P".to_string(), "1".to_string()]).is_err());
    }

    #[test]
    fn command_line_overrides_my_cnf() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "my.cnf", "[mysqld]\nport=3300\nmax_connections=10\n");
        let config = load(Some(&path), &pairs(&[("port", "3301")])).unwrap();
        assert_eq!((config.port(), config.max_connections()), (3301, 10));
    }
}
