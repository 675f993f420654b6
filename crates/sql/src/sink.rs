//! Where results go: a [`RowSink`] is passed down into execution and gets
//! each row of a result set as the plan produces it. The server's sink
//! writes the row to the client's connection at once (buffered, written
//! out as the buffer fills), so a result set is never held whole in
//! memory unless the plan itself needs all its rows (sorting, grouping,
//! DISTINCT, set operations, derived tables). [`Collect`] keeps the rows
//! instead, for callers that want them (tests, [`crate::Session::query`]).
//!
//! A command's statements answer through [`Answers`]: each statement is
//! announced, writes its result set (if any) to the sink, and ends with
//! its [`Outcome`] or error.
//!
//! Contract:
//! 1. [`RowSink::columns`] is called at most once per statement, before
//!    its first row; [`RowSink::row`] gets as many values as there are
//!    columns.
//! 2. Rows handed to a sink are not taken back: an error after some rows
//!    ends the result set with that error (the server sends ERR in place
//!    of the EOF, as MySQL does).
//! 3. An `Err` from the sink (the client went away) fails the statement
//!    with that error; execution stops at once.
//! 4. A sink is never called with a page latch held: engine cursors copy
//!    a leaf's entries and release it before returning a row
//!    (`btree/cursor.rs`), point reads return owned rows, and locking
//!    scans return their rows after the scan. What execution holds across
//!    a call is the transaction's row locks, its read view, and the
//!    cursors' registrations with their tables (a DROP of the table waits
//!    for the statement, like MySQL's metadata lock).

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::plan::ColMeta;
use crate::session::Session;
use crate::Output;

/// Receives a result set as it is produced.
pub trait RowSink {
    /// The result set's columns (contract 1).
    fn columns(&mut self, columns: &[ColMeta]) -> Result<()>;
    /// One row.
    fn row(&mut self, row: Vec<Value>) -> Result<()>;
}

/// How a statement ended once its answer was given: an OK's contents, or
/// the number of rows of the result set it wrote to its sink.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Ok { affected: u64, last_insert_id: u64, info: String },
    Rows(u64),
}

/// The answers of one COM_QUERY, statement by statement as they run.
pub trait Answers {
    /// The sink of the running statement's rows.
    fn rows(&mut self) -> &mut dyn RowSink;
    /// A statement starts; `more`: another statement of the same text
    /// follows it (MySQL's SERVER_MORE_RESULTS_EXISTS).
    fn begin(&mut self, session: &Session, more: bool);
    /// The statement ended (its rows, if any, went to [`Answers::rows`]).
    /// An error is the command's last answer.
    fn end(&mut self, session: &Session, r: Result<Outcome>);
    /// LOAD DATA LOCAL (`load/`): asks the client for the contents of
    /// `name` (the protocol's LOCAL INFILE request). `None`: the client
    /// does not send files (it did not set CLIENT_LOCAL_FILES). The reader
    /// ends where the client's data ends; dropping it before then reads
    /// and discards the rest, so the connection stays in step.
    fn local_file(&mut self, _name: &str) -> Result<Option<Box<dyn std::io::Read + '_>>> {
        Ok(None)
    }
}

/// A sink that keeps the result set in memory.
#[derive(Debug, Default)]
pub struct Collect {
    pub columns: Vec<ColMeta>,
    pub rows: Vec<Vec<Value>>,
}

impl RowSink for Collect {
    fn columns(&mut self, columns: &[ColMeta]) -> Result<()> {
        self.columns = columns.to_vec();
        Ok(())
    }

    fn row(&mut self, row: Vec<Value>) -> Result<()> {
        self.rows.push(row);
        Ok(())
    }
}

impl Collect {
    /// The statement's answer with the rows kept.
    pub fn into_output(self, o: Outcome) -> Output {
        match o {
            Outcome::Ok { affected, last_insert_id, info } => Output::Ok { affected, last_insert_id, info },
            Outcome::Rows(_) => Output::Rows { columns: self.columns, rows: self.rows },
        }
    }
}

/// `sql_select_limit` over a top-level SELECT without a LIMIT of its own:
/// the first `limit` rows go on to the client; at the next one the
/// statement stops with [`Capped::STOP`], which the session turns back
/// into success ([`Capped::finish`]). Under SQL_CALC_FOUND_ROWS
/// (`count_all`) the rest are dropped instead, so that every row is still
/// counted.
pub struct Capped<'s> {
    sink: &'s mut dyn RowSink,
    left: u64,
    count_all: bool,
    stopped: bool,
}

