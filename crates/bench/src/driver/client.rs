//! One client connection running a workload's events, as one sysbench
//! thread does: `thread_init` prepares the script's statements on every
//! table (server-side prepared statements, sysbench's default
//! `--db-ps-mode=auto`), then each event binds fresh random values and
//! executes them.
//!
//! Invariants:
//! 1. The connection's statement cache holds every statement the client
//!    prepared, so the `mysql` crate never closes one behind our back.
//! 2. `event` counts a statement in `counts` only once the server answered
//!    it without error.

use mysql::prelude::Queryable;
use mysql::{Conn, Statement};

use super::rand::{SbRand, C_TEMPLATE, PAD_TEMPLATE};
use super::workload::{sql, Kind, Mix, Stmt, StmtCounts, Workload};
use crate::error::Result;
use crate::target::TargetSpec;

/// A statement that failed, and how.
#[derive(Debug)]
pub struct StmtError {
    /// The SQL text (with `?` placeholders).
    pub sql: String,
    pub error: mysql::Error,
}

/// The retryable errors: sysbench's usual `--mysql-ignore-errors=1213,1205`.
pub fn retryable(e: &mysql::Error) -> bool {
    matches!(crate::error::server_code(e), Some(1213) | Some(1205))
}

/// One connection and its prepared statements.
pub struct Client {
    conn: Conn,
    workload: Workload,
    mix: Mix,
    tables: u32,
    table_size: u32,
    /// `stmts[table - 1][kind]`: prepared on demand of the workload.
    stmts: Vec<Vec<Option<Statement>>>,
    begin: Option<Statement>,
    commit: Option<Statement>,
    rng: SbRand,
    c_buf: String,
    pad_buf: String,
}

/// Statements a workload prepares per table.
fn kinds_of(w: Workload, mix: &Mix) -> Vec<Kind> {
    let mut out = Vec::new();
    for (stmt, _) in w.groups(mix) {
        if stmt == Stmt::TextInsert {
            continue;
        }
        for k in stmt.kinds() {
            if !out.contains(k) {
                out.push(*k);
            }
        }
    }
    out
}

impl Client {
    /// Connects to `spec`'s database and prepares the statements.
    pub fn connect(
        spec: &TargetSpec,
        workload: Workload,
        mix: Mix,
        tables: u32,
        table_size: u32,
        seed: u64,
    ) -> Result<Client> {
        let kinds = kinds_of(workload, &mix);
        let cache = kinds.len() * tables as usize + 8;
        let mut conn = spec.connect(true, cache)?;
        let prep = |conn: &mut Conn, text: String| -> Result<Statement> {
            conn.prep(&text).map_err(|e| {
                crate::Error::new(format!("{}: cannot prepare '{text}': {}", spec.name(), crate::error::describe(&e)))
            })
        };
        let (begin, commit) = if workload.transactional() {
            (Some(prep(&mut conn, sql(Kind::Begin, 0))?), Some(prep(&mut conn, sql(Kind::Commit, 0))?))
        } else {
            (None, None)
        };
        let mut stmts = Vec::with_capacity(tables as usize);
        for t in 1..=tables {
            let mut row: Vec<Option<Statement>> = vec![None; Kind::ALL.len()];
            for k in &kinds {
                row[*k as usize] = Some(prep(&mut conn, sql(*k, t))?);
            }
            stmts.push(row);
        }
        Ok(Client {
            conn,
            workload,
            mix,
            tables,
            table_size,
            stmts,
            begin,
            commit,
            rng: SbRand::new(seed),
            c_buf: String::with_capacity(120),
            pad_buf: String::with_capacity(60),
        })
    }

    /// A random id: `sysbench.rand.default(1, table_size)`.
    fn id(&mut self) -> i64 {
        i64::from(self.rng.special(1, self.table_size))
    }

    fn table(&mut self) -> u32 {
        self.rng.uniform(1, self.tables)
    }

