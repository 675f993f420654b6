//! System variables: the registry of the MySQL and InnoDB variable names
//! quire accepts, their global values, and each session's copy.
//!
//! What it owns:
//! - [`VARS`], the static table of definitions ([`VarDef`]): name, scope,
//!   whether `SET` may change it at run time, its kind and range, its
//!   default, and its [`Effect`]: quire honours it, or it changes nothing
//!   observable by design (accepted, with the reason), or quire refuses
//!   any value but the default (1235; [`VarDef::check`] and
//!   [`VarDef::parse_startup`] enforce it, for SET and startup alike).
//! - [`SysVars`], the global values, shared as `Arc<SysVars>`, and the
//!   hooks that push a `SET GLOBAL` into the engine.
//! - [`SessionVars`], one connection's values, owned by its session.
//!
//! Values come in from three places, each with its own rules:
//! - startup (`my.cnf`, command line): [`SysVars::set_startup`] takes the
//!   raw text, accepts size suffixes (`16k`, `1G`) and may set read-only
//!   variables;
//! - `SET GLOBAL`: [`SysVars::set_global`], dynamic Global/Both variables;
//! - `SET SESSION`: [`SessionVars::set`], dynamic Session/Both variables.
//!
//! Thread safety: `SysVars` is `Send + Sync`. Global values sit behind a
//! `RwLock`; `set_global` holds `set_lock` across storing the value and
//! running the hooks, so hooks observe changes in the order they were
//! stored. REQUIRES: a hook does not call `set_global` (it would deadlock).
//! `SessionVars` is owned by one session and not shared.
//!
//! Invariants:
//! 1. Every stored value is canonical for its definition's kind: `Bool`
//!    for Bool, `Int` for Int, `UInt` for UInt, `Float` for Float, and
//!    `Str` for Enum, Set and Str with enum and set members spelled as in
//!    the definition. [`VarDef::check`] and [`VarDef::parse_startup`] are
//!    the only ways in.
//! 2. The global map holds exactly the Global and Both variables; a
//!    `SessionVars` made by [`SysVars::session_defaults`] holds exactly the
//!    Session and Both variables.
//! 3. Table names are lowercase, use `_`, and are unique; aliases name
//!    variables in the table (both checked by tests).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, OnceLock};

use parking_lot::{Mutex, RwLock};

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// One server-wide value (`SET GLOBAL`).
    Global,
    /// Only per session (`SET SESSION`), e.g. `last_insert_id`.
    Session,
    /// A global value that each new session copies.
    Both,
}

/// What values a variable takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VarKind {
    /// ON/OFF; accepts ON, OFF, TRUE, FALSE, 1, 0 in any case.
    Bool,
    /// A signed integer within `min..=max`.
    Int { min: i64, max: i64 },
    /// An unsigned integer within `min..=max`; at startup sizes may carry
    /// a K, M, G or T suffix.
    UInt { min: u64, max: u64 },
    /// A floating-point number.
    Float,
    /// One of the listed names (case-insensitive, or its index).
    Enum(&'static [&'static str]),
    /// A comma-separated subset of the listed names (`sql_mode`).
    Set(&'static [&'static str]),
    /// Free text.
    Str,
    /// `time_zone`: `SYSTEM`, a fixed offset `[+-]H[H]:M[M]` or a zone
    /// name the system's zoneinfo has (see [`crate::timezone`]); offsets
    /// kept in canonical form (`+05:30`).
    TimeZone,
    /// `optimizer_switch`: the full flag list, changed flag by flag
    /// ([`crate::optimizer_switch`]).
    OptimizerSwitch,
}

/// One system variable's definition.
#[derive(Debug)]
pub struct VarDef {
    /// The name as `SHOW VARIABLES` prints it.
    pub name: &'static str,
    pub scope: Scope,
    /// Whether `SET` may change it while the server runs.
    pub dynamic: bool,
    pub kind: VarKind,
    /// The value before any configuration, as startup text.
    pub default: &'static str,
    /// What quire does with the value (every variable is classified).
    pub effect: Effect,
}

/// What quire does with a variable's value. There is no "accepted and
/// ignored": a value either acts, changes nothing in MySQL either, or is
/// refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// quire honours the value.
    Used,
    /// Any value is accepted and changes nothing observable, in quire as
    /// in MySQL for what quire is (a buffer of an engine quire does not
    /// have, the path of a file quire does not write, a speed tuning).
    /// The reason is listed in docs/SQL.md ("System variables").
    NoEffectByDesign(&'static str),
    /// A non-default value would change what MySQL does and quire does not
    /// do it: `SET` and startup refuse it with 1235 (see
    /// [`VarDef::refuse_non_default`]); the default is accepted.
    RefuseNonDefault,
}

/// A variable's value.
#[derive(Clone, Debug, PartialEq)]
pub enum VarValue {
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Bool(bool),
}

impl VarValue {
    /// The value as `SHOW VARIABLES` and `SELECT @@x` print it.
    pub fn display(&self) -> String {
        self.to_string()
    }

    /// A non-negative integer (a bool counts as 0 or 1).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            VarValue::UInt(u) => Some(*u),
            VarValue::Int(i) => u64::try_from(*i).ok(),
            VarValue::Bool(b) => Some(u64::from(*b)),
            VarValue::Float(_) | VarValue::Str(_) => None,
        }
    }

    /// A signed integer (a bool counts as 0 or 1).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            VarValue::Int(i) => Some(*i),
            VarValue::UInt(u) => i64::try_from(*u).ok(),
            VarValue::Bool(b) => Some(i64::from(*b)),
            VarValue::Float(_) | VarValue::Str(_) => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            VarValue::Float(f) => Some(*f),
            VarValue::Int(i) => Some(*i as f64),
            VarValue::UInt(u) => Some(*u as f64),
            VarValue::Bool(_) | VarValue::Str(_) => None,
        }
    }

    /// A truth value: a bool, 0 or 1, or ON/OFF/TRUE/FALSE text.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            VarValue::Bool(b) => Some(*b),
            VarValue::Int(0) | VarValue::UInt(0) => Some(false),
            VarValue::Int(1) | VarValue::UInt(1) => Some(true),
            VarValue::Str(s) => parse_bool(s),
            VarValue::Int(_) | VarValue::UInt(_) | VarValue::Float(_) => None,
        }
    }

    /// The text of a `Str` value (enums, sets and strings).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            VarValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for VarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarValue::Int(i) => write!(f, "{i}"),
            VarValue::UInt(u) => write!(f, "{u}"),
            // MySQL prints double variables with six decimals (90.000000).
            VarValue::Float(x) => write!(f, "{x:.6}"),
            VarValue::Str(s) => f.write_str(s),
            VarValue::Bool(b) => f.write_str(if *b { "ON" } else { "OFF" }),
        }
    }
}

/// A refused lookup or assignment, as the MySQL error it becomes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct VarError {
    pub code: u16,
    /// SQLSTATE.
    pub state: &'static str,
    pub message: String,
}

impl VarError {
    /// 1235 for an `optimizer_switch` value that turns on a strategy quire
    /// lacks (`optimizer_switch::unsupported`): refused, not ignored.
    fn switch_supported(value: &str) -> Result<(), VarError> {
        match crate::optimizer_switch::unsupported(value) {
            None => Ok(()),
            Some(flag) => Err(VarError {
                code: 1235,
                state: "42000",
                message: format!("This version of quire doesn't yet support 'optimizer_switch flag {flag}=on'"),
            }),
        }
    }

    /// 1193 `ER_UNKNOWN_SYSTEM_VARIABLE`.
    pub fn unknown(name: &str) -> Self {
        Self { code: 1193, state: "HY000", message: format!("Unknown system variable '{name}'") }
    }

    /// 1238 `ER_INCORRECT_GLOBAL_LOCAL_VAR`: not settable at run time.
    pub fn read_only(name: &str) -> Self {
        Self { code: 1238, state: "HY000", message: format!("Variable '{name}' is a read only variable") }
    }

    /// 1238 `ER_INCORRECT_GLOBAL_LOCAL_VAR`: `@@GLOBAL.x` of a session-only variable.
    pub fn no_global_value(name: &str) -> Self {
        Self { code: 1238, state: "HY000", message: format!("Variable '{name}' is a SESSION variable") }
    }

    /// 1228 `ER_LOCAL_VARIABLE`: `SET GLOBAL` of a session-only variable.
    pub fn session_only(name: &str) -> Self {
        Self {
            code: 1228,
            state: "HY000",
            message: format!("Variable '{name}' is a SESSION variable and can't be used with SET GLOBAL"),
        }
    }

    /// 1229 `ER_GLOBAL_VARIABLE`: `SET SESSION` of a global-only variable.
    pub fn global_only(name: &str) -> Self {
        Self {
            code: 1229,
            state: "HY000",
            message: format!("Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"),
        }
    }

    /// 1621 `ER_VARIABLE_IS_READONLY`: `SET SESSION` of a variable whose
    /// session value only mirrors the global one.
    pub fn session_read_only(name: &str) -> Self {
        Self {
            code: 1621,
            state: "HY000",
            message: format!("SESSION variable '{name}' is read-only. Use SET GLOBAL to assign the value"),
        }
    }

    /// 1232 `ER_WRONG_TYPE_FOR_VAR`.
    pub fn wrong_type(name: &str) -> Self {
        Self { code: 1232, state: "42000", message: format!("Incorrect argument type to variable '{name}'") }
    }

    /// 1231 `ER_WRONG_VALUE_FOR_VAR`.
    pub fn wrong_value(name: &str, value: &str) -> Self {
        Self {
            code: 1231,
            state: "42000",
            message: format!("Variable '{name}' can't be set to the value of '{value}'"),
        }
    }
}

/// How a value arrived: startup text is parsed (suffixes, bare numbers
/// for strings); `SET` values keep their SQL type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Startup,
    Set,
}

impl VarDef {
    /// Validates a `SET` value against this definition's kind and returns
    /// it in canonical form (invariant 1). Scope and `dynamic` are the
    /// caller's to check.
    pub fn check(&self, value: &VarValue) -> Result<VarValue, VarError> {
        let v = self.convert(&crate::locale::canonical(self.name, value), Origin::Set)?;
        self.refuse_non_default(&v)?;
        crate::general_log::refuse(self.name, &v)?;
        crate::binlog::vars::refuse(self.name, &v)?;
        Ok(v)
    }

    /// Parses startup text (`my.cnf`, command line) for this variable.
    pub fn parse_startup(&self, raw: &str) -> Result<VarValue, VarError> {
        let v = self.convert(&VarValue::Str(raw.to_string()), Origin::Startup)?;
        self.refuse_non_default(&v)?;
        crate::general_log::refuse(self.name, &v)?;
        crate::binlog::vars::refuse(self.name, &v)?;
        Ok(v)
    }

    /// Whether quire honours the value (else it is accepted with no
    /// effect, or accepted only at its default).
    pub fn used(&self) -> bool {
        self.effect == Effect::Used
    }

