//! The interpreter: a program ([`Stmt`]) is first *prepared* against the
//! names it may use ([`Names`]): local variables get frame slots (scoped
//! by block), labels get ids, and each embedded expression or statement
//! is parsed, its variable and `NEW.col` / `OLD.col` references replaced
//! by the parameter markers `?slot`. Running it then walks the prepared
//! tree over a frame of values, compiling each SQL piece once per DDL
//! epoch through its [`Host`] and running it with the frame as parameters.
//!
//! Invariants:
//! 1. A frame holds `Names::row_slots` values for the row (NEW, then OLD;
//!    a routine's parameters instead) followed by one slot per declared
//!    local (`Prepared::slots`).
//! 2. Every slot a prepared piece names exists in the frame, so a plan's
//!    parameters are always bound.
//! 3. Handlers: `Vm::scopes` holds the handler lists of the blocks being
//!    run, outermost first (while a handler runs, only the scopes outside
//!    its block). A condition is offered to them once, where it is raised
//!    (the innermost statement that is not compound; for warnings, once
//!    that statement is done); `Vm::propagating` then marks the error as
//!    final, so that no enclosing statement offers it again.
//! 4. A cursor is open from OPEN to CLOSE or to the end of its block; its
//!    rows are read whole at OPEN (MySQL materializes them too).
//! 5. Handlers running: `Vm::active` holds one [`Active`] per handler
//!    whose body is running, innermost last. While it runs, the condition
//!    that activated it is in the diagnostics area (recorded there when
//!    the statement had not: SIGNAL, the interpreter's own errors), with
//!    all the area held then; when the body ends, however it ends, those
//!    conditions leave the area unless it ran RESIGNAL (MySQL's
//!    `mark_sql_conditions_for_removal`). RESIGNAL and GET STACKED
//!    DIAGNOSTICS read the innermost; with none, they fail (1645, 1887).

use std::sync::Arc;

use parking_lot::Mutex;
use quire_engine::row::{Column, Value};
use sqlparser::ast;

use super::ast::{CondValue, Decl, Declare, DiagItem, Kind, Stmt, Target};
use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::session::Compiled;

mod diagnostics;

/// What a program runs against (a firing trigger: the session and the
/// statement's transaction).
pub trait Host {
    /// The DDL epoch: plans compiled under an older one are stale.
    fn epoch(&self) -> u64;
    fn compile(&self, stmt: &ast::Statement) -> Result<Arc<Compiled>>;
    /// Runs a compiled statement with `params`; a query's rows.
    fn run(&mut self, plan: &Compiled, params: &[Value]) -> Result<Vec<Vec<Value>>>;
    /// `value` converted for a slot of type `col` (MySQL's assignment
    /// rules and sql_mode; NULL stays NULL).
    fn convert(&self, col: &Column, value: Value) -> Result<Value>;
    /// The session the program runs in.
    fn session(&self) -> &crate::session::Session;
    fn set_user_var(&mut self, name: &str, value: Value) {
        self.session().user_vars.borrow_mut().insert(name.to_ascii_lowercase(), value);
    }
    /// Raises a condition (SIGNAL of class 01, no rows fetched, RESIGNAL)
    /// into the diagnostics area as it is: a SIGNAL of class 01 is no
    /// conversion warning, which strict mode would make an error.
    fn warn(&self, c: Condition) -> Result<()> {
        self.session().diag.borrow_mut().push(c);
        Ok(())
    }
    /// `Err` once the statement is interrupted (KILL QUERY).
    fn check_interrupt(&self) -> Result<()> {
        self.session().interrupted()
    }
    /// Conditions recorded so far ([`crate::diag::Diagnostics::seq`]).
    fn diag_seq(&self) -> u64 {
        self.session().diag.borrow().seq()
    }
    /// The conditions recorded since `seq` and still kept, with their
    /// numbers, oldest first.
    fn conditions_since(&self, seq: u64) -> Vec<(u64, Condition)> {
        let d = self.session().diag.borrow();
        d.numbered_since(seq).into_iter().map(|(n, c)| (n, c.clone())).collect()
    }
    /// Forgets the conditions numbered up to `seq` (a handler that took
    /// them ended).
    fn forget_upto(&self, seq: u64) {
        self.session().diag.borrow_mut().forget_range(0, seq);
    }
    /// Replaces condition number `n` with `c`; `false` when the area no
    /// longer holds it.
    fn update_condition(&self, n: u64, c: &Condition) -> bool {
        match self.session().diag.borrow_mut().numbered_mut(n) {
            Some(old) => {
                *old = c.clone();
                true
            }
            None => false,
        }
    }
    /// What the program raises itself is added to the area the last
    /// statement left (RESIGNAL, GET DIAGNOSTICS).
    fn adopt_diagnostics(&self) {
        self.session().diag.borrow_mut().adopt();
    }
    /// The diagnostics area's kept conditions (GET DIAGNOSTICS).
    fn diagnostics(&self) -> Vec<Condition> {
        self.session().diag.borrow().kept().to_vec()
    }
    /// ROW_COUNT() now.
    fn row_count(&self) -> i64 {
        self.session().row_count
    }
    /// A SELECT ... INTO fetched `rows` rows (a CALL's OK counts them,
    /// as MariaDB).
    fn selected_into(&mut self, _rows: u64) {}
    /// A SELECT's rows sent to the client as one result set (a
    /// procedure's SELECT without INTO).
    fn result_set(&mut self, _plan: &Compiled, _params: &[Value]) -> Result<()> {
        Err(SqlError::internal("a result set outside a procedure"))
    }
    /// CALL of procedure `[db.]name` with `args`; `assignable[i]`: the
    /// i-th argument can take an OUT value. What goes back to each
    /// argument: the OUT and INOUT parameters' values at the end.
    fn call(
        &mut self,
        _db: Option<&str>,
        _name: &str,
        _args: Vec<Value>,
        _assignable: &[bool],
    ) -> Result<Vec<Option<Value>>> {
        Err(SqlError::unsupported("CALL here"))
    }
    /// A dynamic-SQL statement (procedures; `dynamic_sql.rs`): an
    /// EXECUTE's result set goes to the client as a SELECT's.
    fn dynamic(&mut self, _a: crate::dynamic_sql::Action) -> Result<()> {
        Err(SqlError::unsupported("dynamic SQL here"))
    }
    /// A statement of the session run from its text, compiled now
    /// ([`Stmt::Text`]: DDL, SHOW; procedures).
    fn run_text(&mut self, _text: &str) -> Result<()> {
        Err(SqlError::unsupported("this statement here"))
    }
    /// Whether the program's cached plans may be used and kept: plans
    /// are shared by every session running the program, and a session
    /// with temporary tables binds names to its own tables
    /// (`temp_table.rs`, invariant 1).
    fn shares_plans(&self) -> bool {
        self.session().temps.is_empty()
    }
}

