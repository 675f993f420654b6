//! The diagnostics area: the notes, warnings and errors a session's last
//! statement raised, as `SHOW WARNINGS`, `SHOW ERRORS`, `@@warning_count`,
//! `@@error_count` and the warning count of OK / EOF packets report them.
//!
//! MySQL's rules, which MariaDB follows and quire keeps:
//! 1. A statement that uses a table (DML, DDL, most SHOWs) clears the area
//!    when it starts ([`Diagnostics::begin_statement`] with `clears`).
//! 2. Any other statement (`SELECT 1`, `SET`, `USE`, `BEGIN` ...) leaves it
//!    alone unless it raises a condition itself: its first condition
//!    replaces the older ones (the lazy clear in [`Diagnostics::push`]).
//!    `SHOW WARNINGS` and `SELECT @@warning_count` are such statements, so
//!    they read what the statement before them left.
//! 3. A failing statement's error is the area's last condition, level Error.
//! 4. At most `max_error_count` conditions are kept; the counts go on
//!    (`@@warning_count` counts every condition, errors and notes included).
//! 5. Notes are dropped when `sql_notes` is off.
//!
//! The packet count is that of the running statement's own conditions
//! ([`Diagnostics::statement_count`]), so `SHOW WARNINGS` itself reports 0.
//!
//! Owned by one session; not shared.

use crate::error::SqlError;

/// A condition's level, as SHOW WARNINGS prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// One note, warning or error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub level: Level,
    pub code: u16,
    /// RETURNED_SQLSTATE (GET DIAGNOSTICS; handlers match it).
    pub state: &'static str,
    pub message: String,
}

impl Condition {
    /// A condition of the SQLSTATE MySQL gives `code` ([`sqlstate_of`]).
    pub fn new(level: Level, code: u16, message: impl Into<String>) -> Self {
        Self { level, code, state: sqlstate_of(code), message: message.into() }
    }

    /// A condition of its own SQLSTATE (SIGNAL, RESIGNAL).
    pub fn with_state(level: Level, code: u16, state: &'static str, message: impl Into<String>) -> Self {
        Self { level, code, state, message: message.into() }
    }

    /// The error a failed statement reports.
    pub fn of_error(e: &SqlError) -> Self {
        Self::with_state(Level::Error, e.code, e.state, e.message.clone())
    }

    /// The error this condition becomes when the statement may not go on
    /// with a warning (strict mode in INSERT / UPDATE), or that RESIGNAL
    /// raises.
    pub fn into_error(self) -> SqlError {
        SqlError::new(self.code, self.state, self.message)
    }
}

/// The SQLSTATE MySQL gives the conditions quire raises as warnings.
pub fn sqlstate_of(code: u16) -> &'static str {
    match code {
        1048 | 1062 => "23000",
        1050 => "42S01",
        1051 | 1146 => "42S02",
        1305 => "42000",
        1264 => "22003",
        1265 => "01000",
        1292 | 1366 => "22007",
        1365 => "22012",
        1406 => "22001",
        1329 => "02000",
        1261..=1263 => "01000",
        _ => "HY000",
    }
}

/// What `sql_mode` says about conditions, for the running statement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mode {
    /// STRICT_TRANS_TABLES or STRICT_ALL_TABLES (every quire table is
    /// transactional, so either is strict for all of them).
    pub strict: bool,
    /// ERROR_FOR_DIVISION_BY_ZERO: x/0 raises 1365 (else NULL silently).
    pub div_zero: bool,
    /// Strict mode in INSERT / UPDATE: a warning ends the statement as an
    /// error (MySQL's abort-on-warning); notes stay notes.
    pub abort_on_warning: bool,
    /// ONLY_FULL_GROUP_BY (`group_check`).
    pub only_full_group_by: bool,
}

impl Mode {
    pub fn from_sql_mode(sql_mode: &str) -> Self {
        let has = |m: &str| sql_mode.split(',').any(|x| x.eq_ignore_ascii_case(m));
        Mode {
            strict: has("STRICT_TRANS_TABLES") || has("STRICT_ALL_TABLES"),
            div_zero: has("ERROR_FOR_DIVISION_BY_ZERO"),
            abort_on_warning: false,
            only_full_group_by: has("ONLY_FULL_GROUP_BY"),
        }
    }
}