    /// The one place [`Effect::RefuseNonDefault`] is enforced, for `SET`
    /// and startup alike: 1235 unless `v` (canonical) is the default.
    /// Text compares without case (`default_storage_engine = innodb`).
    fn refuse_non_default(&self, v: &VarValue) -> Result<(), VarError> {
        if self.effect != Effect::RefuseNonDefault {
            return Ok(());
        }
        let default = self.convert(&VarValue::Str(self.default.to_string()), Origin::Startup)?;
        let same = match (v, &default) {
            (VarValue::Str(a), VarValue::Str(b)) => a.eq_ignore_ascii_case(b),
            (a, b) => a == b,
        };
        if same {
            return Ok(());
        }
        if let Some(e) = crate::locale::unknown(self.name, v) {
            return Err(e);
        }
        let shown = match v {
            VarValue::Str(s) => format!("'{s}'"),
            other => other.display(),
        };
        Err(VarError {
            code: 1235,
            state: "42000",
            message: format!("This version of quire doesn't yet support 'SET {} = {shown}'", self.name),
        })
    }

    /// The default as a value. The table's defaults all parse (a test
    /// checks), so the fallback to the raw text is never taken.
    pub fn default_value(&self) -> VarValue {
        let parsed = self.parse_startup(self.default);
        debug_assert!(parsed.is_ok(), "default of {} does not parse", self.name);
        parsed.unwrap_or_else(|_| VarValue::Str(self.default.to_string()))
    }

    fn convert(&self, value: &VarValue, origin: Origin) -> Result<VarValue, VarError> {
        let name = self.name;
        let wrong_value = || VarError::wrong_value(name, &value.display());
        let text = match value {
            VarValue::Str(s) => Some(s.trim()),
            _ => None,
        };
        match self.kind {
            VarKind::Bool => match value {
                VarValue::Float(_) => Err(VarError::wrong_type(name)),
                _ => value.as_bool().map(VarValue::Bool).ok_or_else(wrong_value),
            },
            VarKind::Int { min, max } => {
                let n = match (value, text) {
                    (VarValue::Int(i), _) => Some(i128::from(*i)),
                    (VarValue::UInt(u), _) => Some(i128::from(*u)),
                    (VarValue::Bool(b), _) => Some(i128::from(*b)),
                    (_, Some(t)) if origin == Origin::Startup => Some(parse_int(t).ok_or_else(wrong_value)?),
                    _ => None,
                };
                let n = n.ok_or_else(|| VarError::wrong_type(name))?;
                if n < i128::from(min) || n > i128::from(max) {
                    return Err(wrong_value());
                }
                i64::try_from(n).map(VarValue::Int).map_err(|_| wrong_value())
            }
            VarKind::UInt { min, max } => {
                let n = match (value, text) {
                    (VarValue::Int(i), _) => Some(i128::from(*i)),
                    (VarValue::UInt(u), _) => Some(i128::from(*u)),
                    (VarValue::Bool(b), _) => Some(i128::from(*b)),
                    (_, Some(t)) if origin == Origin::Startup => Some(parse_int(t).ok_or_else(wrong_value)?),
                    _ => None,
                };
                let n = n.ok_or_else(|| VarError::wrong_type(name))?;
                if n < i128::from(min) || n > i128::from(max) {
                    return Err(wrong_value());
                }
                u64::try_from(n).map(VarValue::UInt).map_err(|_| wrong_value())
            }
            VarKind::Float => {
                let x = match text {
                    // Text is accepted from SET too: the SQL layer hands
                    // decimal literals over as text.
                    Some(t) => t.parse::<f64>().map_err(|_| wrong_value())?,
                    None => value.as_f64().ok_or_else(|| VarError::wrong_type(name))?,
                };
                if x.is_finite() {
                    Ok(VarValue::Float(x))
                } else {
                    Err(wrong_value())
                }
            }
            VarKind::Enum(names) => {
                let index = match (value, text) {
                    (_, Some(t)) => match names.iter().position(|n| n.eq_ignore_ascii_case(t)) {
                        Some(i) => Some(i),
                        // Startup text may name a member by its index, as
                        // `innodb_doublewrite=1` does.
                        None if origin == Origin::Startup => t.parse::<usize>().ok(),
                        None => None,
                    },
                    (VarValue::Float(_), None) => return Err(VarError::wrong_type(name)),
                    (v, None) => v.as_u64().and_then(|u| usize::try_from(u).ok()),
                };
                index.and_then(|i| names.get(i)).map(|n| VarValue::Str((*n).to_string())).ok_or_else(wrong_value)
            }
            VarKind::Set(names) => {
                let t = text.ok_or_else(|| VarError::wrong_type(name))?;
                parse_set(name, names, t).map(VarValue::Str).ok_or_else(wrong_value)
            }
            VarKind::TimeZone => match value {
                VarValue::Str(s) => crate::timezone::canonical(s).map(VarValue::Str).ok_or_else(|| VarError {
                    code: 1298,
                    state: "HY000",
                    message: format!("Unknown or incorrect time zone: '{s}'"),
                }),
                _ => Err(VarError::wrong_type(name)),
            },
            VarKind::OptimizerSwitch => {
                let t = text.ok_or_else(|| VarError::wrong_type(name))?;
                let v = crate::optimizer_switch::apply(crate::optimizer_switch::DEFAULT, t).ok_or_else(wrong_value)?;
                VarError::switch_supported(&v)?;
                Ok(VarValue::Str(v))
            }
            VarKind::Str => match value {
                VarValue::Str(s) => Ok(VarValue::Str(s.clone())),
                _ if origin == Origin::Startup => Ok(VarValue::Str(value.display())),
                _ => Err(VarError::wrong_type(name)),
            },
        }
    }
}

/// A SET's value for `def`, made whole: `optimizer_switch`'s change list
/// applied to the value it replaces (`current`); other values as given.
fn relative(def: &VarDef, current: Option<&VarValue>, value: &VarValue) -> Result<VarValue, VarError> {
    match (def.kind, value) {
        (VarKind::OptimizerSwitch, VarValue::Str(t)) => {
            let current = current.and_then(VarValue::as_str).unwrap_or(crate::optimizer_switch::DEFAULT);
            let v = crate::optimizer_switch::apply(current, t)
                .ok_or_else(|| VarError::wrong_value(def.name, &value.display()))?;
            VarError::switch_supported(&v)?;
            Ok(VarValue::Str(v))
        }
        _ => Ok(value.clone()),
    }
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_uppercase().as_str() {
        "ON" | "TRUE" | "1" => Some(true),
        "OFF" | "FALSE" | "0" => Some(false),
        _ => None,
    }
}

/// An integer as startup text writes it: optional sign, digits, optional
/// K/M/G/T suffix (binary multiples).
fn parse_int(t: &str) -> Option<i128> {
    let (negative, magnitude) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if !magnitude.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let n = i128::from(quire_engine::config::parse_size(magnitude).ok()?);
    Some(if negative { -n } else { n })
}

/// `sql_mode` combinations that stand for several modes; MySQL keeps the
/// combination's own name in the set too.
const SQL_MODE_COMBINATIONS: &[(&str, &[&str])] = &[
    ("ANSI", &["REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY"]),
    (
        "TRADITIONAL",
        &[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "NO_ENGINE_SUBSTITUTION",
        ],
    ),
];

/// Parses a comma-separated set; members come out in table order, once
/// each, spelled as in the table. `None` if a member is not in `names`.
fn parse_set(var: &str, names: &'static [&'static str], text: &str) -> Option<String> {
    let mut chosen = vec![false; names.len()];
    for member in text.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        let i = names.iter().position(|n| n.eq_ignore_ascii_case(member))?;
        chosen[i] = true;
        if var == "sql_mode" {
            let implied = SQL_MODE_COMBINATIONS.iter().find(|(c, _)| *c == names[i]).map_or(&[][..], |(_, m)| m);
            for m in implied {
                if let Some(j) = names.iter().position(|n| n == m) {
                    chosen[j] = true;
                }
            }
        }
    }
    let members: Vec<&str> = names.iter().zip(&chosen).filter(|(_, c)| **c).map(|(n, _)| *n).collect();
    Some(members.join(","))
}

// ---------------------------------------------------------------------------
// The table.

use Scope::{Both as B, Global as G, Session as S};
use VarKind::{Bool, Float, Str};

const DYN: bool = true;
const RO: bool = false;
const USED: Effect = Effect::Used;
const REFUSE: Effect = Effect::RefuseNonDefault;
const fn no_effect(reason: &'static str) -> Effect {
    Effect::NoEffectByDesign(reason)
}

const fn def(
    name: &'static str,
    scope: Scope,
    dynamic: bool,
    kind: VarKind,
    default: &'static str,
    effect: Effect,
) -> VarDef {
    VarDef { name, scope, dynamic, kind, default, effect }
}

const fn uint(min: u64, max: u64) -> VarKind {
    VarKind::UInt { min, max }
}

const U32: u64 = u32::MAX as u64;
const U64: u64 = u64::MAX;

const ISOLATION: &[&str] = &["READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"];
const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "TIME_TRUNCATE_FRACTIONAL",
];
/// `innodb_flush_method`, as `quire_engine::config::FlushMethod::parse`
/// accepts them.
const FLUSH_METHODS: &[&str] = &["fsync", "O_DSYNC", "littlesync", "nosync", "O_DIRECT", "O_DIRECT_NO_FSYNC"];
/// `innodb_doublewrite`, in MySQL's order so that 0 and 1 mean OFF and ON;
/// `DoublewriteMode::parse` accepts each.
const DOUBLEWRITE_MODES: &[&str] = &["OFF", "ON", "DETECT_AND_RECOVER", "DETECT_ONLY"];
const OFF_ON_DEMAND: &[&str] = &["OFF", "ON", "DEMAND"];
const CHANGE_BUFFERING: &[&str] = &["none", "inserts", "deletes", "changes", "purges", "all"];
const CHECKSUMS: &[&str] = &["crc32", "strict_crc32", "innodb", "strict_innodb", "none", "strict_none"];
const BINLOG_FORMATS: &[&str] = &["ROW", "STATEMENT", "MIXED"];
const BINLOG_ROW_IMAGES: &[&str] = &["FULL", "MINIMAL", "NOBLOB"];
const BINLOG_CHECKSUMS: &[&str] = &["NONE", "CRC32"];
const PARALLEL_TYPES: &[&str] = &["DATABASE", "LOGICAL_CLOCK"];
const BINLOG_ROW_METADATAS: &[&str] = &["MINIMAL", "FULL"];
/// The plugins quire verifies (sha256_password it does not have).
const AUTH_PLUGINS: &[&str] = &["mysql_native_password", "caching_sha2_password"];
/// `thread_pool_priority`'s values (a session's is read per command).
pub const THREAD_POOL_PRIORITIES: &[&str] = &["high", "low", "auto"];
const GTID_MODES: &[&str] = &["OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"];
const LOG_OUTPUTS: &[&str] = &["TABLE", "FILE", "NONE"];
const LOG_TIMESTAMPS: &[&str] = &["UTC", "SYSTEM"];
const ROW_FORMATS: &[&str] = &["REDUNDANT", "COMPACT", "DYNAMIC"];
const FILE_FORMATS: &[&str] = &["Antelope", "Barracuda"];
const INTERNAL_ENGINES: &[&str] = &["TempTable", "MEMORY"];
const TLS_VERSIONS_DEFAULT: &str = "TLSv1.2,TLSv1.3";

#[cfg(target_os = "linux")]
const COMPILE_OS: &str = "Linux";
#[cfg(target_os = "macos")]
const COMPILE_OS: &str = "macOS";
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
const COMPILE_OS: &str = std::env::consts::OS;

/// The version quire announces: MySQL 8.0 compatibility, then quire's own.
pub const VERSION: &str = concat!("8.0.36-quire-", env!("CARGO_PKG_VERSION"));

