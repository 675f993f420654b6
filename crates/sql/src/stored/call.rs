//! CALL: a procedure runs over the session, each statement of its body
//! as a statement of the session (autocommit and the open transaction
//! apply as to the client's statements, as in MySQL); a SELECT without
//! INTO sends its rows to the client as one result set, announced with
//! SERVER_MORE_RESULTS_EXISTS, and the CALL ends with its own OK. DDL,
//! SHOW and dynamic SQL of the body run as the client's would, with the
//! procedure's database current; an EXECUTE's or SHOW's rows are a
//! result set like a SELECT's.
//!
//! Invariants:
//! 1. `CallState::stack` holds the procedures running, outermost first;
//!    a procedure may appear on it at most `max_sp_recursion_depth`
//!    times more than once (1456), and the stack is never deeper than
//!    [`MAX_DEPTH`] (the thread's stack is finite).
//! 2. The session's user is the definer's while a SQL SECURITY DEFINER
//!    procedure runs, and its sql_mode the procedure's; both are given
//!    back however the procedure ends.

use std::sync::Arc;

use quire_engine::row::{Column, Value};
use sqlparser::ast;

use super::{does_not_exist, wrong_arguments, Mode, RoutineKind};
use crate::error::{Result, SqlError};
use crate::routine::ast::{Kind, Stmt};
use crate::routine::exec::{Host, Names};
use crate::session::{Compiled, Session};
use crate::sink::{Answers, Collect, Outcome};

/// Nested CALLs at most (invariant 1).
const MAX_DEPTH: usize = 64;

#[derive(Default)]
struct CallState {
    /// (db, lowercased name) of the running procedures.
    stack: Vec<(String, String)>,
    /// Rows the statements changed, summed: the CALL's OK reports them (as MariaDB).
    affected: u64,
}

struct ProcHost<'a> {
    s: &'a mut Session,
    out: &'a mut dyn Answers,
    /// Where the running program's names resolve.
    db: Option<String>,
    state: &'a mut CallState,
}

/// Runs a client's `CALL` (a [`Stmt::Call`]), its result sets written to
/// `out`; the CALL's own outcome.
pub fn call(s: &mut Session, call: &Stmt, out: &mut dyn Answers) -> Result<Outcome> {
    // The arguments are a program of their own: a CALL with no locals.
    let program = crate::routine::exec::prepare(call, &Names::routine(Kind::Procedure, vec![]))?;
    let mut state = CallState::default();
    let db = s.db.clone();
    let mut host = ProcHost { s, out, db, state: &mut state };
    program.run_routine(&mut host, vec![])?;
    Ok(Outcome::Ok { affected: state.affected, last_insert_id: 0, info: String::new() })
}

/// Where an event's result sets go: nowhere (an event has no client).
struct Discard;

impl crate::sink::RowSink for Discard {
    fn columns(&mut self, _: &[crate::plan::ColMeta]) -> Result<()> {
        Ok(())
    }
    fn row(&mut self, _: Vec<Value>) -> Result<()> {
        Ok(())
    }
}

impl Answers for Discard {
    fn rows(&mut self) -> &mut dyn crate::sink::RowSink {
        self
    }
    fn begin(&mut self, _: &Session, _: bool) {}
    fn end(&mut self, _: &Session, _: Result<Outcome>) {}
}

/// Runs `program` (of no parameters) as a procedure's body over the
/// session, its result sets discarded: an event's execution
/// (`event/scheduler.rs`).
pub(crate) fn run_program(s: &mut Session, program: &crate::routine::exec::Prepared) -> Result<()> {
    let mut state = CallState::default();
    let db = s.db.clone();
    let mut host = ProcHost { s, out: &mut Discard, db, state: &mut state };
    program.run_routine(&mut host, vec![])?;
    Ok(())
}

/// 1370: the user may not run routines of `db`.
pub(crate) fn check_execute(s: &Session, db: &str, name: &str) -> Result<()> {
    if !s.shared.catalog.user(&s.user).is_some_and(|u| u.may_use(db)) {
        return Err(SqlError::new(
            1370,
            "42000",
            format!("execute command denied to user '{}'@'%' for routine '{db}.{name}'", s.user),
        ));
    }
    Ok(())
}

/// The account a SQL SECURITY DEFINER routine runs as: its definer's
/// user, which must exist (1449).
pub(crate) fn definer_user(s: &Session, definer: &str) -> Result<String> {
    let (user, host) = definer.rsplit_once('@').unwrap_or((definer, "%"));
    if s.shared.catalog.user(user).is_none() {
        return Err(SqlError::new(
            1449,
            "HY000",
            format!("The user specified as a definer ('{user}'@'{host}') does not exist"),
        ));
    }
    Ok(user.to_string())
}

impl ProcHost<'_> {
    /// Runs `f` with the session's current database the program's, as
    /// MySQL runs a routine (its DDL and dynamic SQL resolve names
    /// there); the caller's is given back however `f` ends.
    fn in_db<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.s.db, self.db.clone());
        let r = f(self);
        self.s.db = saved;
        r
    }

    /// Runs a statement of the session: its result set (`rows`) goes to
    /// the client as the body's SELECT's does, an OK's rows are counted.
    fn answer(
        &mut self,
        rows: bool,
        run: impl FnOnce(&mut Session, &mut dyn crate::sink::RowSink) -> Result<Outcome>,
    ) -> Result<()> {
        if rows {
            self.out.begin(self.s, true);
            let o = run(self.s, self.out.rows())?;
            self.out.end(self.s, Ok(o));
        } else if let Outcome::Ok { affected, .. } = run(self.s, &mut Collect::default())? {
            self.state.affected += affected;
        }
        Ok(())
    }
}