/// The names a program may use (a trigger's NEW and OLD, a routine's
/// parameters).
pub struct Names {
    pub kind: Kind,
    /// A routine's parameters (their slots follow the row's).
    pub params: Vec<Column>,
    /// The subject table's columns (NEW and OLD have them).
    pub columns: Vec<Column>,
    pub event: &'static str,
    pub has_new: bool,
    pub has_old: bool,
    /// NEW may be assigned (a BEFORE trigger).
    pub new_assignable: bool,
}

impl Names {
    /// Slots before the locals: NEW's columns, then OLD's, then the
    /// parameters.
    pub fn row_slots(&self) -> usize {
        2 * self.columns.len() + self.params.len()
    }

    /// A stored routine's names: its parameters only.
    pub fn routine(kind: Kind, params: Vec<Column>) -> Names {
        Names { kind, params, columns: vec![], event: "", has_new: false, has_old: false, new_assignable: false }
    }
}

/// A SQL piece, compiled on first use in each DDL epoch.
struct Sql {
    stmt: Box<ast::Statement>,
    plan: Mutex<Option<Arc<Compiled>>>,
}

impl Sql {
    fn new(stmt: ast::Statement) -> Self {
        Sql { stmt: Box::new(stmt), plan: Mutex::new(None) }
    }

    fn plan(&self, host: &dyn Host) -> Result<Arc<Compiled>> {
        if !host.shares_plans() {
            return host.compile(&self.stmt);
        }
        let mut g = self.plan.lock();
        if let Some(p) = g.as_ref().filter(|p| p.epoch == host.epoch()) {
            return Ok(p.clone());
        }
        let p = host.compile(&self.stmt)?;
        *g = Some(p.clone());
        Ok(p)
    }