/// Every variable quire knows, in name order.
pub static VARS: &[VarDef] = &[
    def("auto_increment_increment", B, DYN, uint(1, 65535), "1", USED),
    def("auto_increment_offset", B, DYN, uint(1, 65535), "1", USED),
    def("autocommit", B, DYN, Bool, "ON", USED),
    // Autosized at startup to max_connections when not given (MySQL 8.0,
    // WL#9704); the compiled-in default is max_connections' default.
    def("back_log", G, RO, uint(1, 65535), "151", USED),
    def("basedir", G, RO, Str, "", no_effect("quire reads no files from an installation directory")),
    def("big_tables", B, DYN, Bool, "OFF", no_effect("internal temporary tables spill to disk by size (tmp_table_size); results are the same either way")),
    def("bind_address", G, RO, Str, "127.0.0.1", USED),
    def("binlog_cache_size", G, DYN, uint(4096, U64), "32768", no_effect("a buffer size: a transaction's binary log cache grows as it needs, up to max_binlog_cache_size")),
    // The binary log (`binlog/`): values quire does not do are refused
    // with 1235 (`binlog::vars::refuse`).
    def("binlog_checksum", G, RO, VarKind::Enum(BINLOG_CHECKSUMS), "CRC32", USED),
    def("binlog_expire_logs_seconds", G, DYN, uint(0, U32), "2592000", USED),
    def("binlog_format", B, DYN, VarKind::Enum(BINLOG_FORMATS), "ROW", USED),
    def("binlog_group_commit_sync_delay", G, DYN, uint(0, 1_000_000), "0", USED),
    def("binlog_group_commit_sync_no_delay_count", G, DYN, uint(0, 100_000), "0", USED),
    def("binlog_row_image", B, DYN, VarKind::Enum(BINLOG_ROW_IMAGES), "FULL", USED),
    def("binlog_row_metadata", G, DYN, VarKind::Enum(BINLOG_ROW_METADATAS), "MINIMAL", USED),
    def("bulk_insert_buffer_size", B, DYN, uint(0, U64), "8388608", no_effect("MyISAM's bulk insert cache; quire has no MyISAM")),
    def("character_set_client", B, DYN, Str, "utf8mb4", USED),
    def("character_set_client_handshake", G, RO, Bool, "ON", no_effect("quire takes utf8mb4 from every handshake, which is what OFF does with utf8mb4 as the server's character set")),
    def("character_set_connection", B, DYN, Str, "utf8mb4", USED),
    def("character_set_database", B, DYN, Str, "utf8mb4", USED),
    def("character_set_filesystem", B, DYN, Str, "binary", REFUSE),
    def("character_set_results", B, DYN, Str, "utf8mb4", USED),
    def("character_set_server", B, DYN, Str, "utf8mb4", USED),
    def("character_set_system", G, RO, Str, "utf8mb3", no_effect("informational: identifiers are utf8 text")),
    def("collation_connection", B, DYN, Str, "utf8mb4_general_ci", USED),
    def("collation_database", B, DYN, Str, "utf8mb4_general_ci", USED),
    def("collation_server", B, DYN, Str, "utf8mb4_general_ci", USED),
    def("connect_timeout", G, DYN, uint(2, 31_536_000), "10", USED),
    def("core_file", G, RO, Bool, "OFF", no_effect("whether a crash writes a core file: the operating system's ulimit decides for quire")),
    def("cte_max_recursion_depth", B, DYN, uint(0, U32), "1000", USED),
    def("datadir", G, RO, Str, "./quire-data", USED),
    // The plugin the handshake announces (`serve`); quire's default is
    // MariaDB's, mysql_native_password, which every client speaks without TLS.
    def("default_authentication_plugin", G, RO, VarKind::Enum(AUTH_PLUGINS), "mysql_native_password", USED),
    def("default_password_lifetime", G, DYN, uint(0, 65535), "0", REFUSE),
    def("default_storage_engine", B, DYN, Str, "InnoDB", REFUSE),
    def("default_tmp_storage_engine", B, DYN, Str, "InnoDB", REFUSE),
    def("disabled_storage_engines", G, RO, Str, "", REFUSE),
    def("enforce_gtid_consistency", G, DYN, VarKind::Enum(&["OFF", "ON", "WARN"]), "OFF", USED),
    def("error_count", S, RO, uint(0, U64), "0", USED),
    def("event_scheduler", G, DYN, VarKind::Enum(&["OFF", "ON", "DISABLED"]), "ON", USED),
    def("expire_logs_days", G, DYN, uint(0, 99), "0", REFUSE),
    def("explicit_defaults_for_timestamp", B, DYN, Bool, "ON", REFUSE),
    def("foreign_key_checks", B, DYN, Bool, "ON", USED),
    def("general_log", G, DYN, Bool, "OFF", USED),
    def("general_log_file", G, DYN, Str, "quire.log", USED),
    def("group_concat_max_len", B, DYN, uint(4, U64), "1024", USED),
    def("gtid_executed", G, RO, Str, "", USED),
    def("gtid_mode", G, DYN, VarKind::Enum(GTID_MODES), "OFF", USED),
    def("gtid_next", S, DYN, Str, "AUTOMATIC", USED),
    def("gtid_purged", G, DYN, Str, "", USED),
    def("have_ssl", G, RO, Str, "DISABLED", USED),
    def("hostname", G, RO, Str, "localhost", USED),
    def("identity", S, DYN, uint(0, U64), "0", USED),
    def("init_connect", G, DYN, Str, "", USED),
    def("init_file", G, RO, Str, "", REFUSE),
    def("innodb_adaptive_flushing", G, DYN, Bool, "ON", USED),
    def("innodb_adaptive_flushing_lwm", G, DYN, uint(0, 70), "10", USED),
    def("innodb_adaptive_hash_index", G, DYN, Bool, "OFF", USED),
    def("innodb_adaptive_hash_index_parts", G, RO, uint(1, 512), "8", USED),
    def("innodb_autoextend_increment", G, DYN, uint(1, 1000), "64", no_effect("the growth step of tablespace files: their size on disk only")),
    def("innodb_autoinc_lock_mode", G, RO, uint(0, 2), "2", REFUSE),
    def("innodb_buffer_pool_chunk_size", G, RO, uint(1_048_576, U64), "134217728", no_effect("the unit of online buffer pool resizing, which quire does not do (innodb_buffer_pool_size is read-only)")),
    def("innodb_buffer_pool_dump_at_shutdown", G, DYN, Bool, "OFF", no_effect("a warm-up of the buffer pool across restarts: only speed differs")),
    def("innodb_buffer_pool_dump_pct", G, DYN, uint(1, 100), "25", no_effect("a warm-up of the buffer pool across restarts: only speed differs")),
    def("innodb_buffer_pool_filename", G, DYN, Str, "ib_buffer_pool", no_effect("the file of the buffer pool warm-up, which quire does not write")),
    def("innodb_buffer_pool_in_core_file", G, DYN, Bool, "ON", no_effect("whether core files hold the buffer pool: quire writes no core files itself")),
    def("innodb_buffer_pool_instances", G, RO, uint(1, 64), "1", USED),
    def("innodb_buffer_pool_load_at_startup", G, RO, Bool, "OFF", no_effect("a warm-up of the buffer pool across restarts: only speed differs")),
    def("innodb_buffer_pool_size", G, RO, uint(5_242_880, U64), "134217728", USED),
    def("innodb_change_buffer_max_size", G, DYN, uint(0, 50), "25", USED),
    // The change buffer (engine `ibuf/`); the default by measurement
    // (docs/BENCHMARKS.md, "Change buffering").
    def("innodb_change_buffering", G, DYN, VarKind::Enum(CHANGE_BUFFERING), "all", USED),
    def("innodb_checksum_algorithm", G, DYN, VarKind::Enum(CHECKSUMS), "crc32", no_effect("quire writes and verifies CRC-32C page checksums always; the other algorithms matter only for pages other servers wrote, which quire does not open")),
    def("innodb_commit_concurrency", G, DYN, uint(0, 1000), "0", no_effect("a concurrency throttle: only speed differs")),
    def("innodb_concurrency_tickets", G, DYN, uint(1, U32), "5000", USED),
    def("innodb_data_file_path", G, RO, Str, "ibdata1:12M:autoextend", no_effect("the system tablespace file, which quire does not have")),
    def("innodb_data_home_dir", G, RO, Str, "", no_effect("the directory of the system tablespace, which quire does not have")),
    def("innodb_deadlock_detect", G, DYN, Bool, "ON", USED),
    def("innodb_dedicated_server", G, RO, Bool, "OFF", REFUSE),
    def("innodb_default_row_format", G, DYN, VarKind::Enum(ROW_FORMATS), "DYNAMIC", REFUSE),
    def("innodb_doublewrite", G, RO, VarKind::Enum(DOUBLEWRITE_MODES), "ON", USED),
    def("innodb_doublewrite_batch_size", G, RO, uint(0, 256), "0", USED),
    def("innodb_doublewrite_dir", G, RO, Str, "", USED),
    def("innodb_doublewrite_files", G, RO, uint(2, 256), "2", USED),
    def("innodb_doublewrite_pages", G, RO, uint(1, 512), "64", USED),
    def("innodb_fast_shutdown", G, DYN, uint(0, 2), "1", USED),
    def("innodb_file_format", G, DYN, VarKind::Enum(FILE_FORMATS), "Barracuda", no_effect("MySQL 5.7's; every table is Barracuda (DYNAMIC), as in MySQL 8.0")),
    def("innodb_file_per_table", G, DYN, Bool, "ON", REFUSE),
    def("innodb_fill_factor", G, DYN, uint(10, 100), "100", no_effect("how full sorted index builds leave pages: space on disk only")),
    def("innodb_flush_log_at_timeout", G, DYN, uint(1, 2700), "1", no_effect("with innodb_flush_log_at_trx_commit 0 or 2 quire's log writer flushes once a second, this variable's default")),
    def("innodb_flush_log_at_trx_commit", G, DYN, uint(0, 2), "1", USED),
    def("innodb_flush_method", G, RO, VarKind::Enum(FLUSH_METHODS), "O_DIRECT", USED),
    def("innodb_flush_neighbors", G, DYN, uint(0, 2), "0", no_effect("a flushing heuristic: only speed differs")),
    def("innodb_flush_sync", G, DYN, Bool, "ON", no_effect("a flushing heuristic: only speed differs")),
    def("innodb_flushing_avg_loops", G, DYN, uint(1, 1000), "30", no_effect("a flushing heuristic: only speed differs")),
    def("innodb_force_recovery", G, RO, uint(0, 6), "0", USED),
    def("innodb_io_capacity", G, DYN, uint(100, U64), "200", USED),
    def("innodb_io_capacity_max", G, DYN, uint(100, U64), "2000", USED),
    def("innodb_large_prefix", G, DYN, Bool, "ON", no_effect("MySQL 5.7's; long index prefixes are always allowed, as in MySQL 8.0")),
    def("innodb_lock_wait_timeout", B, DYN, uint(1, 1_073_741_824), "50", USED),
    def("innodb_log_buffer_size", G, RO, uint(262_144, U32), "16777216", USED),
    def("innodb_log_checksums", G, DYN, Bool, "ON", no_effect("redo records always carry checksums (MySQL 8.0.26 also ignores OFF)")),
    def("innodb_log_compressed_pages", G, DYN, Bool, "ON", no_effect("quire has no compressed tables")),
    // InnoDB's redo capacity is innodb_log_file_size * innodb_log_files_in_group;
    // quire keeps it in one file of that size (48M * 2 = the engine's 96M).
    def("innodb_log_file_size", G, RO, uint(4_194_304, U64), "50331648", USED),
    def("innodb_log_files_in_group", G, RO, uint(2, 100), "2", USED),
    def("innodb_log_group_home_dir", G, RO, Str, "", REFUSE),
    def("innodb_log_write_ahead_size", G, DYN, uint(512, 65536), "8192", no_effect("an I/O size: only speed differs")),
    def("innodb_log_writer_threads", G, DYN, Bool, "ON", no_effect("a threading choice: only speed differs")),
    def("innodb_lru_scan_depth", G, DYN, uint(100, U64), "1024", USED),
    def("innodb_max_dirty_pages_pct", G, DYN, Float, "90", USED),
    // MariaDB's default (MySQL 8.0's is 10): no pre-flushing below
    // innodb_max_dirty_pages_pct. Pre-flushing writes the hot pages over
    // and over (docs/BENCHMARKS.md, "Pre-flushing").
    def("innodb_max_dirty_pages_pct_lwm", G, DYN, Float, "0", USED),
    def("innodb_max_purge_lag", G, DYN, uint(0, U32), "4096", USED),
    def("innodb_max_purge_lag_delay", G, DYN, uint(0, 10_000_000), "1000000", USED),
    def("innodb_max_undo_log_size", G, DYN, uint(10_485_760, U64), "1073741824", no_effect("the size at which undo tablespaces are truncated: space on disk only")),
    def("innodb_monitor_disable", G, DYN, Str, "", REFUSE),
    def("innodb_monitor_enable", G, DYN, Str, "", no_effect("INNODB_METRICS counts every metric quire keeps, always; '%' or any counter is already enabled")),
    def("innodb_monitor_reset", G, DYN, Str, "", REFUSE),
    def("innodb_monitor_reset_all", G, DYN, Str, "", REFUSE),
    def("innodb_numa_interleave", G, RO, Bool, "OFF", no_effect("memory placement on NUMA machines: only speed differs")),
    def("innodb_old_blocks_pct", G, DYN, uint(5, 95), "37", USED),
    def("innodb_old_blocks_time", G, DYN, uint(0, U32), "1000", USED),
    def("innodb_online_alter_log_max_size", G, DYN, uint(65536, U64), "134217728", REFUSE),
    def("innodb_open_files", G, DYN, uint(10, U32), "4000", no_effect("a cache of open files: quire keeps every tablespace open")),
    def("innodb_page_cleaners", G, RO, uint(1, 64), "1", USED),
    def("innodb_page_size", G, RO, uint(4096, 65536), "16384", USED),
    def("innodb_print_all_deadlocks", G, DYN, Bool, "OFF", REFUSE),
    def("innodb_purge_batch_size", G, DYN, uint(1, 5000), "300", no_effect("purge's batch size: only speed differs")),
    def("innodb_purge_rseg_truncate_frequency", G, DYN, uint(1, 128), "128", no_effect("how often purge frees undo segments: space on disk only")),
    def("innodb_purge_threads", G, RO, uint(1, 32), "4", USED),
    def("innodb_random_read_ahead", G, DYN, Bool, "OFF", USED),
    def("innodb_read_ahead_threshold", G, DYN, uint(0, 64), "56", USED),
    def("innodb_read_io_threads", G, RO, uint(1, 64), "4", USED),
    def("innodb_read_only", G, RO, Bool, "OFF", REFUSE),
    // innodb_redo_log_capacity (8.0.30) replaces the two above when set.
    def("innodb_redo_log_capacity", G, RO, uint(8_388_608, U64), "100663296", USED),
    def("innodb_rollback_on_timeout", G, RO, Bool, "OFF", USED),
    def("innodb_rollback_segments", G, DYN, uint(1, 128), "128", no_effect("the number of undo segments: only concurrency differs")),
    def("innodb_sort_buffer_size", G, RO, uint(65536, 67_108_864), "1048576", no_effect("a buffer size of index builds: only speed differs")),
    def("innodb_spin_wait_delay", G, DYN, uint(0, 1000), "6", no_effect("a spin-lock tuning: only speed differs")),
    def("innodb_stats_auto_recalc", G, DYN, Bool, "ON", USED),
    def("innodb_stats_on_metadata", G, DYN, Bool, "OFF", REFUSE),
    def("innodb_stats_persistent", G, DYN, Bool, "ON", USED),
    def("innodb_stats_persistent_sample_pages", G, DYN, uint(1, U64), "20", USED),
    def("innodb_stats_transient_sample_pages", G, DYN, uint(1, U64), "8", USED),
    def("innodb_status_output", G, DYN, Bool, "OFF", REFUSE),
    def("innodb_status_output_locks", G, DYN, Bool, "OFF", REFUSE),
    def("innodb_strict_mode", B, DYN, Bool, "ON", REFUSE),
    def("innodb_sync_array_size", G, RO, uint(1, 1024), "1", no_effect("a spin-lock tuning: only speed differs")),
    def("innodb_sync_spin_loops", G, DYN, uint(0, U32), "30", no_effect("a spin-lock tuning: only speed differs")),
    def("innodb_table_locks", B, DYN, Bool, "ON", REFUSE),
    def("innodb_temp_data_file_path", G, RO, Str, "ibtmp1:12M:autoextend", no_effect("the temporary tablespace file, which quire does not have")),
    def("innodb_thread_concurrency", G, DYN, uint(0, 1000), "0", USED),
    def("innodb_tmpdir", B, DYN, Str, "", REFUSE),
    def("innodb_undo_directory", G, RO, Str, "", REFUSE),
    def("innodb_undo_log_encrypt", G, DYN, Bool, "OFF", REFUSE),
    def("innodb_undo_log_truncate", G, DYN, Bool, "ON", no_effect("whether undo tablespaces shrink: space on disk only")),
    def("innodb_undo_logs", G, DYN, uint(1, 128), "128", no_effect("the number of undo segments: only concurrency differs")),
    def("innodb_undo_tablespaces", G, DYN, uint(0, 127), "2", no_effect("how undo is split into files: space on disk only")),
    def("innodb_use_fdatasync", G, DYN, Bool, "OFF", no_effect("fdatasync or fsync: the same durability, only speed differs")),
    def("innodb_use_native_aio", G, RO, Bool, "ON", no_effect("an I/O method: only speed differs")),
    def("innodb_write_io_threads", G, RO, uint(1, 64), "4", USED),
    def("insert_id", S, DYN, uint(0, U64), "0", USED),
    def("interactive_timeout", B, DYN, uint(1, 31_536_000), "28800", USED),
    def("internal_tmp_mem_storage_engine", B, DYN, VarKind::Enum(INTERNAL_ENGINES), "TempTable", no_effect("the engine of in-memory temporary tables: results are the same")),
    def("join_buffer_size", B, DYN, uint(128, U64), "262144", USED),
    def("key_buffer_size", G, DYN, uint(0, U64), "8388608", no_effect("MyISAM's index cache; quire has no MyISAM")),
    def("large_pages", G, RO, Bool, "OFF", no_effect("huge pages for the buffer pool: only speed differs")),
    def("last_insert_id", S, DYN, uint(0, U64), "0", USED),
    def("lc_messages", B, DYN, Str, "en_US", REFUSE),
    def("lc_messages_dir", G, RO, Str, "", no_effect("quire's messages are built in (English, lc_messages is en_US)")),
    def("lc_time_names", B, DYN, Str, "en_US", REFUSE),
    def("license", G, RO, Str, env!("CARGO_PKG_LICENSE"), USED),
    def("local_infile", G, DYN, Bool, "OFF", USED),
    def("lock_wait_timeout", B, DYN, uint(1, 31_536_000), "31536000", USED),
    // `log_bin` is OFF, ON (`--log-bin`) or a base name on the command
    // line, ON/OFF once the server runs (`binlog::open`). OFF by default,
    // as MariaDB (MySQL 8.0 defaults to ON): no cost for who does not
    // replicate.
    def("log_bin", G, RO, Str, "OFF", USED),
    def("log_bin_basename", G, RO, Str, "", USED),
    def("log_bin_index", G, RO, Str, "", USED),
    def("log_error", G, RO, Str, "stderr", USED),
    def("log_error_verbosity", G, DYN, uint(1, 3), "2", no_effect("quire's error log detail is chosen by RUST_LOG")),
    def("log_output", G, DYN, VarKind::Set(LOG_OUTPUTS), "FILE", USED),
    def("log_replica_updates", G, RO, Bool, "ON", USED),
    def("log_timestamps", G, DYN, VarKind::Enum(LOG_TIMESTAMPS), "UTC", REFUSE),
    def("long_query_time", B, DYN, Float, "10", USED),
    def("lower_case_table_names", G, RO, uint(0, 2), "0", REFUSE),
    def("max_allowed_packet", B, DYN, uint(1024, 1_073_741_824), "67108864", USED),
    def("max_binlog_cache_size", G, DYN, uint(4096, U64), "18446744073709547520", USED),
    def("max_binlog_size", G, DYN, uint(4096, 1_073_741_824), "1073741824", USED),
    def("max_connect_errors", G, DYN, uint(1, U64), "100", REFUSE),
    def("max_connections", G, DYN, uint(1, 100_000), "151", USED),
    def("max_error_count", B, DYN, uint(0, 65535), "64", USED),
    def("max_execution_time", B, DYN, uint(0, U32), "0", USED),
    def("max_heap_table_size", B, DYN, uint(16384, U64), "16777216", USED),
    def("max_prepared_stmt_count", G, DYN, uint(0, 4_194_304), "16382", USED),
    def("max_sort_length", B, DYN, uint(4, 8_388_608), "1024", REFUSE),
    def("max_sp_recursion_depth", B, DYN, uint(0, 255), "0", USED),
    def("max_user_connections", B, DYN, uint(0, U32), "0", USED),
    def("myisam_sort_buffer_size", B, DYN, uint(4096, U64), "8388608", no_effect("MyISAM's sort buffer; quire has no MyISAM")),
    def("mysqlx", G, RO, Bool, "OFF", REFUSE),
    def("mysqlx_port", G, RO, uint(1, 65535), "33060", no_effect("the X Protocol's port; quire has no X Protocol listener (mysqlx ON is refused)")),
    def("net_buffer_length", B, DYN, uint(1024, 1_048_576), "16384", no_effect("the initial size of connection buffers, which grow as needed")),
    def("net_read_timeout", B, DYN, uint(1, 31_536_000), "30", REFUSE),
    def("net_retry_count", B, DYN, uint(1, U64), "10", no_effect("retries of interrupted network reads: quire retries until the read times out")),
    def("net_write_timeout", B, DYN, uint(1, 31_536_000), "60", USED),
    def("open_files_limit", G, RO, uint(0, U64), "5000", no_effect("a file descriptor limit: quire keeps what the operating system gives it")),
    def("optimizer_switch", B, DYN, VarKind::OptimizerSwitch, crate::optimizer_switch::DEFAULT, USED),
    def("performance_schema", G, RO, Bool, "ON", USED),
    def("performance_schema_instrument", G, RO, Str, "", USED),
    def("pid_file", G, RO, Str, "", USED),
    def("port", G, RO, uint(0, 65535), "3306", USED),
    def("protocol_version", G, RO, uint(0, 255), "10", USED),
    def("pseudo_thread_id", S, DYN, uint(0, U32), "0", USED),
    def("query_cache_size", G, DYN, uint(0, U64), "0", no_effect("the query cache (MySQL 8.0 removed it): results are the same with it or without it")),
    def("query_cache_type", B, DYN, VarKind::Enum(OFF_ON_DEMAND), "OFF", no_effect("the query cache (MySQL 8.0 removed it): results are the same with it or without it")),
    def("read_buffer_size", B, DYN, uint(8192, 2_147_479_552), "131072", no_effect("a buffer size of sequential scans: only speed differs")),
    def("read_only", G, DYN, Bool, "OFF", USED),
    def("read_rnd_buffer_size", B, DYN, uint(1, 2_147_483_647), "262144", no_effect("a buffer size of sorted reads: only speed differs")),
    def("relay_log", G, RO, Str, "", USED),
    // The parallel applier (`replica/parallel.rs`), read at START
    // REPLICA; MySQL 8.0.27's defaults. Commits keep the source's order
    // (the applied position is a prefix of the relay log) and
    // transactions are scheduled by the source's logical clock: the
    // other choices are refused.
    // Seconds without a byte from the source (events or heartbeats)
    // before the receiver reconnects (`replica/receiver.rs`); read at
    // START REPLICA. The default heartbeat period is half of it.
    def("replica_net_timeout", G, DYN, uint(1, 31_536_000), "60", USED),
    def("replica_parallel_type", G, DYN, VarKind::Enum(PARALLEL_TYPES), "LOGICAL_CLOCK", REFUSE),
    def("replica_parallel_workers", G, DYN, uint(0, 1024), "4", USED),
    def("replica_preserve_commit_order", G, DYN, Bool, "ON", REFUSE),
    // How often the applier retries a transaction that failed on a lock
    // wait timeout or a deadlock (`replica/applier.rs`), read at each
    // failure.
    def("replica_transaction_retries", G, DYN, uint(0, U64), "10", USED),
    def("require_secure_transport", G, DYN, Bool, "OFF", REFUSE),
    def("secure_file_priv", G, RO, Str, "NULL", USED),
    def("server_id", G, DYN, uint(0, U32), "1", USED),
    def("server_uuid", G, RO, Str, "", USED),
    def("session_track_gtids", B, DYN, VarKind::Enum(&["OFF", "OWN_GTID", "ALL_GTIDS"]), "OFF", no_effect("quire does not offer CLIENT_SESSION_TRACK, so no client receives session state, as with a MySQL client that does not ask for it")),
    def("session_track_schema", B, DYN, Bool, "ON", no_effect("quire does not offer CLIENT_SESSION_TRACK, so no client receives session state, as with a MySQL client that does not ask for it")),
    def("session_track_state_change", B, DYN, Bool, "OFF", no_effect("quire does not offer CLIENT_SESSION_TRACK, so no client receives session state, as with a MySQL client that does not ask for it")),
    def("session_track_system_variables", B, DYN, Str, "time_zone,autocommit,character_set_client", no_effect("quire does not offer CLIENT_SESSION_TRACK, so no client receives session state, as with a MySQL client that does not ask for it")),
    def("session_track_transaction_info", B, DYN, VarKind::Enum(&["OFF", "STATE", "CHARACTERISTICS"]), "OFF", no_effect("quire does not offer CLIENT_SESSION_TRACK, so no client receives session state, as with a MySQL client that does not ask for it")),
    def("skip_external_locking", G, RO, Bool, "ON", no_effect("quire never locks its files for other processes (MySQL's default)")),
    // quire never resolves client host names, so the truthful value is ON.
    def("skip_name_resolve", G, RO, Bool, "ON", no_effect("quire never resolves client host names, so ON is the truth and OFF changes nothing")),
    def("skip_networking", G, RO, Bool, "OFF", REFUSE),
    def("skip_replica_start", G, RO, Bool, "OFF", USED),
    def("skip_show_database", G, RO, Bool, "OFF", REFUSE),
    def("slow_query_log", G, DYN, Bool, "OFF", USED),
    def("slow_query_log_file", G, DYN, Str, "quire-slow.log", USED),
    def("socket", G, RO, Str, "", USED),
    def("sort_buffer_size", B, DYN, uint(32768, U64), "262144", USED),
    def("sql_auto_is_null", B, DYN, Bool, "OFF", USED),
    def("sql_log_bin", S, DYN, Bool, "ON", USED),
    def(
        "sql_mode",
        B,
        DYN,
        VarKind::Set(SQL_MODES),
        "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
        USED,
    ),
    def("sql_notes", B, DYN, Bool, "ON", USED),
    def("sql_quote_show_create", B, DYN, Bool, "ON", REFUSE),
    def("sql_require_primary_key", B, DYN, Bool, "OFF", USED),
    def("sql_safe_updates", B, DYN, Bool, "OFF", USED),
    def("sql_select_limit", B, DYN, uint(0, U64), "18446744073709551615", USED),
    def("sql_warnings", B, DYN, Bool, "OFF", REFUSE),
    def("ssl", G, RO, Bool, "OFF", REFUSE),
    def("ssl_ca", G, RO, Str, "", REFUSE),
    def("ssl_cert", G, RO, Str, "", REFUSE),
    def("ssl_cipher", G, RO, Str, "", REFUSE),
    def("ssl_key", G, RO, Str, "", REFUSE),
    def("super_read_only", G, DYN, Bool, "OFF", USED),
    def("symbolic_links", G, RO, Bool, "OFF", no_effect("symbolic links to MyISAM files in DATA DIRECTORY; quire has no MyISAM")),
    def("sync_binlog", G, DYN, uint(0, U32), "1", USED),
    def("sync_relay_log", G, DYN, uint(0, U32), "10000", no_effect("how often the relay log is synced: what a replica has applied is recovered from its binary log and the source either way")),
    def("system_time_zone", G, RO, Str, "UTC", no_effect("informational: the host's time zone name")),
    def("table_definition_cache", G, DYN, uint(400, 524_288), "2000", no_effect("a cache size: quire keeps every table definition in memory")),
    def("table_open_cache", G, DYN, uint(1, 524_288), "4000", no_effect("a cache size: quire keeps every table open")),
    def("table_open_cache_instances", G, RO, uint(1, 64), "16", no_effect("a cache's partitioning: only speed differs")),
    def("thread_cache_size", G, DYN, uint(0, 16384), "9", USED),
    // MariaDB's names; "no-threads" (a debugging mode) is not offered.
    def(
        "thread_handling",
        G,
        RO,
        VarKind::Enum(&["one-thread-per-connection", "pool-of-threads"]),
        "one-thread-per-connection",
        USED,
    ),
    // The thread pool (MariaDB's variables and defaults; the size is
    // autosized to the CPUs at startup and fixed while the server runs).
    def("thread_pool_idle_timeout", G, DYN, uint(1, U32), "60", USED),
    def("thread_pool_max_threads", G, DYN, uint(1, 65_536), "65536", USED),
    def("thread_pool_oversubscribe", G, DYN, uint(1, 65_536), "3", USED),
    def("thread_pool_prio_kickup_timer", G, DYN, uint(0, U32), "1000", USED),
    def("thread_pool_priority", B, DYN, VarKind::Enum(THREAD_POOL_PRIORITIES), "auto", USED),
    def("thread_pool_size", G, DYN, uint(1, 100_000), "1", USED),
    def("thread_pool_stall_limit", G, DYN, uint(1, U32), "500", USED),
    def("thread_stack", G, RO, uint(131_072, U64), "1048576", no_effect("quire sizes its threads' stacks itself")),
    def("time_zone", B, DYN, VarKind::TimeZone, "SYSTEM", USED),
    def("timestamp", S, DYN, Float, "0", USED),
    def("tls_version", G, RO, Str, TLS_VERSIONS_DEFAULT, no_effect("the TLS versions offered: quire offers no TLS (ssl ON is refused)")),
    def("tmp_table_size", B, DYN, uint(1024, U64), "16777216", USED),
    def("tmpdir", G, RO, Str, "/tmp", USED),
    def("transaction_alloc_block_size", B, DYN, uint(1024, 131_072), "8192", no_effect("a memory allocation size: only speed differs")),
    def("transaction_isolation", B, DYN, VarKind::Enum(ISOLATION), "REPEATABLE-READ", USED),
    def("transaction_prealloc_size", B, DYN, uint(1024, 131_072), "4096", no_effect("a memory allocation size: only speed differs")),
    def("transaction_read_only", B, DYN, Bool, "OFF", USED),
    def("unique_checks", B, DYN, Bool, "ON", no_effect("a permission to skip unique checks, not an order: MariaDB 10.11 still reports duplicates on unique secondary keys with it OFF, and quire always checks")),
    def("updatable_views_with_limit", B, DYN, VarKind::Enum(&["NO", "YES"]), "YES", REFUSE),
    def("user", G, RO, Str, "", REFUSE),
    def("version", G, RO, Str, VERSION, USED),
    def("version_comment", G, RO, Str, "quire", USED),
    def("version_compile_machine", G, RO, Str, std::env::consts::ARCH, USED),
    def("version_compile_os", G, RO, Str, COMPILE_OS, USED),
    def("wait_timeout", B, DYN, uint(1, 31_536_000), "28800", USED),
    def("warning_count", S, RO, uint(0, U64), "0", USED),
];