impl<'s> Capped<'s> {
    /// The error code that ends a capped statement early (no MySQL error
    /// has code 0; it never reaches a client).
    const STOP: u16 = 0;

    pub fn new(sink: &'s mut dyn RowSink, limit: u64, count_all: bool) -> Self {
        Self { sink, left: limit, count_all, stopped: false }
    }

    /// A run's result where it ends (inside its transaction, so that the
    /// stop commits like any read): the stop is success. The count is
    /// put right by [`Capped::finish`].
    pub fn through(r: Result<u64>) -> Result<u64> {
        match r {
            Err(e) if e.code == Self::STOP => Ok(u64::MAX),
            r => r,
        }
    }

    /// The statement's result once the cap let it end: at most `limit`
    /// rows were sent (all were counted under SQL_CALC_FOUND_ROWS).
    pub fn finish(&self, r: Result<Outcome>, limit: u64) -> Result<Outcome> {
        match r {
            Err(e) if self.stopped && e.code == Self::STOP => Ok(Outcome::Rows(limit)),
            Ok(Outcome::Rows(n)) if !self.count_all => Ok(Outcome::Rows(n.min(limit))),
            r => r,
        }
    }
}

impl RowSink for Capped<'_> {
    fn columns(&mut self, columns: &[ColMeta]) -> Result<()> {
        self.sink.columns(columns)
    }

    fn row(&mut self, row: Vec<Value>) -> Result<()> {
        if self.left == 0 {
            if self.count_all {
                return Ok(());
            }
            self.stopped = true;
            return Err(SqlError::new(Self::STOP, "00000", "sql_select_limit reached"));
        }
        self.left -= 1;
        self.sink.row(row)
    }
}

/// Hands a materialised answer (SHOW and other statements that build
/// their rows in memory) to `sink`.
pub fn deliver(o: Output, sink: &mut dyn RowSink) -> Result<Outcome> {
    match o {
        Output::Ok { affected, last_insert_id, info } => Ok(Outcome::Ok { affected, last_insert_id, info }),
        Output::Rows { columns, rows } => {
            sink.columns(&columns)?;
            let n = rows.len() as u64;
            for r in rows {
                sink.row(r)?;
            }
            Ok(Outcome::Rows(n))
        }
    }
}

/// Rows `offset..offset + limit` of a stream, handed to a sink: the rows
/// before `offset` are dropped before the select list is evaluated on
/// them (as MySQL skips them), and [`Window::row`] says when the scan may
/// stop.
pub struct Window<'s> {
    sink: &'s mut dyn RowSink,
    /// Rows still to skip.
    skip: usize,
    /// Rows still to send.
    left: usize,
    /// Rows sent.
    pub sent: u64,
    /// SQL_CALC_FOUND_ROWS: rows past the window are still offered (and
    /// counted, not sent); the scan does not stop at LIMIT.
    count_all: bool,
    /// Rows offered, inside the window or not.
    pub offered: u64,
}

impl<'s> Window<'s> {
    pub fn new(sink: &'s mut dyn RowSink, offset: usize, limit: Option<usize>) -> Self {
        Self { sink, skip: offset, left: limit.unwrap_or(usize::MAX), sent: 0, count_all: false, offered: 0 }
    }

    /// Counts every row offered, the scan going on past LIMIT
    /// (SQL_CALC_FOUND_ROWS).
    pub fn counting(mut self, count_all: bool) -> Self {
        self.count_all = count_all;
        self
    }

    /// Nothing will be sent (LIMIT 0) nor counted: the scan need not
    /// start.
    pub fn closed(&self) -> bool {
        self.left == 0 && !self.count_all
    }

    /// Offers the next row; `project` builds the output row from it if it
    /// is inside the window. `Ok(false)`: the window is full, stop.
    pub fn row(&mut self, project: impl FnOnce() -> Result<Vec<Value>>) -> Result<bool> {
        self.offered += 1;
        if self.left == 0 {
            return Ok(self.count_all);
        }
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(true);
        }
        self.sink.row(project()?)?;
        self.sent += 1;
        self.left -= 1;
        Ok(self.left > 0 || self.count_all)
    }
}

/// ER_NET_ERROR_ON_WRITE: the client's connection failed while a result
/// was being sent.
pub fn write_failed() -> SqlError {
    SqlError::new(1160, "08S01", "Got an error writing communication packets")
}