    /// A scalar: `SELECT expr`'s single value.
    fn value(&self, host: &mut dyn Host, frame: &[Value]) -> Result<Value> {
        let plan = self.plan(host)?;
        let rows = host.run(&plan, frame)?;
        Ok(rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
    }
}

enum Dest {
    Slot(usize),
    User(String),
    /// A system variable: the item's [`Sql`] is the `SET` that sets it.
    System,
}

/// A condition as a handler matches it (named conditions resolved).
#[derive(Clone, Debug, PartialEq)]
enum Cond {
    Code(u16),
    State(String),
    Warning,
    NotFound,
    Exception,
}

impl Cond {
    /// How well this matches a condition of `code`, `state` and `level`:
    /// an error code best, then a SQLSTATE, then a class (MySQL's
    /// `sp_pcontext::find_handler`); `None` when it does not.
    fn rank(&self, code: u16, state: &str, level: Level) -> Option<u8> {
        match self {
            Cond::Code(c) => (*c == code).then_some(3),
            Cond::State(s) => (s == state).then_some(2),
            Cond::Warning => (state.starts_with("01") || level == Level::Warning).then_some(1),
            Cond::NotFound => state.starts_with("02").then_some(1),
            Cond::Exception => {
                (level == Level::Error && !["00", "01", "02"].iter().any(|c| state.starts_with(c))).then_some(1)
            }
        }
    }
}

struct Handler {
    exit: bool,
    conds: Vec<Cond>,
    body: Op,
}

enum Op {
    Block {
        label: usize,
        inits: Vec<(Vec<usize>, Option<Sql>)>,
        /// The block's cursors, closed when it ends.
        cursors: Vec<usize>,
        handlers: Vec<Handler>,
        body: Vec<Op>,
    },
    Open(usize),
    Fetch {
        cursor: usize,
        dests: Vec<Dest>,
    },
    Close(usize),
    Set(Vec<(Dest, Sql)>),
    If {
        arms: Vec<(Sql, Vec<Op>)>,
        otherwise: Option<Vec<Op>>,
    },
    /// `operand` is stored in slot `hidden` first; arms compare with it.
    Case {
        operand: Option<(usize, Sql)>,
        arms: Vec<(Sql, Vec<Op>)>,
        otherwise: Option<Vec<Op>>,
    },
    While {
        label: usize,
        cond: Sql,
        body: Vec<Op>,
    },
    Repeat {
        label: usize,
        body: Vec<Op>,
        until: Sql,
    },
    Loop {
        label: usize,
        body: Vec<Op>,
    },
    Leave(usize),
    Iterate(usize),
    Signal {
        sqlstate: &'static str,
        message: Option<Sql>,
        errno: Option<Sql>,
    },
    /// RESIGNAL: `sqlstate` for a new condition.
    Resignal {
        sqlstate: Option<&'static str>,
        message: Option<Sql>,
        errno: Option<Sql>,
    },
    GetDiagnostics {
        stacked: bool,
        condition: Option<Sql>,
        items: Vec<(Dest, DiagItem)>,
    },
    Exec(Sql),
    SelectInto {
        sql: Sql,
        dests: Vec<Dest>,
    },
    /// A result set to the client.
    Select(Sql),
    /// CALL: each argument's value, and where an OUT value goes back.
    Call {
        db: Option<String>,
        name: String,
        args: Vec<(Sql, Option<Dest>)>,
    },
    Return(Sql),
    /// PREPARE: the statement's text is the expression's value.
    Prepare {
        name: String,
        from: Sql,
    },
    Execute {
        name: String,
        using: Vec<Sql>,
    },
    Deallocate(String),
    /// A statement compiled from its text when it runs (DDL, SHOW).
    Text(String),
}

/// A program ready to run (shared by every firing; plans cached inside).
pub struct Prepared {
    body: Op,
    /// Types of all slots (the row's columns, then the locals).
    slots: Vec<Column>,
    /// The queries of the cursors declared anywhere in the program, by id.
    cursors: Vec<Sql>,
}

/// Where control goes after a statement.
enum Flow {
    Next,
    Leave(usize),
    Iterate(usize),
    /// A function's RETURN, with its value.
    Return(Value),
}

struct Scope {
    /// Visible locals, innermost last: (name, slot).
    vars: Vec<(String, usize)>,
    /// Enclosing labels, innermost last: (name, id, is a loop).
    labels: Vec<(String, usize, bool)>,
    next_label: usize,
    slots: Vec<Column>,
    /// Visible conditions, innermost last: (name, value).
    conds: Vec<(String, Cond)>,
    /// Visible cursors, innermost last: (name, id).
    cursors: Vec<(String, usize)>,
    /// Every cursor's query so far, by id.
    queries: Vec<Sql>,
}

/// Prepares `program` for `names` (errors as CREATE reports them).
pub fn prepare(program: &Stmt, names: &Names) -> Result<Prepared> {
    let mut slots: Vec<Column> = names.columns.clone();
    slots.extend(names.columns.iter().cloned());
    let mut vars = Vec::new();
    for p in &names.params {
        vars.push((p.name.clone(), slots.len()));
        slots.push(p.clone());
    }
    let mut sc = Scope {
        vars,
        labels: Vec::new(),
        next_label: 0,
        slots,
        conds: Vec::new(),
        cursors: Vec::new(),
        queries: Vec::new(),
    };
    let body = op(program, names, &mut sc)?;
    Ok(Prepared { body, slots: sc.slots, cursors: sc.queries })
}

fn ops(list: &[Stmt], names: &Names, sc: &mut Scope) -> Result<Vec<Op>> {
    list.iter().map(|s| op(s, names, sc)).collect()
}

fn label_of(sc: &mut Scope, label: &Option<String>, is_loop: bool) -> usize {
    let id = sc.next_label;
    sc.next_label += 1;
    sc.labels.push((label.clone().unwrap_or_default(), id, is_loop));
    id
}

fn find_label(sc: &Scope, name: &str, leave: bool) -> Result<usize> {
    sc.labels
        .iter()
        .rev()
        .find(|(n, _, is_loop)| !n.is_empty() && n.eq_ignore_ascii_case(name) && (leave || *is_loop))
        .map(|(_, id, _)| *id)
        .ok_or_else(|| {
            let what = if leave { "LEAVE" } else { "ITERATE" };
            SqlError::new(1308, "42000", format!("{what} with no matching label: {name}"))
        })
}

fn op(s: &Stmt, names: &Names, sc: &mut Scope) -> Result<Op> {
    Ok(match s {
        Stmt::Block { label, decls, body } => {
            let id = label_of(sc, label, false);
            let (depth, conds_depth, cursors_depth) = (sc.vars.len(), sc.conds.len(), sc.cursors.len());
            let (mut inits, mut cursors, mut handlers) = (Vec::new(), Vec::new(), Vec::new());
            for d in decls {
                match d {
                    Decl::Var(d) => inits.push(declare(d, names, sc, depth)?),
                    Decl::Condition { name, value } => {
                        if sc.conds[conds_depth..].iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                            return Err(SqlError::new(1332, "42000", format!("Duplicate condition: {name}")));
                        }
                        let value = cond(value, sc)?;
                        sc.conds.push((name.clone(), value));
                    }
                    Decl::Cursor { name, select } => {
                        if sc.cursors[cursors_depth..].iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                            return Err(SqlError::new(1333, "42000", format!("Duplicate cursor: {name}")));
                        }
                        let query = Sql::new(statement(select, names, sc)?);
                        let cursor = sc.queries.len();
                        sc.queries.push(query);
                        cursors.push(cursor);
                        sc.cursors.push((name.clone(), cursor));
                    }
                    Decl::Handler { exit, conds, body } => {
                        let conds = conds.iter().map(|c| cond(c, sc)).collect::<Result<Vec<_>>>()?;
                        let declared = handlers.iter().flat_map(|h: &Handler| &h.conds).chain(&conds[..0]);
                        let mut seen: Vec<&Cond> = declared.collect();
                        for c in &conds {
                            if seen.contains(&c) {
                                return Err(SqlError::new(
                                    1413,
                                    "42000",
                                    "Duplicate handler declared in the same block",
                                ));
                            }
                            seen.push(c);
                        }
                        // A handler's body reaches no label outside it (1308).
                        let labels = std::mem::take(&mut sc.labels);
                        let body = op(body, names, sc);
                        sc.labels = labels;
                        handlers.push(Handler { exit: *exit, conds, body: body? });
                    }
                }
            }
            let body = ops(body, names, sc)?;
            sc.vars.truncate(depth);
            sc.conds.truncate(conds_depth);
            sc.cursors.truncate(cursors_depth);
            sc.labels.pop();
            Op::Block { label: id, inits, cursors, handlers, body }
        }
        Stmt::Open(c) => Op::Open(cursor(sc, c)?),
        Stmt::Close(c) => Op::Close(cursor(sc, c)?),
        Stmt::Fetch { cursor: c, targets } => Op::Fetch {
            cursor: cursor(sc, c)?,
            dests: targets.iter().map(|t| dest(t, names, sc)).collect::<Result<_>>()?,
        },
        Stmt::Set(items) => Op::Set(items.iter().map(|(t, e)| set_item(t, e, names, sc)).collect::<Result<_>>()?),
        Stmt::Prepare { name, from } => Op::Prepare { name: name.clone(), from: scalar(from, names, sc)? },
        Stmt::Execute { name, using } => Op::Execute {
            name: name.clone(),
            using: using.iter().map(|e| scalar(e, names, sc)).collect::<Result<_>>()?,
        },
        Stmt::Deallocate(name) => Op::Deallocate(name.clone()),
        Stmt::Text(text) => {
            refuse_locals(text, sc)?;
            Op::Text(text.clone())
        }
        Stmt::If { arms, otherwise } => Op::If {
            arms: arms.iter().map(|(c, b)| Ok((scalar(c, names, sc)?, ops(b, names, sc)?))).collect::<Result<_>>()?,
            otherwise: otherwise.as_ref().map(|b| ops(b, names, sc)).transpose()?,
        },
        Stmt::Case { operand, arms, otherwise } => {
            let operand = match operand {
                Some(e) => {
                    let slot = sc.slots.len();
                    sc.slots.push(Column::new("case", quire_engine::row::ColumnType::Int { unsigned: false }));
                    Some((slot, scalar(e, names, sc)?))
                }
                None => None,
            };
            let arms = arms
                .iter()
                .map(|(v, b)| {
                    let cond = match &operand {
                        // The operand's value is compared as a parameter.
                        Some((slot, _)) => scalar_with(&format!("?{slot} = ({v})"), names, sc)?,
                        None => scalar(v, names, sc)?,
                    };
                    Ok((cond, ops(b, names, sc)?))
                })
                .collect::<Result<_>>()?;
            let otherwise = otherwise.as_ref().map(|b| ops(b, names, sc)).transpose()?;
            Op::Case { operand, arms, otherwise }
        }
        Stmt::While { label, cond, body } => {
            let id = label_of(sc, label, true);
            let cond = scalar(cond, names, sc)?;
            let body = ops(body, names, sc)?;
            sc.labels.pop();
            Op::While { label: id, cond, body }
        }
        Stmt::Repeat { label, body, until } => {
            let id = label_of(sc, label, true);
            let body = ops(body, names, sc)?;
            let until = scalar(until, names, sc)?;
            sc.labels.pop();
            Op::Repeat { label: id, body, until }
        }
        Stmt::Loop { label, body } => {
            let id = label_of(sc, label, true);
            let body = ops(body, names, sc)?;
            sc.labels.pop();
            Op::Loop { label: id, body }
        }
        Stmt::Leave(l) => Op::Leave(find_label(sc, l, true)?),
        Stmt::Iterate(l) => Op::Iterate(find_label(sc, l, false)?),
        Stmt::Signal { sqlstate, named, message, errno } => Op::Signal {
            sqlstate: intern(&signal_state(sqlstate, *named, sc)?),
            message: message.as_ref().map(|e| signal_value(e, names, sc)).transpose()?,
            errno: errno.as_ref().map(|e| signal_value(e, names, sc)).transpose()?,
        },
        Stmt::Resignal { sqlstate, message, errno } => Op::Resignal {
            sqlstate: sqlstate
                .as_ref()
                .map(|(s, named)| signal_state(s, *named, sc).map(|s| intern(&s)))
                .transpose()?,
            message: message.as_ref().map(|e| signal_value(e, names, sc)).transpose()?,
            errno: errno.as_ref().map(|e| signal_value(e, names, sc)).transpose()?,
        },
        Stmt::GetDiagnostics(g) => Op::GetDiagnostics {
            stacked: g.stacked,
            condition: g.condition.as_ref().map(|e| signal_value(e, names, sc)).transpose()?,
            items: g
                .items
                .iter()
                .map(|(t, item)| match t {
                    Target::Name(n) if local(sc, n).is_none() => {
                        Err(SqlError::new(1327, "42000", format!("Undeclared variable: {n}")))
                    }
                    t => Ok((dest(t, names, sc)?, *item)),
                })
                .collect::<Result<_>>()?,
        },
        Stmt::Sql(text) => Op::Exec(Sql::new(statement(text, names, sc)?)),
        Stmt::Select(text) => {
            let mut stmt = crate::session::parse(text)?;
            if stmt.len() != 1 {
                return Err(SqlError::syntax(format!("near '{text}'")));
            }
            let mut stmt = stmt.remove(0);
            name_items(&mut stmt, sc);
            bind(&mut stmt, names, sc, true)?;
            Op::Select(Sql::new(stmt))
        }
        Stmt::Return(e) => Op::Return(scalar(e, names, sc)?),
        Stmt::Call { db, name, args } => Op::Call {
            db: db.clone(),
            name: name.clone(),
            args: args.iter().map(|a| Ok((scalar(a, names, sc)?, out_dest(a, sc)?))).collect::<Result<_>>()?,
        },
        Stmt::SelectInto { select, targets } => {
            let dests = targets.iter().map(|t| dest(t, names, sc)).collect::<Result<_>>()?;
            Op::SelectInto { sql: Sql::new(statement(select, names, sc)?), dests }
        }
    })
}