/// Other names for variables in the table: old MySQL spellings and
/// option names that set a differently named variable.
const ALIASES: &[(&str, &str)] = &[
    ("default_time_zone", "time_zone"),
    ("log_slave_updates", "log_replica_updates"),
    ("skip_slave_start", "skip_replica_start"),
    ("slave_net_timeout", "replica_net_timeout"),
    ("slave_parallel_type", "replica_parallel_type"),
    ("slave_parallel_workers", "replica_parallel_workers"),
    ("slave_preserve_commit_order", "replica_preserve_commit_order"),
    ("slave_transaction_retries", "replica_transaction_retries"),
    ("tx_isolation", "transaction_isolation"),
    ("tx_read_only", "transaction_read_only"),
];

/// Lowercase, `-` as `_`: how names compare.
pub fn normalise_name(name: &str) -> String {
    name.trim().chars().map(|c| if c == '-' { '_' } else { c.to_ascii_lowercase() }).collect()
}

fn index() -> &'static HashMap<&'static str, &'static VarDef> {
    static INDEX: OnceLock<HashMap<&'static str, &'static VarDef>> = OnceLock::new();
    INDEX.get_or_init(|| VARS.iter().map(|d| (d.name, d)).collect())
}

/// The definition of `name` (case-insensitive, `-` equal to `_`, aliases
/// followed).
/// Variables of both scopes whose session value may only be read (as
/// MariaDB's: SET SESSION is 1621).
const SESSION_READ_ONLY: &[&str] = &["max_user_connections"];