    /// Executes prepared `kind` on `table` with `params`.
    fn exec<P: Into<mysql::Params>>(
        &mut self,
        table: u32,
        kind: Kind,
        params: P,
        counts: &mut StmtCounts,
    ) -> std::result::Result<(), StmtError> {
        let stmt = match kind {
            Kind::Begin => self.begin.as_ref(),
            Kind::Commit => self.commit.as_ref(),
            _ => self.stmts.get(table as usize - 1).and_then(|r| r[kind as usize].as_ref()),
        };
        let Some(stmt) = stmt else {
            return Err(StmtError {
                sql: sql(kind, table),
                error: mysql::Error::DriverError(mysql::DriverError::SetupError),
            });
        };
        match self.conn.exec_drop(stmt, params) {
            Ok(()) => {
                counts.add(kind, 1);
                Ok(())
            }
            Err(error) => Err(StmtError { sql: sql(kind, table), error }),
        }
    }

    /// Runs one event; `counts` gets the statements that succeeded.
    pub fn event(&mut self, counts: &mut StmtCounts) -> std::result::Result<(), StmtError> {
        if self.workload.transactional() {
            self.exec(0, Kind::Begin, (), counts)?;
        }
        for (stmt, n) in self.workload.groups(&self.mix) {
            let t = self.table();
            for _ in 0..n {
                self.statement(stmt, t, counts)?;
            }
        }
        if self.workload.transactional() {
            self.exec(0, Kind::Commit, (), counts)?;
        }
        Ok(())
    }

    fn statement(&mut self, stmt: Stmt, t: u32, counts: &mut StmtCounts) -> std::result::Result<(), StmtError> {
        let range = i64::from(self.mix.range_size);
        match stmt {
            Stmt::PointSelect => {
                let id = self.id();
                self.exec(t, Kind::PointSelect, (id,), counts)
            }
            Stmt::SimpleRange | Stmt::SumRange | Stmt::OrderRange | Stmt::DistinctRange => {
                let id = self.id();
                self.exec(t, stmt.kinds()[0], (id, id + range - 1), counts)
            }
            Stmt::IndexUpdate => {
                let id = self.id();
                self.exec(t, Kind::IndexUpdate, (id,), counts)
            }
            Stmt::NonIndexUpdate => {
                let mut c = std::mem::take(&mut self.c_buf);
                self.rng.string_into(C_TEMPLATE, &mut c);
                let id = self.id();
                let r = self.exec(t, Kind::NonIndexUpdate, (c.as_str(), id), counts);
                self.c_buf = c;
                r
            }
            Stmt::DeleteInsert => {
                let id = self.id();
                let k = self.id();
                let mut c = std::mem::take(&mut self.c_buf);
                let mut pad = std::mem::take(&mut self.pad_buf);
                self.rng.string_into(C_TEMPLATE, &mut c);
                self.rng.string_into(PAD_TEMPLATE, &mut pad);
                let r = self
                    .exec(t, Kind::Delete, (id,), counts)
                    .and_then(|()| self.exec(t, Kind::Insert, (id, k, c.as_str(), pad.as_str()), counts));
                self.c_buf = c;
                self.pad_buf = pad;
                r
            }
            Stmt::Delete => {
                let id = self.id();
                self.exec(t, Kind::Delete, (id,), counts)
            }
            Stmt::TextInsert => {
                let k = self.id();
                let c = self.rng.string(C_TEMPLATE);
                let pad = self.rng.string(PAD_TEMPLATE);
                let text = format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (0, {k}, '{c}', '{pad}')");
                match self.conn.query_drop(&text) {
                    Ok(()) => {
                        counts.add(Kind::Insert, 1);
                        Ok(())
                    }
                    Err(error) => Err(StmtError { sql: text, error }),
                }
            }
        }
    }

    /// After a retryable error: ends the transaction the event had open.
    pub fn rollback(&mut self) {
        if self.workload.transactional() {
            let _ = self.conn.query_drop("ROLLBACK");
        }
    }
}
