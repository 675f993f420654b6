//! Stored functions in expressions. A name that is no built-in function
//! (built-ins take precedence, as in MySQL) is looked up among the stored
//! functions when the statement is compiled ([`resolve`]): `db.f(...)`,
//! or `f(...)` in the statement's database. The call compiles to
//! `Expr::Func` with a name [`is_stored`] recognises, carrying the
//! database, the name and the RETURNS type (so that the result's type is
//! known without the catalog); evaluation runs the body ([`call`]).
//!
//! A function's body runs without the statement's transaction, so it may
//! not read or write tables: such bodies are refused at CREATE (1235,
//! `routine::exec`).
//!
//! Invariant: [`CompileScope`] is set on the compiling thread for the
//! whole of `Session::compile_in`; without it no stored function is
//! found (1305), as outside a session.

use std::cell::RefCell;
use std::sync::Arc;

use quire_engine::row::{Column, Value};
use sqlparser::ast;

use super::{does_not_exist, wrong_arguments, Registry, RoutineKind};

use crate::error::{Result, SqlError};
use crate::expr::Expr;
use crate::plan::MetaType;
use crate::query::Ctx;
use crate::routine::exec::Host;
use crate::session::{Compiled, Env, Plan, Session};

/// Marks a stored function's `Expr::Func` name; fields follow, each
/// ended by the separator: db, name, RETURNS type.
const MARK: char = '\u{1}';

thread_local! {
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// The routines and the database a statement is compiled against.
type Scope = (Arc<Registry>, Option<String>);

/// Sets the [`Scope`] for as long as the guard lives.
pub struct CompileScope {
    prev: Option<Scope>,
}

impl CompileScope {
    pub fn enter(reg: &Arc<Registry>, db: Option<&str>) -> CompileScope {
        let prev = SCOPE.with(|s| s.borrow_mut().replace((reg.clone(), db.map(str::to_string))));
        CompileScope { prev }
    }
}

impl Drop for CompileScope {
    fn drop(&mut self) {
        let prev = self.prev.take();
        SCOPE.with(|s| *s.borrow_mut() = prev);
    }
}

pub fn is_stored(name: &str) -> bool {
    name.starts_with(MARK)
}

fn fields(name: &str) -> Option<(&str, &str, &str)> {
    let mut it = name.strip_prefix(MARK)?.split(MARK);
    Some((it.next()?, it.next()?, it.next()?))
}

/// The stored function `name` names, compiled as a call with `args`;
/// `None` when there is none (the caller reports 1305).
pub fn resolve(name: &ast::ObjectName, args: Vec<Expr>) -> Result<Option<Expr>> {
    let parts: Vec<&str> = name.0.iter().filter_map(|p| p.as_ident()).map(|i| i.value.as_str()).collect();
    SCOPE.with(|s| {
        let g = s.borrow();
        let Some((reg, current)) = g.as_ref() else { return Ok(None) };
        let (db, fname) = match parts.as_slice() {
            [db, f] => (db.to_string(), *f),
            [f] => match current {
                Some(db) => (db.clone(), *f),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let Some(r) = reg.get(&db, RoutineKind::Function, fname) else {
            if parts.len() == 2 {
                return Err(does_not_exist(RoutineKind::Function, &db, fname));
            }
            return Ok(None);
        };
        // The argument count is checked when the call runs (1318), as
        // MariaDB does.
        let key = format!("{MARK}{db}{MARK}{}{MARK}{}", r.def.name.to_lowercase(), r.def.returns);
        Ok(Some(Expr::Func(key, args)))
    })
}

/// The type of a stored function's result: its RETURNS type.
pub fn infer(name: &str) -> MetaType {
    fields(name)
        .and_then(|(_, n, returns)| super::ddl::column(n, returns).ok())
        .map_or(MetaType::Str { len: 255, fixed: false }, |c| MetaType::of_column(c.ty))
}

/// Runs the stored function `key` (an `Expr::Func` name [`resolve`]
/// made) on `args`.
pub fn call(s: &Session, key: &str, args: &[Value]) -> Result<Value> {
    let (db, name, _) = fields(key).ok_or_else(|| SqlError::internal("a stored function's name"))?;
    let kind = RoutineKind::Function;
    let r = s.shared.catalog.routines.get(db, kind, name).ok_or_else(|| does_not_exist(kind, db, name))?;
    super::call::check_execute(s, db, name)?;
    let ready = r.ready(s.shared.epoch())?;
    if args.len() != ready.params.len() {
        return Err(wrong_arguments(kind, db, &r.def.name, ready.params.len(), args.len()));
    }
    let me = (db.to_string(), name.to_string());
    if s.function_stack.borrow().contains(&me) {
        return Err(SqlError::new(1424, "HY000", "Recursive stored functions and triggers are not allowed"));
    }
    let mut host = FuncHost { s, db };
    let mut vals = Vec::with_capacity(args.len());
    for (p, v) in ready.params.iter().zip(args) {
        vals.push(host.convert(&p.column, v.clone())?);
    }
    s.function_stack.borrow_mut().push(me);
    let ran = ready.program.run_routine(&mut host, vals);
    s.function_stack.borrow_mut().pop();
    let (_, returned) = ran?;
    let v = returned
        .ok_or_else(|| SqlError::new(1321, "2F005", format!("FUNCTION {} ended without RETURN", r.def.name)))?;
    match &ready.returns {
        Some(col) => host.convert(col, v),
        None => Ok(v),
    }
}

/// A function's host: the session, no transaction (no tables).
struct FuncHost<'a> {
    s: &'a Session,
    db: &'a str,
}

impl Host for FuncHost<'_> {
    fn epoch(&self) -> u64 {
        self.s.shared.epoch()
    }

    fn compile(&self, stmt: &ast::Statement) -> Result<Arc<Compiled>> {
        Ok(Arc::new(self.s.compile_in(stmt.clone(), Some(self.db))?))
    }

    fn run(&mut self, plan: &Compiled, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        let env = Env { s: self.s };
        let mut sink = crate::sink::Collect::default();
        match &plan.plan {
            Plan::Select(p) if p.table.is_none() => {
                let mut ctx = Ctx { params, aggs: vec![], session: &env, in_keys: Default::default() };
                crate::query::run_select(p, None, None, &mut ctx, &mut sink)?;
            }
            _ => return Err(SqlError::unsupported("this statement in a stored function")),
        }
        Ok(sink.rows)
    }

    fn convert(&self, col: &Column, value: Value) -> Result<Value> {
        super::call::convert(self.s, self.db, col, value)
    }

    fn session(&self) -> &Session {
        self.s
    }
}