pub fn lookup(name: &str) -> Option<&'static VarDef> {
    let key = normalise_name(name);
    let key = ALIASES.iter().find(|(alias, _)| *alias == key).map_or(key.as_str(), |(_, target)| target);
    index().get(key).copied()
}

// ---------------------------------------------------------------------------
// Global values.

type Hook = Arc<dyn Fn(&VarValue) + Send + Sync>;
/// A global value computed when read (`gtid_executed` from the binary
/// log), never stored.
pub type Computed = Arc<dyn Fn() -> VarValue + Send + Sync>;

/// The server's global variables. Shared as `Arc<SysVars>`.
pub struct SysVars {
    /// Global/Both variables' values (invariant 2).
    globals: RwLock<HashMap<&'static str, VarValue>>,
    /// Variables given a value at startup or by `SET GLOBAL`.
    explicit: RwLock<HashSet<&'static str>>,
    /// Called after a successful `set_global`, in registration order.
    hooks: RwLock<HashMap<&'static str, Vec<Hook>>>,
    /// Serialises `set_global` so that hooks run in store order.
    set_lock: Mutex<()>,
    /// Global-only variables whose value is computed when read.
    computed: RwLock<HashMap<&'static str, Computed>>,
    /// The most `SET GLOBAL thread_pool_size` may ask: MariaDB's
    /// `threadpool_max_size`, the larger of 128 and the startup value
    /// (set by the server when it starts the pool).
    pub thread_pool_size_cap: std::sync::atomic::AtomicU64,
}