/// A handler's or a named condition's value (1319 for an unknown name).
fn cond(v: &CondValue, sc: &Scope) -> Result<Cond> {
    Ok(match v {
        CondValue::Code(c) => Cond::Code(*c),
        CondValue::State(s) => Cond::State(s.clone()),
        CondValue::Warning => Cond::Warning,
        CondValue::NotFound => Cond::NotFound,
        CondValue::Exception => Cond::Exception,
        CondValue::Named(n) => named_cond(sc, n)?,
    })
}

fn named_cond(sc: &Scope, name: &str) -> Result<Cond> {
    sc.conds
        .iter()
        .rev()
        .find(|(c, _)| c.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
        .ok_or_else(|| SqlError::new(1319, "42000", format!("Undefined CONDITION: {name}")))
}

/// SIGNAL's SQLSTATE: as written, or a named condition's (which must be
/// declared with one: 1646).
fn signal_state(sqlstate: &str, named: bool, sc: &Scope) -> Result<String> {
    if !named {
        return Ok(sqlstate.to_string());
    }
    match named_cond(sc, sqlstate)? {
        Cond::State(s) => Ok(s),
        _ => Err(SqlError::new(1646, "HY000", "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE")),
    }
}

fn cursor(sc: &Scope, name: &str) -> Result<usize> {
    sc.cursors
        .iter()
        .rev()
        .find(|(c, _)| c.eq_ignore_ascii_case(name))
        .map(|(_, id)| *id)
        .ok_or_else(|| SqlError::new(1324, "42000", format!("Undefined CURSOR: {name}")))
}

/// One DECLARE of a block whose own locals start at `sc.vars[block..]`.
fn declare(d: &Declare, names: &Names, sc: &mut Scope, block: usize) -> Result<(Vec<usize>, Option<Sql>)> {
    let mut p = sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(&d.data_type)
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    let dt = p.parse_data_type().map_err(|e| SqlError::syntax(e.to_string()))?;
    // The default is evaluated in the scope before these names exist.
    let default = d.default.as_ref().map(|e| scalar(e, names, sc)).transpose()?;
    let mut slots = Vec::new();
    for n in &d.names {
        let in_block = sc.vars[block..].iter().any(|(v, _)| v.eq_ignore_ascii_case(n));
        if in_block || slots.iter().any(|&s: &usize| sc.slots[s].name.eq_ignore_ascii_case(n)) {
            return Err(SqlError::new(1331, "42000", format!("Duplicate variable: {n}")));
        }
        let ty = crate::ddl::column_type(&dt, n)?;
        let slot = sc.slots.len();
        sc.slots.push(Column::new(n, ty));
        slots.push(slot);
    }
    for (n, &slot) in d.names.iter().zip(&slots) {
        sc.vars.push((n.clone(), slot));
    }
    Ok((slots, default))
}

fn dest(t: &Target, names: &Names, sc: &Scope) -> Result<Dest> {
    match t {
        Target::User(u) => Ok(Dest::User(u.clone())),
        Target::Name(n) => match local(sc, n) {
            Some(s) => Ok(Dest::Slot(s)),
            None => Err(SqlError::new(1193, "HY000", format!("Unknown system variable '{n}'"))),
        },
        Target::Old(_) => Err(SqlError::new(1362, "HY000", "Updating of OLD row is not allowed in trigger")),
        Target::System(_) => Err(SqlError::unsupported("a system variable as a SELECT ... INTO or FETCH target")),
        Target::New(c) => {
            let slot = row_slot(names, true, c)?;
            if !names.new_assignable {
                return Err(SqlError::new(1362, "HY000", "Updating of NEW row is not allowed in after trigger"));
            }
            Ok(Dest::Slot(slot))
        }
    }
}

/// One assignment of a SET: to a local or user variable, or (a target
/// that is no local) to a system variable, by a `SET` statement of the
/// session whose value has the locals bound.
fn set_item(t: &Target, e: &str, names: &Names, sc: &Scope) -> Result<(Dest, Sql)> {
    let system = match t {
        Target::System(lhs) => lhs.as_str(),
        Target::Name(n) if local(sc, n).is_none() && crate::sysvars::lookup(n).is_some() => n.as_str(),
        _ => return Ok((dest(t, names, sc)?, scalar(e, names, sc)?)),
    };
    if names.kind != Kind::Procedure {
        // The session is not the program's to change (quire's functions
        // and triggers run over a shared session).
        if system.to_ascii_lowercase().contains("autocommit") {
            return Err(SqlError::new(
                1445,
                "HY000",
                "Not allowed to set autocommit from a stored function or trigger",
            ));
        }
        return Err(SqlError::unsupported("SET of a system variable in a stored function or trigger"));
    }
    let sql = match super::session_stmts::takes_no_equals(system) {
        true => format!("SET {system} {e}"),
        false => format!("SET {system} = {e}"),
    };
    Ok((Dest::System, Sql::new(statement(&sql, names, sc)?)))
}

/// A [`Stmt::Text`] is compiled from its text when it runs, without the
/// body's locals: one that names a local (MariaDB binds it, in CREATE
/// TABLE ... SELECT) is refused rather than read as a column.
fn refuse_locals(text: &str, sc: &Scope) -> Result<()> {
    let Ok(stmts) = crate::session::parse(text) else { return Ok(()) };
    for stmt in &stmts {
        let named = ast::visit_expressions(stmt, |e| match e {
            ast::Expr::Identifier(i) if local(sc, &i.value).is_some() => std::ops::ControlFlow::Break(()),
            _ => std::ops::ControlFlow::Continue(()),
        });
        if named.is_break() {
            return Err(SqlError::unsupported("a local variable in a DDL or SHOW statement of a procedure"));
        }
    }
    Ok(())
}

/// Where a CALL argument can take an OUT value back: a local or a user
/// variable named alone.
fn out_dest(text: &str, sc: &Scope) -> Result<Option<Dest>> {
    use sqlparser::tokenizer::Token as T;
    let toks = crate::routine::parse::tokens(text)?;
    let sig: Vec<&T> = toks.iter().map(|t| &t.token).filter(|t| !matches!(t, T::Whitespace(_))).collect();
    Ok(match sig.as_slice() {
        [T::Word(w)] if w.quote_style.is_none() && w.value.starts_with('@') && !w.value.starts_with("@@") => {
            Some(Dest::User(w.value[1..].to_ascii_lowercase()))
        }
        [T::AtSign, T::SingleQuotedString(u) | T::DoubleQuotedString(u)] => Some(Dest::User(u.to_ascii_lowercase())),
        [T::Word(w)] => local(sc, &w.value).map(Dest::Slot),
        _ => None,
    })
}

fn local(sc: &Scope, name: &str) -> Option<usize> {
    sc.vars.iter().rev().find(|(v, _)| v.eq_ignore_ascii_case(name)).map(|(_, s)| *s)
}

/// The slot of NEW.`col` or OLD.`col`: 1363 when the event has no such
/// row, 1054 when the table has no such column.
fn row_slot(names: &Names, new: bool, col: &str) -> Result<usize> {
    let (has, which) = if new { (names.has_new, "NEW") } else { (names.has_old, "OLD") };
    if !has {
        return Err(SqlError::new(1363, "HY000", format!("There is no {which} row in on {} trigger", names.event)));
    }
    let i = names
        .columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(col))
        .ok_or_else(|| SqlError::unknown_column(col, which))?;
    Ok(if new { i } else { names.columns.len() + i })
}