/// A session's diagnostics area.
#[derive(Debug)]
pub struct Diagnostics {
    /// The kept conditions, oldest first; at most `max_kept`.
    kept: Vec<Condition>,
    /// Conditions raised since the area was last cleared (`@@warning_count`).
    total: u64,
    /// Of which errors (`@@error_count`).
    errors: u64,
    /// Conditions the running statement raised (the packet's count).
    statement: u64,
    /// Statement that raised what the area holds; a condition from a later
    /// statement clears the area first (rule 2).
    owner: u64,
    /// The running statement's number.
    current: u64,
    /// `max_error_count`.
    max_kept: usize,
    /// `sql_notes`.
    notes: bool,
    /// Conditions recorded since the session began (never cleared), and
    /// the number of each kept one: what a stored program's statement
    /// raised is what came after the count it read before it.
    seq: u64,
    kept_seq: Vec<u64>,
    /// `seq` when the running statement began: its conditions are numbered
    /// above it.
    statement_from: u64,
    /// The latest condition may be the running statement's ending error
    /// recorded already ([`Self::push_error`] records it once); not after
    /// [`Self::push_row_error`].
    absorbs: bool,
}

/// Where the area stood, to go back to (a row change that is retried must
/// not report its conditions twice).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    kept: usize,
    total: u64,
    errors: u64,
    statement: u64,
}

impl Default for Diagnostics {
    fn default() -> Self {
        Self {
            kept: Vec::new(),
            total: 0,
            errors: 0,
            statement: 0,
            owner: 0,
            current: 0,
            max_kept: 64,
            notes: true,
            seq: 0,
            kept_seq: Vec::new(),
            statement_from: 0,
            absorbs: true,
        }
    }
}

impl Diagnostics {
    /// A statement starts; `clears` for statements that use tables (rule 1).
    pub fn begin_statement(&mut self, clears: bool, max_error_count: u64, sql_notes: bool) {
        self.current += 1;
        self.statement = 0;
        self.statement_from = self.seq;
        self.max_kept = usize::try_from(max_error_count).unwrap_or(usize::MAX);
        self.notes = sql_notes;
        if clears {
            self.clear();
        }
    }

    fn clear(&mut self) {
        self.kept.clear();
        self.kept_seq.clear();
        self.total = 0;
        self.errors = 0;
        self.owner = self.current;
    }

    /// Records a condition of the running statement.
    pub fn push(&mut self, c: Condition) {
        if c.level == Level::Note && !self.notes {
            return;
        }
        if self.owner != self.current {
            self.clear();
        }
        self.absorbs = true;
        self.total += 1;
        self.statement += 1;
        self.seq += 1;
        if c.level == Level::Error {
            self.errors += 1;
        }
        if self.kept.len() < self.max_kept {
            self.kept.push(c);
            self.kept_seq.push(self.seq);
        }
    }

    /// Conditions recorded so far in the session (see `seq`).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Records the error that ended the running statement (rule 3), once:
    /// an error a stored program's statement recorded, or RESIGNAL, is
    /// already the running statement's last condition when the CALL ends
    /// with it.
    pub fn push_error(&mut self, e: &SqlError) {
        let c = Condition::of_error(e);
        let mine = |n: u64| n > self.statement_from || self.owner == self.current;
        let latest = self.kept_seq.last().is_some_and(|n| *n == self.seq && mine(*n));
        if latest && self.absorbs && self.kept.last() == Some(&c) {
            return;
        }
        self.push(c);
    }

    /// Records an error a statement raised on one of its rows before it
    /// fails with it: the area then holds it twice, as MariaDB's does
    /// (LOAD DATA's short row, 1261).
    pub fn push_row_error(&mut self, e: &SqlError) {
        self.push(Condition::of_error(e));
        self.absorbs = false;
    }

    /// The running statement reads the area the statements before it left
    /// and adds its own conditions to it instead of replacing them (GET
    /// DIAGNOSTICS, as MySQL and MariaDB).
    pub fn adopt(&mut self) {
        self.owner = self.current;
    }

    /// The running statement reports every condition the area holds (a
    /// CALL: its body's statements raised them).
    pub fn report_all(&mut self) {
        self.statement = self.total;
    }

    /// The kept conditions, oldest first (GET DIAGNOSTICS' NUMBER counts them).
    pub fn kept(&self) -> &[Condition] {
        &self.kept
    }

    /// The kept conditions recorded after [`Self::seq`] read `since`, with
    /// their numbers.
    pub fn numbered_since(&self, since: u64) -> Vec<(u64, &Condition)> {
        self.kept_seq.iter().copied().zip(&self.kept).filter(|(n, _)| *n > since).collect()
    }

    /// The kept condition numbered `n`, if the area still holds it.
    pub fn numbered_mut(&mut self, n: u64) -> Option<&mut Condition> {
        let i = self.kept_seq.iter().position(|s| *s == n)?;
        self.kept.get_mut(i)
    }