impl Default for SysVars {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for SysVars {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SysVars").field("globals", &*self.globals.read()).finish_non_exhaustive()
    }
}

impl SysVars {
    /// Every Global/Both variable at its default.
    pub fn new() -> Self {
        let mut globals: HashMap<&'static str, VarValue> =
            VARS.iter().filter(|d| d.scope != Scope::Session).map(|d| (d.name, d.default_value())).collect();
        if let Some(host) = host_name() {
            globals.insert("hostname", VarValue::Str(host));
        }
        Self {
            globals: RwLock::new(globals),
            explicit: RwLock::new(HashSet::new()),
            hooks: RwLock::new(HashMap::new()),
            set_lock: Mutex::new(()),
            computed: RwLock::new(HashMap::new()),
            thread_pool_size_cap: std::sync::atomic::AtomicU64::new(128),
        }
    }

    /// See the free function [`lookup`].
    pub fn lookup(name: &str) -> Option<&'static VarDef> {
        lookup(name)
    }

    /// The global value (`@@GLOBAL.name`); `None` for unknown and
    /// session-only variables.
    pub fn global(&self, name: &str) -> Option<VarValue> {
        let def = lookup(name)?;
        if let Some(f) = self.computed.read().get(def.name) {
            return Some(f());
        }
        self.globals.read().get(def.name).cloned()
    }

    /// Makes the Global variable `name` read its value from `f` (its
    /// stored value is no longer shown).
    pub fn compute(&self, name: &str, f: Computed) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        if def.scope != Scope::Global {
            return Err(VarError::read_only(def.name));
        }
        self.computed.write().insert(def.name, f);
        Ok(())
    }

    fn patch_computed(&self, rows: &mut [(&'static str, String)]) {
        let computed = self.computed.read();
        if computed.is_empty() {
            return;
        }
        for (n, v) in rows.iter_mut() {
            if let Some(f) = computed.get(n) {
                *v = f().display();
            }
        }
    }

    /// Whether the variable was given a value at startup or by `SET
    /// GLOBAL` (rather than holding its default).
    pub fn is_set(&self, name: &str) -> bool {
        lookup(name).is_some_and(|d| self.explicit.read().contains(d.name))
    }

    /// `SET GLOBAL name = value`: validates, stores, then runs the hooks.
    pub fn set_global(&self, name: &str, value: &VarValue) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        if def.scope == Scope::Session {
            return Err(VarError::session_only(def.name));
        }
        if !def.dynamic {
            return Err(VarError::read_only(def.name));
        }
        let value = def.check(&relative(def, self.global(def.name).as_ref(), value)?)?;
        let _serial = self.set_lock.lock();
        self.store(def, value.clone());
        let mut changed = vec![(def.name, value.clone())];
        if let Some((other, v)) = crate::read_only::coupled(def.name, &value) {
            if let Some(odef) = lookup(other) {
                self.store(odef, v.clone());
                changed.push((odef.name, v));
            }
        }
        for (name, value) in changed {
            let hooks: Vec<Hook> = self.hooks.read().get(name).cloned().unwrap_or_default();
            for hook in hooks {
                hook(&value);
            }
        }
        Ok(())
    }

    /// `SET GLOBAL name = DEFAULT`: the compiled-in default, hooks run.
    pub fn set_global_default(&self, name: &str) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        self.set_global(def.name, &def.default_value())
    }

    /// A value from `my.cnf` or the command line: any Global/Both
    /// variable, dynamic or not; numbers may carry size suffixes. No hooks
    /// run (startup precedes them).
    pub fn set_startup(&self, name: &str, raw: &str) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        if def.scope == Scope::Session {
            return Err(VarError::session_only(def.name));
        }
        let value = def.parse_startup(raw)?;
        if let Some((other, v)) = crate::read_only::coupled(def.name, &value) {
            if let Some(odef) = lookup(other) {
                self.store(odef, v);
            }
        }
        self.store(def, value);
        Ok(())
    }

    /// A startup value derived from other variables (MySQL's autosizing:
    /// `back_log` from `max_connections`): becomes the global value but is
    /// not marked as set, so [`SysVars::is_set`] still tells a configured
    /// value from a derived one. No hooks run.
    pub fn autosize(&self, name: &str, value: &VarValue) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        if def.scope == Scope::Session {
            return Err(VarError::session_only(def.name));
        }
        let value = def.check(value)?;
        self.globals.write().insert(def.name, value);
        Ok(())
    }

    fn store(&self, def: &'static VarDef, value: VarValue) {
        self.globals.write().insert(def.name, value);
        self.explicit.write().insert(def.name);
    }

    /// Registers `f` to run after every successful `set_global` of `name`
    /// (the integrator pushes `innodb_lock_wait_timeout` and the like into
    /// the engine). REQUIRES: `f` does not call `set_global`.
    pub fn on_change(&self, name: &str, f: Box<dyn Fn(&VarValue) + Send + Sync>) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        if def.scope == Scope::Session || !def.dynamic {
            // Such a hook could never run: a bug in the caller.
            return Err(VarError::read_only(def.name));
        }
        self.hooks.write().entry(def.name).or_default().push(Arc::from(f));
        Ok(())
    }

    /// `SHOW GLOBAL VARIABLES`: every global value by name.
    pub fn all(&self) -> Vec<(&'static str, String)> {
        let globals = self.globals.read();
        let mut rows: Vec<(&'static str, String)> = globals.iter().map(|(n, v)| (*n, v.display())).collect();
        drop(globals);
        rows.sort_unstable_by_key(|(n, _)| *n);
        self.patch_computed(&mut rows);
        rows
    }

    /// `SHOW [SESSION] VARIABLES`: the session's value where it has one,
    /// else the global one.
    pub fn all_session(&self, session: &SessionVars) -> Vec<(&'static str, String)> {
        let globals = self.globals.read();
        let mut rows: Vec<(&'static str, String)> = VARS
            .iter()
            .filter_map(|d| session.values.get(d.name).or_else(|| globals.get(d.name)).map(|v| (d.name, v.display())))
            .collect();
        drop(globals);
        rows.sort_unstable_by_key(|(n, _)| *n);
        self.patch_computed(&mut rows);
        rows
    }

    /// A new session's variables: Both-scope ones from the current global
    /// values, session-only ones from their defaults (invariant 2).
    pub fn session_defaults(&self) -> SessionVars {
        let globals = self.globals.read();
        let values = VARS
            .iter()
            .filter_map(|d| match d.scope {
                Scope::Global => None,
                Scope::Both => Some((d.name, globals.get(d.name).cloned().unwrap_or_else(|| d.default_value()))),
                Scope::Session => Some((d.name, d.default_value())),
            })
            .collect();
        SessionVars::new(values)
    }

    /// `@@name` in a session: the session value if the variable has one,
    /// else the global value.
    pub fn value(&self, session: &SessionVars, name: &str) -> Result<VarValue, VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        session.values.get(def.name).cloned().or_else(|| self.global(def.name)).ok_or_else(|| VarError::unknown(name))
    }
}

/// The machine's host name, for `hostname`.
fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_string())
}

// ---------------------------------------------------------------------------
// Session values.

/// One session's variables: Session and Both scope, complete from
/// creation (invariant 2). Owned by the session; not shared.
#[derive(Clone, Debug)]
pub struct SessionVars {
    values: HashMap<&'static str, VarValue>,
    /// The values every statement reads, decoded once per change instead
    /// of looked up by name per statement (invariant: equal to what
    /// `values` says; refreshed by every write).
    hot: Hot,
}

/// See [`SessionVars::hot`].
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    autocommit: bool,
    isolation: quire_engine::txn::Isolation,
    mode: crate::diag::Mode,
    transaction_read_only: bool,
    lock_wait_timeout_secs: u64,
    max_error_count: u64,
    sql_notes: bool,
    /// `insert_id` (read by every INSERT that may generate a value).
    insert_id: u64,
    max_execution_time_ms: u64,
    wait_timeout_secs: u64,
    net_write_timeout_secs: u64,
    foreign_key_checks: bool,
    /// `time_zone` as seconds east of UTC, or `timezone::NAMED`.
    time_zone_offset: i32,
    /// `timestamp` in microseconds since the epoch, once set (0: the
    /// clock's time).
    fixed_time_us: Option<i64>,
    /// `sql_select_limit` (`u64::MAX`: none).
    select_limit: u64,
    /// `sql_safe_updates`.
    safe_updates: bool,
    /// `optimizer_switch`'s flags that choose plans.
    switch: crate::optimizer_switch::Switch,
    /// `long_query_time` in seconds (read after every command).
    long_query_time: f64,
    /// `thread_pool_priority`, one of [`THREAD_POOL_PRIORITIES`] (read
    /// each time the connection is queued).
    thread_pool_priority: &'static str,
}

impl SessionVars {
    fn new(values: HashMap<&'static str, VarValue>) -> Self {
        let mut v = SessionVars { values, hot: Hot::default() };
        v.refresh_hot();
        v
    }

    fn refresh_hot(&mut self) {
        let b = |n: &str, d: bool| self.values.get(n).and_then(VarValue::as_bool).unwrap_or(d);
        let u = |n: &str, d: u64| self.values.get(n).and_then(VarValue::as_u64).unwrap_or(d);
        self.hot = Hot {
            autocommit: b("autocommit", true),
            isolation: crate::set_transaction::isolation_named(self.transaction_isolation()),
            mode: crate::diag::Mode::from_sql_mode(self.sql_mode()),
            transaction_read_only: b("transaction_read_only", false),
            lock_wait_timeout_secs: u("innodb_lock_wait_timeout", 50),
            max_error_count: u("max_error_count", 64),
            sql_notes: b("sql_notes", true),
            insert_id: u("insert_id", 0),
            max_execution_time_ms: u("max_execution_time", 0),
            wait_timeout_secs: u("wait_timeout", 28_800),
            net_write_timeout_secs: u("net_write_timeout", 60),
            foreign_key_checks: b("foreign_key_checks", true),
            time_zone_offset: self
                .values
                .get("time_zone")
                .and_then(VarValue::as_str)
                .map_or(0, crate::timezone::hot_offset),
            fixed_time_us: self
                .values
                .get("timestamp")
                .and_then(VarValue::as_f64)
                .filter(|t| *t > 0.0)
                .map(|t| (t * 1e6).round() as i64),
            select_limit: u("sql_select_limit", u64::MAX),
            safe_updates: b("sql_safe_updates", false),
            long_query_time: self.values.get("long_query_time").and_then(VarValue::as_f64).unwrap_or(10.0),
            thread_pool_priority: self
                .values
                .get("thread_pool_priority")
                .and_then(VarValue::as_str)
                .and_then(|v| THREAD_POOL_PRIORITIES.iter().copied().find(|p| p.eq_ignore_ascii_case(v)))
                .unwrap_or("auto"),
            switch: self
                .values
                .get("optimizer_switch")
                .and_then(VarValue::as_str)
                .map_or(crate::optimizer_switch::Switch::DEFAULT, crate::optimizer_switch::Switch::of),
        };
    }

