//! Stored functions in expressions. A name that is no built-in function
//! (built-ins take precedence, as in MySQL) is looked up among the stored
//! functions when the statement is compiled ([`resolve`]): `db.f(...)`,
//! or `f(...)` in the statement's database. The call compiles to
//! `Expr::Func` with a name [`is_stored`] recognises, carrying the
//! database, the name and the RETURNS type (so that the result's type is
//! known without the catalog); evaluation runs the body ([`call`]).
//!
//! A function's body reads and writes tables through the invoking
//! statement's transaction (`routine::run`): a statement that calls one
//! is planned so that its expressions can reach the transaction
//! ([`lend_transaction`]): a SELECT runs in the general engine (whose
//! `RowEnv` lends it), an UPDATE / DELETE judges its rows as one with
//! subqueries does, an INSERT evaluates each row's values before writing.
//!
//! Invariants:
//! 1. [`CompileScope`] is set on the compiling thread for the whole of
//!    `Session::compile_in`; without it no stored function is found
//!    (1305), as outside a session.
//! 2. A statement that calls a stored function has `calls_functions` set
//!    (the scope records every [`resolve`]), and so its tables are in
//!    use while the function runs (1442 for a write to one).

use std::cell::RefCell;
use std::sync::Arc;

use quire_engine::row::{Column, Value};
use quire_engine::table::Trx;
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

/// The routines and the database a statement is compiled against, and
/// whether it named a stored function.
struct Scope {
    reg: Arc<Registry>,
    db: Option<String>,
    resolved: bool,
}

/// Sets the [`Scope`] for as long as the guard lives.
pub struct CompileScope {
    prev: Option<Scope>,
}

impl CompileScope {
    pub fn enter(reg: &Arc<Registry>, db: Option<&str>) -> CompileScope {
        let scope = Scope { reg: reg.clone(), db: db.map(str::to_string), resolved: false };
        let prev = SCOPE.with(|s| s.borrow_mut().replace(scope));
        CompileScope { prev }
    }

    /// Whether what was compiled in this scope calls a stored function.
    pub fn resolved(&self) -> bool {
        SCOPE.with(|s| s.borrow().as_ref().is_some_and(|s| s.resolved))
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
        let mut g = s.borrow_mut();
        let Some(Scope { reg, db: current, resolved }) = g.as_mut() else { return Ok(None) };
        let (db, fname) = match parts.as_slice() {
            [db, f] => (db.to_string(), *f),
            [f] => match current {
                Some(db) => (db.clone(), *f),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let Some(r) = reg.get(&db, RoutineKind::Function, fname) else {
            // Named in the statement's database, as MariaDB reports it.
            return Err(does_not_exist(RoutineKind::Function, &db, fname));
        };
        // The argument count is checked when the call runs (1318), as
        // MariaDB does.
        let key = format!("{MARK}{db}{MARK}{}{MARK}{}", r.def.name.to_lowercase(), r.def.returns);
        *resolved = true;
        Ok(Some(Expr::Func(key, args)))
    })
}

/// The type of a stored function's result: its RETURNS type.
pub fn infer(name: &str) -> MetaType {
    fields(name)
        .and_then(|(_, n, returns)| super::ddl::column(n, returns).ok())
        .map_or(MetaType::Str { len: 255, fixed: false }, |c| MetaType::of_column(c.ty))
}

/// Plans a statement that calls stored functions so that they run in
/// its transaction (the module's doc); a SELECT was compiled by the
/// general engine already.
pub(crate) fn lend_transaction(plan: &mut Plan) {
    match plan {
        // Even without tables of its own: the functions may read some.
        Plan::Query(q) => q.reads_tables = true,
        Plan::Update(p) => p.subqueries = true,
        Plan::Delete(p) => p.subqueries = true,
        Plan::Insert(p) => p.calls_functions = true,
        _ => {}
    }
}

/// Runs the stored function `key` (an `Expr::Func` name [`resolve`]
/// made) on `args`, in `trx` when the statement lends its transaction
/// (without one, the body may not use tables).
pub fn call(s: &Session, trx: Option<&mut Trx>, key: &str, args: &[Value]) -> Result<Value> {
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
    let mut host = FuncHost { s, db, trx };
    let mut vals = Vec::with_capacity(args.len());
    for (p, v) in ready.params.iter().zip(args) {
        vals.push(host.convert(&p.column, v.clone())?);
    }
    s.function_stack.borrow_mut().push(me);
    let _id = crate::routine::run::KeepInsertId::new(s);
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

/// A function's host: the session, and the invoking statement's
/// transaction when it lends one.
struct FuncHost<'a> {
    s: &'a Session,
    db: &'a str,
    trx: Option<&'a mut Trx>,
}

impl Host for FuncHost<'_> {
    fn epoch(&self) -> u64 {
        self.s.shared.epoch()
    }