    /// Forgets the kept conditions numbered `from + 1 ..= to` (those a
    /// stored program's handler took, when it ends).
    pub fn forget_range(&mut self, from: u64, to: u64) {
        let mut i = 0;
        while i < self.kept.len() {
            let n = self.kept_seq[i];
            if n > from && n <= to {
                let c = self.kept.remove(i);
                self.kept_seq.remove(i);
                self.total = self.total.saturating_sub(1);
                if n > self.statement_from {
                    self.statement = self.statement.saturating_sub(1);
                }
                if c.level == Level::Error {
                    self.errors = self.errors.saturating_sub(1);
                }
            } else {
                i += 1;
            }
        }
    }

    pub fn mark(&self) -> Mark {
        Mark { kept: self.kept.len(), total: self.total, errors: self.errors, statement: self.statement }
    }

    /// Forgets what was raised since `m` (taken in the same statement).
    pub fn restore(&mut self, m: Mark) {
        self.kept.truncate(m.kept);
        self.kept_seq.truncate(m.kept);
        self.total = m.total;
        self.errors = m.errors;
        self.statement = m.statement;
    }

    /// `@@warning_count`.
    pub fn warning_count(&self) -> u64 {
        self.total
    }

    /// `@@error_count`.
    pub fn error_count(&self) -> u64 {
        self.errors
    }

    /// The running (or last) statement's own conditions, for its OK / EOF
    /// packet and info text.
    pub fn statement_count(&self) -> u64 {
        self.statement
    }

    /// `SHOW WARNINGS` (`errors_only`: `SHOW ERRORS`) with `LIMIT offset, n`.
    pub fn list(&self, errors_only: bool, offset: usize, limit: Option<usize>) -> Vec<&Condition> {
        self.kept
            .iter()
            .filter(|c| !errors_only || c.level == Level::Error)
            .skip(offset)
            .take(limit.unwrap_or(usize::MAX))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warn(m: &str) -> Condition {
        Condition::new(Level::Warning, 1292, m)
    }

    #[test]
    fn statements_without_tables_keep_the_area_until_they_raise_something() {
        let mut d = Diagnostics::default();
        d.begin_statement(true, 64, true);
        d.push(warn("a"));
        d.push(warn("b"));
        d.begin_statement(false, 64, true); // SELECT 1, SHOW WARNINGS
        assert_eq!(d.warning_count(), 2);
        assert_eq!(d.statement_count(), 0);
        d.begin_statement(false, 64, true); // SELECT 'x' + 0
        d.push(warn("c"));
        assert_eq!(d.list(false, 0, None), vec![&warn("c")]);
        d.begin_statement(true, 64, true); // a statement using a table
        assert_eq!(d.warning_count(), 0);
    }

    #[test]
    fn max_error_count_bounds_what_is_kept_not_what_is_counted() {
        let mut d = Diagnostics::default();
        d.begin_statement(true, 1, true);
        d.push(warn("a"));
        d.push(warn("b"));
        d.push_error(&SqlError::new(1146, "42S02", "no table"));
        assert_eq!((d.warning_count(), d.error_count(), d.statement_count()), (3, 1, 3));
        assert_eq!(d.list(false, 0, None).len(), 1);
        assert!(d.list(true, 0, None).is_empty());
    }

    #[test]
    fn a_handlers_conditions_leave_the_area_and_an_error_is_recorded_once() {
        let mut d = Diagnostics::default();
        d.begin_statement(true, 64, true);
        d.push(warn("a"));
        let e = SqlError::new(1062, "23000", "dup");
        d.push_error(&e);
        let taken = d.seq();
        // The CALL ends with the error its statement recorded: once.
        d.push_error(&e);
        assert_eq!(d.kept().len(), 2);
        assert_eq!(d.kept()[1].state, "23000");
        d.begin_statement(false, 64, true); // SET in the handler
        d.adopt();
        d.push(Condition::with_state(Level::Warning, 1642, "01234", "w"));
        d.forget_range(0, taken);
        assert_eq!(d.kept(), &[Condition::with_state(Level::Warning, 1642, "01234", "w")][..]);
        assert_eq!((d.warning_count(), d.error_count(), d.statement_count()), (1, 0, 1));
        // A later statement failing alike is recorded again.
        d.begin_statement(false, 64, true);
        d.push_error(&e);
        d.begin_statement(false, 64, true);
        d.push_error(&e);
        assert_eq!(d.kept().len(), 1);
        assert_eq!(d.numbered_since(0).len(), 1);
    }

    #[test]
    fn notes_are_dropped_without_sql_notes_and_a_restore_forgets_a_retry() {
        let mut d = Diagnostics::default();
        d.begin_statement(true, 64, false);
        d.push(Condition::new(Level::Note, 1265, "n"));
        assert_eq!(d.warning_count(), 0);
        let m = d.mark();
        d.push(warn("retried"));
        d.restore(m);
        d.push(warn("once"));
        assert_eq!(d.list(false, 0, None), vec![&warn("once")]);
        assert_eq!(d.list(false, 1, Some(5)).len(), 0);
    }
}