    /// `optimizer_switch`'s flags that choose plans.
    pub fn switch(&self) -> crate::optimizer_switch::Switch {
        self.hot.switch
    }

    /// The session value; `None` for unknown and global-only variables
    /// (use [`SysVars::value`] for `@@name`).
    pub fn get(&self, name: &str) -> Option<VarValue> {
        self.values.get(lookup(name)?.name).cloned()
    }

    /// `SET [SESSION] name = value`.
    pub fn set(&mut self, def: &'static VarDef, value: &VarValue) -> Result<(), VarError> {
        // Read-only first, as MySQL and MariaDB check it (1238 before 1229).
        if !def.dynamic {
            return Err(VarError::read_only(def.name));
        }
        if def.scope == Scope::Global {
            return Err(VarError::global_only(def.name));
        }
        if SESSION_READ_ONLY.contains(&def.name) {
            return Err(VarError::session_read_only(def.name));
        }
        let value = def.check(&relative(def, self.values.get(def.name), value)?)?;
        self.values.insert(def.name, value);
        self.refresh_hot();
        Ok(())
    }

    /// [`SessionVars::set`] by name.
    pub fn set_by_name(&mut self, name: &str, value: &VarValue) -> Result<(), VarError> {
        let def = lookup(name).ok_or_else(|| VarError::unknown(name))?;
        self.set(def, value)
    }

    /// The server's own updates to variables users may only read
    /// (`warning_count`, `error_count`): validated, but not refused for
    /// being read-only.
    pub fn set_internal(&mut self, def: &'static VarDef, value: &VarValue) -> Result<(), VarError> {
        if def.scope == Scope::Global {
            return Err(VarError::global_only(def.name));
        }
        let value = def.check(value)?;
        self.values.insert(def.name, value);
        self.refresh_hot();
        Ok(())
    }

    /// `autocommit`.
    pub fn autocommit(&self) -> bool {
        self.hot.autocommit
    }

    /// `transaction_isolation` as the engine's level.
    pub fn isolation(&self) -> quire_engine::txn::Isolation {
        self.hot.isolation
    }

    /// `sql_mode`'s flags the statements consult.
    pub fn mode(&self) -> crate::diag::Mode {
        self.hot.mode
    }

    /// `sql_mode`, comma-separated, in canonical order.
    pub fn sql_mode(&self) -> &str {
        self.values.get("sql_mode").and_then(VarValue::as_str).unwrap_or("")
    }

    /// Whether `mode` (e.g. `STRICT_TRANS_TABLES`) is in `sql_mode`.
    pub fn sql_mode_has(&self, mode: &str) -> bool {
        self.sql_mode().split(',').any(|m| m.eq_ignore_ascii_case(mode))
    }

    /// `transaction_isolation` (`REPEATABLE-READ` ...).
    pub fn transaction_isolation(&self) -> &str {
        self.values.get("transaction_isolation").and_then(VarValue::as_str).unwrap_or("REPEATABLE-READ")
    }

    /// `transaction_read_only`: the session's transactions are READ ONLY.
    pub fn transaction_read_only(&self) -> bool {
        self.hot.transaction_read_only
    }

    /// `foreign_key_checks`.
    pub fn foreign_key_checks(&self) -> bool {
        self.hot.foreign_key_checks
    }

    /// `innodb_lock_wait_timeout` in seconds.
    pub fn innodb_lock_wait_timeout_secs(&self) -> u64 {
        self.hot.lock_wait_timeout_secs
    }

    /// `max_error_count`: conditions the diagnostics area keeps.
    pub fn max_error_count(&self) -> u64 {
        self.hot.max_error_count
    }

    /// `sql_notes`: whether notes are recorded.
    pub fn sql_notes(&self) -> bool {
        self.hot.sql_notes
    }

    /// `max_execution_time` in milliseconds (0: no limit).
    pub fn max_execution_time_ms(&self) -> u64 {
        self.hot.max_execution_time_ms
    }

    /// `long_query_time`, seconds (the slow query log's threshold).
    pub fn long_query_time(&self) -> f64 {
        self.hot.long_query_time
    }

    /// `time_zone` as seconds east of UTC (`SYSTEM` is UTC), or
    /// `timezone::NAMED` for a named zone (see [`crate::timezone`]).
    pub fn time_zone_offset(&self) -> i32 {
        self.hot.time_zone_offset
    }

    /// `timestamp` (SET TIMESTAMP) in microseconds since the epoch, once
    /// set; `None` while it follows the clock.
    pub fn fixed_time_us(&self) -> Option<i64> {
        self.hot.fixed_time_us
    }

    /// `sql_select_limit`: the most rows a top-level SELECT without a
    /// LIMIT of its own returns (`u64::MAX`: no limit).
    pub fn select_limit(&self) -> u64 {
        self.hot.select_limit
    }

    /// `sql_auto_is_null` (read only while a generated value waits for
    /// it: see `auto_is_null`).
    pub fn sql_auto_is_null(&self) -> bool {
        self.values.get("sql_auto_is_null").and_then(VarValue::as_bool).unwrap_or(false)
    }

    /// `insert_id` (0: none set).
    pub fn insert_id(&self) -> u64 {
        self.hot.insert_id
    }

    /// `sql_safe_updates`.
    pub fn safe_updates(&self) -> bool {
        self.hot.safe_updates
    }