/// A SIGNAL item's value: a literal, a local or a user variable only
/// (MySQL's `signal_allowed_expr`); a name that is no local is 1327.
fn signal_value(text: &str, names: &Names, sc: &Scope) -> Result<Sql> {
    let toks = crate::routine::parse::tokens(text)?;
    let mut sig = toks.iter().filter(|t| !matches!(t.token, sqlparser::tokenizer::Token::Whitespace(_)));
    use sqlparser::tokenizer::Token as T;
    match (sig.next().map(|t| &t.token), sig.next()) {
        (Some(T::SingleQuotedString(_) | T::DoubleQuotedString(_) | T::Number(..)), None) => {}
        (Some(T::Word(w)), None) if w.value.starts_with('@') || local(sc, &w.value).is_some() => {}
        (Some(T::Word(w)), _) => return Err(SqlError::new(1327, "42000", format!("Undeclared variable: {}", w.value))),
        _ => return Err(SqlError::syntax(format!("near '{text}'"))),
    }
    scalar(text, names, sc)
}

fn scalar(text: &str, names: &Names, sc: &Scope) -> Result<Sql> {
    scalar_with(text, names, sc)
}

/// `SELECT <text>` with its names bound.
fn scalar_with(text: &str, names: &Names, sc: &Scope) -> Result<Sql> {
    Ok(Sql::new(statement(&format!("SELECT {text}"), names, sc)?))
}

/// Parses one statement and binds its names to slots.
fn statement(text: &str, names: &Names, sc: &Scope) -> Result<ast::Statement> {
    let mut stmts = crate::session::parse(text)?;
    if stmts.len() != 1 {
        return Err(SqlError::syntax(format!("near '{text}'")));
    }
    let mut stmt = stmts.remove(0);
    bind(&mut stmt, names, sc, false)?;
    Ok(stmt)
}

/// A result set's columns are named by the expressions as written (a
/// local `a` names its column `a`, not the parameter it becomes).
fn name_items(stmt: &mut ast::Statement, sc: &Scope) {
    let ast::Statement::Query(q) = stmt else { return };
    let ast::SetExpr::Select(sel) = q.body.as_mut() else { return };
    for item in &mut sel.projection {
        if let ast::SelectItem::UnnamedExpr(e) = item {
            let mut uses_local = false;
            let _ = ast::visit_expressions(e, |x| {
                if let ast::Expr::Identifier(i) = x {
                    uses_local |= local(sc, &i.value).is_some();
                }
                std::ops::ControlFlow::<()>::Continue(())
            });
            if uses_local {
                let alias = ast::Ident::with_quote('`', e.to_string());
                *item = ast::SelectItem::ExprWithAlias { expr: e.clone(), alias };
            }
        }
    }
}