impl Host for ProcHost<'_> {
    fn epoch(&self) -> u64 {
        self.s.shared.epoch()
    }

    fn compile(&self, stmt: &ast::Statement) -> Result<Arc<Compiled>> {
        Ok(Arc::new(self.s.compile_in(stmt.clone(), self.db.as_deref())?))
    }

    fn run(&mut self, plan: &Compiled, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        let mut sink = Collect::default();
        if let Outcome::Ok { affected, .. } = self.s.execute(plan, params, &mut sink)? {
            self.state.affected += affected;
        }
        Ok(sink.rows)
    }

    fn selected_into(&mut self, rows: u64) {
        self.state.affected += rows;
    }

    fn result_set(&mut self, plan: &Compiled, params: &[Value]) -> Result<()> {
        self.out.begin(self.s, true);
        let o = self.s.execute(plan, params, self.out.rows())?;
        self.out.end(self.s, Ok(o));
        Ok(())
    }

    fn call(
        &mut self,
        db: Option<&str>,
        name: &str,
        args: Vec<Value>,
        assignable: &[bool],
    ) -> Result<Vec<Option<Value>>> {
        let kind = RoutineKind::Procedure;
        let db = match db {
            Some(d) => d.to_string(),
            None => self.db.clone().ok_or_else(SqlError::no_database)?,
        };
        let r = self.s.shared.catalog.routines.get(&db, kind, name).ok_or_else(|| does_not_exist(kind, &db, name))?;
        check_execute(self.s, &db, name)?;
        let ready = r.ready(self.s.shared.epoch())?;
        if args.len() != ready.params.len() {
            return Err(wrong_arguments(kind, &db, name, ready.params.len(), args.len()));
        }
        for (i, p) in ready.params.iter().enumerate() {
            if p.mode != Mode::In && !assignable[i] {
                return Err(SqlError::new(
                    1414,
                    "42000",
                    format!(
                        "OUT or INOUT argument {} for routine {db}.{} is not a variable or NEW pseudo-variable in BEFORE trigger",
                        i + 1,
                        r.def.name
                    ),
                ));
            }
        }
        let me = (db.clone(), name.to_lowercase());
        let limit =
            self.s.sysvar_value("max_sp_recursion_depth").ok().and_then(|v| crate::expr::to_i128(&v)).unwrap_or(0);
        let times = self.state.stack.iter().filter(|k| **k == me).count();
        if times as i128 > limit {
            return Err(SqlError::new(
                1456,
                "HY000",
                format!(
                    "Recursive limit {limit} (as set by the max_sp_recursion_depth variable) was exceeded for routine {}",
                    r.def.name
                ),
            ));
        }
        if self.state.stack.len() >= MAX_DEPTH {
            return Err(SqlError::new(
                1436,
                "HY000",
                format!("Thread stack overrun: CALLs nested deeper than {MAX_DEPTH}"),
            ));
        }
        let mut vals = Vec::with_capacity(args.len());
        for (p, v) in ready.params.iter().zip(args) {
            let v = if p.mode == Mode::Out { Value::Null } else { v };
            vals.push(convert(self.s, &db, &p.column, v)?);
        }
        let run_as = match r.def.security_definer {
            true => Some(definer_user(self.s, &r.def.definer)?),
            false => None,
        };
        let saved = run_as.map(|u| std::mem::replace(&mut self.s.user, u));
        // The body runs under the sql_mode it was created with (MySQL).
        let saved_mode = self.s.vars.get("sql_mode");
        let mode = crate::sysvars::VarValue::Str(r.def.sql_mode.clone());
        let moded = self.s.vars.set_by_name("sql_mode", &mode).is_ok();
        self.state.stack.push(me);
        let mut inner = ProcHost { s: &mut *self.s, out: &mut *self.out, db: Some(db), state: &mut *self.state };
        let r = ready.program.run_routine(&mut inner, vals);
        self.state.stack.pop();
        if let (true, Some(m)) = (moded, saved_mode) {
            let _ = self.s.vars.set_by_name("sql_mode", &m);
        }
        if let Some(u) = saved {
            self.s.user = u;
        }
        let (finals, _) = r?;
        Ok(ready.params.iter().zip(finals).map(|(p, v)| (p.mode != Mode::In).then_some(v)).collect())
    }

    fn convert(&self, col: &Column, value: Value) -> Result<Value> {
        convert(self.s, self.db.as_deref().unwrap_or(""), col, value)
    }

    fn dynamic(&mut self, a: crate::dynamic_sql::Action) -> Result<()> {
        let rows = match &a {
            crate::dynamic_sql::Action::Execute { name, .. } => self.s.named_returns_rows(name).unwrap_or(false),
            _ => false,
        };
        self.in_db(|h| h.answer(rows, |s, sink| s.run_dynamic(a, sink)))
    }

    fn run_text(&mut self, text: &str) -> Result<()> {
        self.in_db(|h| {
            let c = h.s.compile_one(text).or_else(|e| h.s.fail(e))?;
            let rows = !c.columns().is_empty();
            h.answer(rows, |s, sink| s.execute(&c, &[], sink))
        })
    }

    fn session(&self) -> &Session {
        self.s
    }
}

/// `value` as a routine's variable of type `col` holds it (strictly,
/// `Session::strictly`).
pub(crate) fn convert(s: &Session, db: &str, col: &Column, value: Value) -> Result<Value> {
    s.strictly(|| crate::trigger::fire::convert(s, db, col, value))
}