    /// `thread_pool_priority`: `high`, `low` or `auto`.
    pub fn thread_pool_priority(&self) -> &'static str {
        self.hot.thread_pool_priority
    }

    /// `wait_timeout` in seconds.
    pub fn wait_timeout_secs(&self) -> u64 {
        self.hot.wait_timeout_secs
    }

    /// `net_write_timeout` in seconds: how long a write to the client may
    /// block (a client that stops reading a result is cut off then).
    pub fn net_write_timeout_secs(&self) -> u64 {
        self.hot.net_write_timeout_secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    fn s(v: &str) -> VarValue {
        VarValue::Str(v.to_string())
    }

    fn code(r: Result<(), VarError>) -> u16 {
        r.err().map_or(0, |e| e.code)
    }

    #[test]
    fn table_names_are_canonical_unique_and_aliases_resolve() {
        let mut seen = HashSet::new();
        for d in VARS {
            assert_eq!(normalise_name(d.name), d.name, "{} is not canonical", d.name);
            assert!(seen.insert(d.name), "{} defined twice", d.name);
        }
        assert!(VARS.windows(2).all(|w| w[0].name < w[1].name), "VARS is not in name order");
        for (alias, target) in ALIASES {
            assert!(index().contains_key(target), "alias {alias} names unknown {target}");
            assert!(!index().contains_key(alias), "alias {alias} shadows a variable");
        }
    }

    #[test]
    fn every_default_parses_as_its_kind() {
        for d in VARS {
            assert!(d.parse_startup(d.default).is_ok(), "default '{}' of {} does not parse", d.default, d.name);
        }
    }

    #[test]
    fn lookup_ignores_case_and_dashes_and_follows_aliases() {
        assert_eq!(lookup("INNODB-Buffer-Pool-Size").map(|d| d.name), Some("innodb_buffer_pool_size"));
        assert_eq!(lookup("tx_isolation").map(|d| d.name), Some("transaction_isolation"));
        assert_eq!(lookup("tx-read-only").map(|d| d.name), Some("transaction_read_only"));
        assert!(lookup("no_such_variable").is_none());
        let vars = SysVars::new();
        vars.set_global("TX_ISOLATION", &s("read-committed")).unwrap();
        assert_eq!(vars.global("transaction_isolation"), Some(s("READ-COMMITTED")));
    }

    #[test]
    fn set_global_refusals_carry_mysql_codes_and_states() {
        let vars = SysVars::new();
        let e = vars.set_global("no_such_var", &VarValue::Int(1)).unwrap_err();
        assert_eq!((e.code, e.state, e.message.as_str()), (1193, "HY000", "Unknown system variable 'no_such_var'"));
        let e = vars.set_global("innodb_buffer_pool_size", &VarValue::Int(1 << 30)).unwrap_err();
        assert_eq!((e.code, e.state), (1238, "HY000"));
        assert_eq!(e.message, "Variable 'innodb_buffer_pool_size' is a read only variable");
        let e = vars.set_global("last_insert_id", &VarValue::Int(5)).unwrap_err();
        assert_eq!((e.code, e.state), (1228, "HY000"));
        let e = vars.set_global("max_connections", &s("lots")).unwrap_err();
        assert_eq!((e.code, e.state), (1232, "42000"));
        let e = vars.set_global("transaction_isolation", &s("SNAPSHOT")).unwrap_err();
        assert_eq!((e.code, e.state), (1231, "42000"));
        assert_eq!(e.message, "Variable 'transaction_isolation' can't be set to the value of 'SNAPSHOT'");
        assert_eq!(code(vars.set_global("innodb_flush_log_at_trx_commit", &VarValue::Int(3))), 1231);
        assert_eq!(code(vars.set_global("max_connections", &VarValue::Int(0))), 1231);
        assert_eq!(code(vars.set_global("autocommit", &VarValue::Int(2))), 1231);
        assert_eq!(code(vars.set_global("autocommit", &VarValue::Float(1.0))), 1232);
        assert_eq!(code(vars.set_global("sql_mode", &s("NO_AUTO_CREATE_USER"))), 1231);
        assert_eq!(code(vars.set_global("init_connect", &VarValue::Int(5))), 1232);
        assert_eq!(code(vars.set_global("long_query_time", &s("soon"))), 1231);
        vars.set_global("long_query_time", &s("0.5")).unwrap();
        assert_eq!(vars.global("long_query_time"), Some(VarValue::Float(0.5)));
        // A refused value leaves the old one.
        assert_eq!(vars.global("max_connections"), Some(VarValue::UInt(151)));
    }

    #[test]
    fn signed_kinds_check_their_range() {
        let offset = VarDef {
            name: "x",
            scope: B,
            dynamic: DYN,
            kind: VarKind::Int { min: -5, max: 5 },
            default: "0",
            effect: USED,
        };
        assert_eq!(offset.parse_startup("-5"), Ok(VarValue::Int(-5)));
        assert_eq!(offset.check(&VarValue::UInt(5)), Ok(VarValue::Int(5)));
        assert_eq!(offset.check(&VarValue::Int(-6)).map_err(|e| e.code), Err(1231));
        assert_eq!(offset.parse_startup("1K").map_err(|e| e.code), Err(1231));
        assert_eq!(offset.check(&s("1")).map_err(|e| e.code), Err(1232));
    }

    #[test]
    fn bools_and_enums_accept_any_case_and_store_canonically() {
        let vars = SysVars::new();
        for (text, want) in [("on", true), ("OFF", false), ("True", true), ("false", false), ("1", true), ("0", false)]
        {
            vars.set_global("innodb_deadlock_detect", &s(text)).unwrap();
            assert_eq!(vars.global("innodb_deadlock_detect"), Some(VarValue::Bool(want)), "{text}");
        }
        vars.set_global("innodb_deadlock_detect", &VarValue::Int(1)).unwrap();
        assert_eq!(vars.global("innodb_deadlock_detect"), Some(VarValue::Bool(true)));
        vars.set_global("transaction_isolation", &s("serializable")).unwrap();
        assert_eq!(vars.global("transaction_isolation"), Some(s("SERIALIZABLE")));
        vars.set_global("transaction_isolation", &VarValue::Int(1)).unwrap();
        assert_eq!(vars.global("transaction_isolation"), Some(s("READ-COMMITTED")));
    }

    #[test]
    fn sql_mode_is_a_set_in_canonical_order_with_combinations_expanded() {
        let vars = SysVars::new();
        vars.set_global("sql_mode", &s("no_engine_substitution, strict_trans_tables,STRICT_TRANS_TABLES")).unwrap();
        assert_eq!(vars.global("sql_mode"), Some(s("STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION")));
        vars.set_global("sql_mode", &s("")).unwrap();
        assert_eq!(vars.global("sql_mode"), Some(s("")));
        vars.set_global("sql_mode", &s("traditional")).unwrap();
        assert_eq!(
            vars.global("sql_mode"),
            Some(s("STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
                    ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION"))
        );
    }

    #[test]
    fn startup_values_take_size_suffixes_and_may_set_read_only_variables() {
        let vars = SysVars::new();
        vars.set_startup("innodb_buffer_pool_size", "1G").unwrap();
        assert_eq!(vars.global("innodb_buffer_pool_size"), Some(VarValue::UInt(1 << 30)));
        vars.set_startup("innodb-log-file-size", "1024M").unwrap();
        assert_eq!(vars.global("innodb_log_file_size"), Some(VarValue::UInt(1 << 30)));
        vars.set_startup("innodb_page_size", "16k").unwrap();
        assert_eq!(vars.global("innodb_page_size"), Some(VarValue::UInt(16384)));
        vars.set_startup("innodb_doublewrite", "1").unwrap();
        assert_eq!(vars.global("innodb_doublewrite"), Some(s("ON")));
        vars.set_startup("innodb_max_dirty_pages_pct", "90").unwrap();
        assert_eq!(vars.global("innodb_max_dirty_pages_pct"), Some(VarValue::Float(90.0)));
        assert!(vars.is_set("innodb_page_size"));
        assert!(!vars.is_set("innodb_purge_threads"));

        assert_eq!(code(vars.set_startup("innodb_buffer_pool_size", "128000M / 64000M")), 1231);
        assert_eq!(code(vars.set_startup("innodb_buffer_pool_size", "-1G")), 1231);
        assert_eq!(code(vars.set_startup("innodb_buffer_pool_size", "1K")), 1231);
        assert_eq!(code(vars.set_startup("port", "70000")), 1231);
        assert_eq!(code(vars.set_startup("nonsense", "1")), 1193);
        assert_eq!(code(vars.set_startup("last_insert_id", "1")), 1228);
        // Suffixes are startup syntax, not SQL.
        assert_eq!(code(vars.set_global("max_connections", &s("1K"))), 1232);
    }

    #[test]
    fn hooks_run_after_successful_set_global_only() {
        let vars = SysVars::new();
        let seen = Arc::new(AtomicU64::new(0));
        let calls = Arc::new(AtomicU64::new(0));
        let (seen2, calls2) = (seen.clone(), calls.clone());
        vars.on_change(
            "innodb_lock_wait_timeout",
            Box::new(move |v| {
                seen2.store(v.as_u64().unwrap_or(0), Ordering::SeqCst);
                calls2.fetch_add(1, Ordering::SeqCst);
            }),
        )
        .unwrap();
        vars.set_global("Innodb_Lock_Wait_Timeout", &VarValue::Int(7)).unwrap();
        assert_eq!((seen.load(Ordering::SeqCst), calls.load(Ordering::SeqCst)), (7, 1));
        assert!(vars.set_global("innodb_lock_wait_timeout", &VarValue::Int(0)).is_err());
        vars.set_startup("innodb_lock_wait_timeout", "9").unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        vars.set_global_default("innodb_lock_wait_timeout").unwrap();
        assert_eq!((seen.load(Ordering::SeqCst), calls.load(Ordering::SeqCst)), (50, 2));
        assert_eq!(code(vars.on_change("no_such_var", Box::new(|_| {}))), 1193);
        assert_eq!(code(vars.on_change("innodb_page_size", Box::new(|_| {}))), 1238);
    }

    #[test]
    fn show_variables_prints_like_mysql_in_name_order() {
        let vars = SysVars::new();
        vars.set_startup("innodb_buffer_pool_size", "256M").unwrap();
        let rows = vars.all();
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
        let get = |n: &str| rows.iter().find(|(k, _)| *k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("autocommit"), Some("ON"));
        assert_eq!(get("performance_schema"), Some("ON"));
        assert_eq!(get("innodb_buffer_pool_size"), Some("268435456"));
        assert_eq!(get("transaction_isolation"), Some("REPEATABLE-READ"));
        assert_eq!(get("innodb_max_dirty_pages_pct"), Some("90.000000"));
        assert_eq!(get("version_comment"), Some("quire"));
        assert_eq!(get("sql_mode"), Some("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"));
        assert_eq!(get("last_insert_id"), None, "session-only variables have no global value");
        assert_eq!(get("tx_isolation"), None, "aliases are not shown");
    }

    #[test]
    fn sessions_copy_globals_and_refuse_global_only_variables() {
        let vars = SysVars::new();
        vars.set_global("sql_mode", &s("ANSI_QUOTES")).unwrap();
        let mut session = vars.session_defaults();
        assert_eq!(session.sql_mode(), "ANSI_QUOTES");
        assert!(session.autocommit());
        assert_eq!(session.get("last_insert_id"), Some(VarValue::UInt(0)));
        assert_eq!(session.get("max_connections"), None);

        session.set_by_name("autocommit", &s("off")).unwrap();
        session.set_by_name("tx_isolation", &s("read-committed")).unwrap();
        session.set_by_name("innodb_lock_wait_timeout", &VarValue::Int(3)).unwrap();
        assert!(!session.autocommit());
        assert_eq!(session.transaction_isolation(), "READ-COMMITTED");
        assert_eq!(session.innodb_lock_wait_timeout_secs(), 3);
        // The global value is untouched; a new session still copies it.
        assert_eq!(vars.global("autocommit"), Some(VarValue::Bool(true)));

        let e = session.set_by_name("max_connections", &VarValue::Int(10)).unwrap_err();
        assert_eq!((e.code, e.state), (1229, "HY000"));
        assert_eq!(e.message, "Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL");
        assert_eq!(code(session.set_by_name("warning_count", &VarValue::Int(1))), 1238);
        assert_eq!(code(session.set_by_name("no_such_var", &VarValue::Int(1))), 1193);
        assert_eq!(code(session.set_by_name("auto_increment_increment", &VarValue::Int(0))), 1231);
        let warnings = lookup("warning_count").unwrap();
        session.set_internal(warnings, &VarValue::Int(2)).unwrap();

        assert_eq!(vars.value(&session, "warning_count"), Ok(VarValue::UInt(2)));
        assert_eq!(vars.value(&session, "max_connections"), Ok(VarValue::UInt(151)));
        let shown = vars.all_session(&session);
        assert!(shown.contains(&("autocommit", "OFF".to_string())));
        assert!(shown.contains(&("max_connections", "151".to_string())));
    }

    /// A value of `d`'s kind other than its default.
    fn other_than_default(d: &VarDef) -> VarValue {
        let default = d.default_value();
        match d.kind {
            VarKind::Bool => VarValue::Bool(default != VarValue::Bool(true)),
            VarKind::UInt { min, max } => VarValue::UInt(if default == VarValue::UInt(min) { max } else { min }),
            VarKind::Int { min, max } => VarValue::Int(if default == VarValue::Int(min) { max } else { min }),
            VarKind::Float => VarValue::Float(default.as_f64().unwrap_or(0.0) + 1.0),
            VarKind::Enum(names) | VarKind::Set(names) => {
                s(names.iter().find(|n| Some(**n) != default.as_str()).copied().unwrap_or(""))
            }
            VarKind::Str if d.name.starts_with("lc_") => s("de_DE"),
            VarKind::Str | VarKind::TimeZone | VarKind::OptimizerSwitch => s("/elsewhere"),
        }
    }

    #[test]
    fn every_variable_is_classified_and_the_docs_list_those_that_do_not_act() {
        let docs = include_str!("../../../docs/SQL.md");
        let section = docs.split("## System variables").nth(1).expect("docs/SQL.md has a System variables section");
        for d in VARS {
            match d.effect {
                Effect::Used => {}
                Effect::NoEffectByDesign(why) => {
                    assert!(why.len() > 10, "{} gives no reason", d.name);
                    assert!(section.contains(&format!("`{}`", d.name)), "docs/SQL.md does not list {}", d.name);
                }
                Effect::RefuseNonDefault => {
                    assert!(section.contains(&format!("`{}`", d.name)), "docs/SQL.md does not list {}", d.name);
                }
            }
        }
    }

    #[test]
    fn refused_variables_accept_their_default_and_refuse_any_other_value_at_set_and_startup() {
        let vars = SysVars::new();
        let mut session = vars.session_defaults();
        for d in VARS.iter().filter(|d| d.effect == Effect::RefuseNonDefault) {
            let other = other_than_default(d);
            assert_eq!(d.check(&d.default_value()), Ok(d.default_value()), "{}", d.name);
            assert_eq!(d.check(&other).map_err(|e| e.code), Err(1235), "{} = {other}", d.name);
            if d.scope != Scope::Session {
                assert_eq!(code(vars.set_startup(d.name, &other.display())), 1235, "{} at startup", d.name);
                assert!(vars.set_startup(d.name, d.default).is_ok(), "{} default at startup", d.name);
            }
            if d.dynamic && d.scope != Scope::Global {
                assert_eq!(code(session.set(d, &other)), 1235, "SET {}", d.name);
            }
            if d.dynamic && d.scope != Scope::Session {
                assert_eq!(code(vars.set_global(d.name, &other)), 1235, "SET GLOBAL {}", d.name);
            }
        }
        let e = session.set_by_name("explicit_defaults_for_timestamp", &VarValue::Int(0)).unwrap_err();
        assert_eq!(e.message, "This version of quire doesn't yet support 'SET explicit_defaults_for_timestamp = OFF'");
        // Text compares without case; `mysqlbinlog` writes the locale as its id.
        session.set_by_name("default_storage_engine", &s("innodb")).unwrap();
        session.set_by_name("lc_time_names", &VarValue::Int(0)).unwrap();
        assert_eq!(session.get("lc_time_names"), Some(s("en_US")));
        assert_eq!(code(session.set_by_name("lc_time_names", &VarValue::Int(4))), 1235);
        assert_eq!(code(session.set_by_name("lc_time_names", &s("xx_YY"))), 1649);
    }

    #[test]
    fn engine_variables_enumerate_what_the_engine_parses() {
        use quire_engine::config::FlushMethod;
        use quire_engine::dblwr::DoublewriteMode;
        for m in FLUSH_METHODS {
            assert!(FlushMethod::parse(m).is_ok(), "{m}");
        }
        for m in DOUBLEWRITE_MODES {
            assert!(DoublewriteMode::parse(m).is_ok(), "{m}");
        }
    }
}