/// A slot's parameter marker; `typed`: cast to the slot's type, so that a
/// result set's column has the variable's type (a parameter's own type
/// is its value's).
fn slot_marker(slot: usize, sc: &Scope, typed: bool) -> ast::Expr {
    use quire_engine::row::ColumnType as T;
    let marker = ast::Expr::Value(ast::Value::Placeholder(format!("?{slot}")).with_empty_span());
    if !typed {
        return marker;
    }
    let target = match sc.slots[slot].ty {
        T::TinyInt { unsigned }
        | T::TinyInt1 { unsigned }
        | T::SmallInt { unsigned }
        | T::MediumInt { unsigned }
        | T::Int { unsigned }
        | T::BigInt { unsigned } => (if unsigned { "UNSIGNED" } else { "SIGNED" }).to_string(),
        T::Decimal { precision, scale, .. } => format!("DECIMAL({precision},{scale})"),
        T::Double { .. } | T::Float { .. } => "DOUBLE".into(),
        T::Date => "DATE".into(),
        T::DateTime { fsp } => format!("DATETIME({fsp})"),
        T::Time { fsp } => format!("TIME({fsp})"),
        _ => return marker,
    };
    match sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(&format!("CAST(NULL AS {target})"))
        .and_then(|mut p| p.parse_expr())
    {
        Ok(ast::Expr::Cast { kind, data_type, format, .. }) => {
            ast::Expr::Cast { kind, expr: Box::new(marker), data_type, format }
        }
        _ => marker,
    }
}