    fn compile(&self, stmt: &ast::Statement) -> Result<Arc<Compiled>> {
        Ok(Arc::new(self.s.compile_in(stmt.clone(), Some(self.db))?))
    }

    fn run(&mut self, plan: &Compiled, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        if let Some(trx) = self.trx.as_deref_mut() {
            return crate::routine::run::in_trx(self.s, trx, plan, params, "stored function");
        }
        let env = Env { s: self.s };
        let mut sink = crate::sink::Collect::default();
        match &plan.plan {
            Plan::Select(p) if p.table.is_none() => {
                let mut ctx = Ctx { params, aggs: vec![], session: &env, in_keys: Default::default() };
                crate::query::run_select(p, None, None, &mut ctx, &mut sink)?;
            }
            _ => return Err(SqlError::unsupported("a stored function using tables in this statement")),
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

/// An expression environment that is `inner` in all but one thing: its
/// stored functions run in `trx` (`session` runs them). For expressions a
/// row writer evaluates between its own uses of the transaction (ON
/// DUPLICATE KEY UPDATE's assignments).
pub(crate) struct Lent<'a> {
    pub inner: &'a dyn crate::expr::Env,
    pub session: &'a dyn crate::query::SessionEnv,
    pub trx: std::cell::RefCell<&'a mut Trx>,
}

impl crate::expr::Env for Lent<'_> {
    fn param(&self, i: usize) -> Result<Value> {
        self.inner.param(i)
    }
    fn agg(&self, i: usize) -> Result<Value> {
        self.inner.agg(i)
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        self.inner.sysvar(name, global)
    }
    fn func(&self, name: &str, args: &[Value]) -> Result<Value> {
        if is_stored(name) && crate::assign::var_of(name).is_none() {
            let mut trx = self.trx.try_borrow_mut().map_err(|_| SqlError::internal("the transaction is in use"))?;
            return self.session.stored_function_in(&mut trx, name, args);
        }
        self.inner.func(name, args)
    }
    fn warn(&self, c: crate::diag::Condition) -> Result<()> {
        self.inner.warn(c)
    }
    fn mode(&self) -> crate::diag::Mode {
        self.inner.mode()
    }
    fn check_interrupt(&self) -> Result<()> {
        self.inner.check_interrupt()
    }
    fn collation(&self) -> quire_engine::row::Collation {
        self.inner.collation()
    }
    fn outer(&self, k: usize) -> Result<Value> {
        self.inner.outer(k)
    }
    fn window(&self, i: usize) -> Result<Value> {
        self.inner.window(i)
    }
    fn subquery(&self, s: &crate::expr::SubExpr, row: &[Value]) -> Result<Value> {
        self.inner.subquery(s, row)
    }
    fn in_keys(
        &self,
        set: &std::sync::Arc<crate::inset::InSet>,
        build: &dyn Fn() -> Option<crate::inset::Keys>,
    ) -> Option<std::sync::Arc<crate::inset::Keys>> {
        self.inner.in_keys(set, build)
    }
}