/// Replaces local variables and NEW.col / OLD.col with `?slot` (a local
/// shadows a column of the same name, as in MySQL).
fn bind(stmt: &mut ast::Statement, names: &Names, sc: &Scope, typed: bool) -> Result<()> {
    use std::ops::ControlFlow;
    let marker = |slot: usize| slot_marker(slot, sc, typed);
    let r = ast::visit_expressions_mut(stmt, |e| {
        match e {
            ast::Expr::Identifier(i) if i.quote_style != Some('\'') && i.quote_style != Some('"') => {
                if let Some(slot) = local(sc, &i.value) {
                    *e = marker(slot);
                }
            }
            ast::Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let q = &parts[0].value;
                let new = q.eq_ignore_ascii_case("NEW");
                if new || q.eq_ignore_ascii_case("OLD") {
                    match row_slot(names, new, &parts[1].value) {
                        Ok(slot) => *e = marker(slot),
                        Err(err) => return ControlFlow::Break(err),
                    }
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    match r {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// SQLSTATEs of SIGNAL, kept for the life of the process (an error's
/// state is `&'static str`); one per distinct state written.
fn intern(s: &str) -> &'static str {
    static STATES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut g = STATES.lock();
    if let Some(k) = g.iter().find(|k| **k == s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    g.push(k);
    k
}

impl Prepared {
    /// Runs a routine over its arguments (converted to the parameters'
    /// types): the parameters' values at the end, and what RETURN gave.
    pub fn run_routine(&self, host: &mut dyn Host, args: Vec<Value>) -> Result<(Vec<Value>, Option<Value>)> {
        let n = args.len();
        let mut frame = args;
        frame.resize(self.slots.len(), Value::Null);
        let mut vm = Vm::new(host, self, frame);
        let returned = match vm.exec(&self.body)? {
            Flow::Return(v) => Some(v),
            _ => None,
        };
        vm.frame.truncate(n);
        Ok((vm.frame, returned))
    }

    /// Runs the program over `row` (NEW then OLD, `Names::row_slots`
    /// values); returns the row as the program left it.
    pub fn run(&self, host: &mut dyn Host, row: Vec<Value>) -> Result<Vec<Value>> {
        let n = row.len();
        let mut frame = row;
        frame.resize(self.slots.len(), Value::Null);
        let mut vm = Vm::new(host, self, frame);
        vm.exec(&self.body)?;
        vm.frame.truncate(n);
        Ok(vm.frame)
    }
}

struct Vm<'h, 'p> {
    host: &'h mut dyn Host,
    slots: &'p [Column],
    frame: Vec<Value>,
    /// Invariant 3: (block label, its handlers).
    scopes: Vec<(usize, &'p [Handler])>,
    propagating: bool,
    /// Invariant 4: each cursor's rows still to fetch, while it is open.
    cursors: Vec<Option<std::vec::IntoIter<Vec<Value>>>>,
    queries: &'p [Sql],
    /// Invariant 5: the handlers running, innermost last.
    active: Vec<Active>,
}

/// A handler that is running (RESIGNAL, GET STACKED DIAGNOSTICS).
struct Active {
    /// The condition that activated it, and its number in the area.
    cond: Condition,
    number: u64,
    /// The diagnostics area and ROW_COUNT() as they were when it began
    /// (what GET STACKED DIAGNOSTICS reads).
    stacked: Vec<Condition>,
    row_count: i64,
    /// It ran RESIGNAL: what the area held when it began stays there.
    resignaled: bool,
}

/// Errors no handler may take: the statement was killed or timed out.
fn unhandleable(e: &SqlError) -> bool {
    matches!(e.code, 1317 | 1927 | 3024)
}

fn truth(v: &Value) -> bool {
    crate::expr::truth(v) == Some(true)
}

impl<'h, 'p> Vm<'h, 'p> {
    fn new(host: &'h mut dyn Host, p: &'p Prepared, frame: Vec<Value>) -> Self {
        let cursors = p.cursors.iter().map(|_| None).collect();
        Vm {
            host,
            slots: &p.slots,
            frame,
            scopes: Vec::new(),
            propagating: false,
            cursors,
            queries: &p.cursors,
            active: Vec::new(),
        }
    }

    /// Runs one statement, offering what it raises to the handlers in
    /// scope (invariant 3).
    fn exec(&mut self, o: &'p Op) -> Result<Flow> {
        self.host.check_interrupt()?;
        if self.scopes.is_empty() {
            return self.exec_op(o);
        }
        let compound = matches!(
            o,
            Op::Block { .. } | Op::If { .. } | Op::Case { .. } | Op::While { .. } | Op::Repeat { .. } | Op::Loop { .. }
        );
        let seq = self.host.diag_seq();
        match self.exec_op(o) {
            Ok(Flow::Next) if !compound => {
                // Notes too, when sql_notes keeps them (not SQLWARNING's).
                for (n, c) in self.host.conditions_since(seq) {
                    if c.level == Level::Error {
                        continue;
                    }
                    if let Some(h) = self.find(c.code, c.state, c.level) {
                        return self.activate(h, c, n);
                    }
                }
                Ok(Flow::Next)
            }
            Err(e) if self.propagating || unhandleable(&e) => Err(e),
            Err(e) => match self.find(e.code, e.state, Level::Error) {
                Some(h) => {
                    let c = Condition::of_error(&e);
                    let n = self.recorded(&c, seq)?;
                    self.activate(h, c, n)
                }
                None => {
                    self.propagating = true;
                    Err(e)
                }
            },
            r => r,
        }
    }

    /// The number of error `c` in the diagnostics area: a statement
    /// recorded it (raised since `seq`), or RESIGNAL did (the area's last
    /// condition), or it is recorded now (SIGNAL, the interpreter's own
    /// errors).
    fn recorded(&mut self, c: &Condition, seq: u64) -> Result<u64> {
        if let Some((n, _)) = self.host.conditions_since(seq).into_iter().rev().find(|(_, x)| x == c) {
            return Ok(n);
        }
        if let Some((n, _)) = self.host.conditions_since(0).pop().filter(|(_, x)| x == c) {
            return Ok(n);
        }
        self.host.warn(c.clone())?;
        Ok(self.host.diag_seq())
    }

    /// The handler for a condition: the innermost scope that has one,
    /// and in it the most specific, the first declared among equals.
    fn find(&self, code: u16, state: &str, level: Level) -> Option<(usize, &'p Handler)> {
        for (i, (_, hs)) in self.scopes.iter().enumerate().rev() {
            let best = hs
                .iter()
                .filter_map(|h| h.conds.iter().filter_map(|c| c.rank(code, state, level)).max().map(|r| (r, h)))
                .fold(None::<(u8, &Handler)>, |b, (r, h)| match b {
                    Some((br, _)) if br >= r => b,
                    _ => Some((r, h)),
                });
            if let Some((_, h)) = best {
                return Some((i, h));
            }
        }
        None
    }

    /// Runs handler `h` of scope `i` for condition `cond` (numbered
    /// `number`) with only the scopes outside its block in force; CONTINUE
    /// goes on after the statement that raised the condition, EXIT leaves
    /// the handler's block. What the area held when it began leaves it
    /// then (invariant 5).
    fn activate(&mut self, (i, h): (usize, &'p Handler), cond: Condition, number: u64) -> Result<Flow> {
        let inner = self.scopes.split_off(i);
        let label = inner[0].0;
        let taken = self.host.diag_seq();
        let (stacked, row_count) = (self.host.diagnostics(), self.host.row_count());
        self.active.push(Active { cond, number, stacked, row_count, resignaled: false });
        let r = self.exec(&h.body);
        if self.active.pop().is_some_and(|a| !a.resignaled) {
            self.host.forget_upto(taken);
        }
        self.scopes.extend(inner);
        match r {
            Err(e) => {
                self.propagating = true;
                Err(e)
            }
            Ok(Flow::Return(v)) => Ok(Flow::Return(v)),
            // An outer block's EXIT handler took what this body raised.
            Ok(f @ (Flow::Leave(_) | Flow::Iterate(_))) => Ok(f),
            Ok(_) if h.exit => Ok(Flow::Leave(label)),
            Ok(_) => Ok(Flow::Next),
        }
    }

    fn eval(&mut self, e: &Sql) -> Result<Value> {
        e.value(self.host, &self.frame)
    }

    fn assign(&mut self, d: &Dest, v: Value) -> Result<()> {
        match d {
            Dest::Slot(s) => {
                self.frame[*s] = self.host.convert(&self.slots[*s], v)?;
            }
            Dest::User(u) => self.host.set_user_var(u, v),
            Dest::System => return Err(SqlError::internal("a system variable assigned a value")),
        }
        Ok(())
    }

    fn list(&mut self, body: &'p [Op]) -> Result<Flow> {
        for o in body {
            match self.exec(o)? {
                Flow::Next => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Next)
    }

    fn exec_op(&mut self, o: &'p Op) -> Result<Flow> {
        match o {
            Op::Block { label, inits, cursors, handlers, body } => {
                for (slots, default) in inits {
                    let v = match default {
                        Some(e) => self.eval(e)?,
                        None => Value::Null,
                    };
                    for &s in slots {
                        self.assign(&Dest::Slot(s), v.clone())?;
                    }
                }
                let scoped = !handlers.is_empty();
                if scoped {
                    self.scopes.push((*label, handlers));
                }
                let r = self.list(body);
                if scoped {
                    self.scopes.pop();
                }
                for &c in cursors {
                    self.cursors[c] = None;
                }
                match r? {
                    Flow::Leave(l) if l == *label => Ok(Flow::Next),
                    f => Ok(f),
                }
            }
            Op::Open(c) => {
                if self.cursors[*c].is_some() {
                    return Err(SqlError::new(1325, "24000", "Cursor is already open"));
                }
                let plan = self.queries[*c].plan(self.host)?;
                let rows = self.host.run(&plan, &self.frame)?;
                self.cursors[*c] = Some(rows.into_iter());
                Ok(Flow::Next)
            }
            Op::Fetch { cursor, dests } => {
                let Some(rows) = self.cursors[*cursor].as_mut() else {
                    return Err(SqlError::new(1326, "24000", "Cursor is not open"));
                };
                let Some(row) = rows.next() else {
                    return Err(SqlError::new(1329, "02000", "No data - zero rows fetched, selected, or processed"));
                };
                if row.len() != dests.len() {
                    return Err(SqlError::new(1328, "HY000", "Incorrect number of FETCH variables"));
                }
                for (d, v) in dests.iter().zip(row) {
                    self.assign(d, v)?;
                }
                Ok(Flow::Next)
            }
            Op::Close(c) => {
                if self.cursors[*c].take().is_none() {
                    return Err(SqlError::new(1326, "24000", "Cursor is not open"));
                }
                Ok(Flow::Next)
            }
            Op::Set(items) => {
                for (d, e) in items {
                    if let Dest::System = d {
                        let plan = e.plan(self.host)?;
                        self.host.run(&plan, &self.frame)?;
                        continue;
                    }
                    let v = self.eval(e)?;
                    self.assign(d, v)?;
                }
                Ok(Flow::Next)
            }
            Op::Prepare { name, from } => {
                let text = self.eval(from)?;
                self.host.dynamic(crate::dynamic_sql::Action::Prepare { name: name.clone(), text })?;
                Ok(Flow::Next)
            }
            Op::Execute { name, using } => {
                let args = using.iter().map(|e| self.eval(e)).collect::<Result<_>>()?;
                self.host.dynamic(crate::dynamic_sql::Action::Execute { name: name.clone(), args })?;
                Ok(Flow::Next)
            }
            Op::Deallocate(name) => {
                self.host.dynamic(crate::dynamic_sql::Action::Deallocate(name.clone()))?;
                Ok(Flow::Next)
            }
            Op::Text(text) => {
                self.host.run_text(text)?;
                Ok(Flow::Next)
            }
            Op::If { arms, otherwise } => {
                for (c, body) in arms {
                    if truth(&self.eval(c)?) {
                        return self.list(body);
                    }
                }
                match otherwise {
                    Some(b) => self.list(b),
                    None => Ok(Flow::Next),
                }
            }
            Op::Case { operand, arms, otherwise } => {
                if let Some((slot, e)) = operand {
                    self.frame[*slot] = self.eval(e)?;
                }
                for (c, body) in arms {
                    if truth(&self.eval(c)?) {
                        return self.list(body);
                    }
                }
                match otherwise {
                    Some(b) => self.list(b),
                    None => Err(SqlError::new(1339, "20000", "Case not found for CASE statement")),
                }
            }
            Op::While { label, cond, body } => {
                while truth(&self.eval(cond)?) {
                    match self.list(body)? {
                        Flow::Next => {}
                        Flow::Iterate(l) if l == *label => {}
                        Flow::Leave(l) if l == *label => break,
                        f => return Ok(f),
                    }
                }
                Ok(Flow::Next)
            }
            Op::Repeat { label, body, until } => loop {
                match self.list(body)? {
                    Flow::Next => {}
                    Flow::Iterate(l) if l == *label => continue,
                    Flow::Leave(l) if l == *label => return Ok(Flow::Next),
                    f => return Ok(f),
                }
                if truth(&self.eval(until)?) {
                    return Ok(Flow::Next);
                }
            },
            Op::Loop { label, body } => loop {
                match self.list(body)? {
                    Flow::Next => {}
                    Flow::Iterate(l) if l == *label => {}
                    Flow::Leave(l) if l == *label => return Ok(Flow::Next),
                    f => return Ok(f),
                }
            },
            Op::Return(e) => Ok(Flow::Return(self.eval(e)?)),
            Op::Select(sql) => {
                let plan = sql.plan(self.host)?;
                self.host.result_set(&plan, &self.frame)?;
                Ok(Flow::Next)
            }
            Op::Call { db, name, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for (e, _) in args {
                    vals.push(self.eval(e)?);
                }
                let assignable: Vec<bool> = args.iter().map(|(_, d)| d.is_some()).collect();
                let out = self.host.call(db.as_deref(), name, vals, &assignable)?;
                for ((_, d), v) in args.iter().zip(out) {
                    if let (Some(d), Some(v)) = (d, v) {
                        self.assign(d, v)?;
                    }
                }
                Ok(Flow::Next)
            }
            Op::Leave(l) => Ok(Flow::Leave(*l)),
            Op::Iterate(l) => Ok(Flow::Iterate(*l)),
            Op::Signal { sqlstate, message, errno } => self.signal(sqlstate, message.as_ref(), errno.as_ref()),
            Op::Resignal { sqlstate, message, errno } => self.resignal(*sqlstate, message.as_ref(), errno.as_ref()),
            Op::GetDiagnostics { stacked, condition, items } => {
                self.get_diagnostics(*stacked, condition.as_ref(), items)
            }
            Op::Exec(sql) => {
                let plan = sql.plan(self.host)?;
                self.host.run(&plan, &self.frame)?;
                Ok(Flow::Next)
            }
            Op::SelectInto { sql, dests } => {
                let plan = sql.plan(self.host)?;
                let rows = self.host.run(&plan, &self.frame)?;
                self.host.selected_into(rows.len() as u64);
                if rows.len() > 1 {
                    return Err(SqlError::new(1172, "42000", "Result consisted of more than one row"));
                }
                let Some(row) = rows.into_iter().next() else {
                    let text = "No data - zero rows fetched, selected, or processed";
                    self.host.warn(Condition::new(Level::Warning, 1329, text))?;
                    return Ok(Flow::Next);
                };
                if row.len() != dests.len() {
                    return Err(SqlError::new(
                        1222,
                        "21000",
                        "The used SELECT statements have a different number of columns",
                    ));
                }
                for (d, v) in dests.iter().zip(row) {
                    self.assign(d, v)?;
                }
                Ok(Flow::Next)
            }
        }
    }

    /// SIGNAL: class 01 is a warning (execution goes on), 02 "not found",
    /// anything else an error; MYSQL_ERRNO and MESSAGE_TEXT default as in
    /// MySQL (1642 / 1643 / 1644).
    fn signal(&mut self, sqlstate: &'static str, message: Option<&Sql>, errno: Option<&Sql>) -> Result<Flow> {
        let (level, default_code, default_text) = signal_defaults(sqlstate);
        let (code, text) = self.signal_items(message, errno)?;
        let c =
            Condition::with_state(level, code.unwrap_or(default_code), sqlstate, text.unwrap_or(default_text.into()));
        if level == Level::Warning {
            self.host.warn(c)?;
            return Ok(Flow::Next);
        }
        Err(c.into_error())
    }

    /// SIGNAL's and RESIGNAL's MYSQL_ERRNO and MESSAGE_TEXT, when set.
    fn signal_items(&mut self, message: Option<&Sql>, errno: Option<&Sql>) -> Result<(Option<u16>, Option<String>)> {
        let code = match errno {
            Some(e) => {
                let v = self.eval(e)?;
                match crate::expr::to_decimal(&v).map(|d| d.to_f64()) {
                    Some(n) if (1.0..=65535.0).contains(&n) && n.fract() == 0.0 => Some(n as u16),
                    _ => {
                        return Err(SqlError::new(
                            1231,
                            "42000",
                            format!("Variable 'MYSQL_ERRNO' can't be set to the value of '{}'", v),
                        ))
                    }
                }
            }
            None => None,
        };
        let text = match message {
            Some(e) => match self.eval(e)? {
                Value::Null => {
                    return Err(SqlError::new(
                        1231,
                        "42000",
                        "Variable 'MESSAGE_TEXT' can't be set to the value of 'NULL'",
                    ))
                }
                v => Some(crate::expr::as_string(&v)),
            },
            None => None,
        };
        Ok((code, text))
    }
}

/// A SIGNAL'd condition's level and its MYSQL_ERRNO and MESSAGE_TEXT
/// when not set, by SQLSTATE class (MySQL's 1642 / 1643 / 1644).
fn signal_defaults(sqlstate: &str) -> (Level, u16, &'static str) {
    match &sqlstate[..2] {
        "01" => (Level::Warning, 1642, "Unhandled user-defined warning condition"),
        "02" => (Level::Error, 1643, "Unhandled user-defined not found condition"),
        _ => (Level::Error, 1644, "Unhandled user-defined exception condition"),
    }
}
