//! Planning single-table statements: which index answers the WHERE
//! clause (`Access`), and result column metadata.
//!
//! The access path is chosen from the WHERE clause's top-level AND terms:
//! equality on every primary key column is a point read; equality, IN,
//! BETWEEN or comparisons on the first column of the primary key, else of
//! a secondary index, bound a range scan; anything else scans the table.
//! The whole WHERE is always evaluated again on each row found, so the
//! access path only has to be a superset of the answer.

use std::ops::Bound;
use std::sync::Arc;

use quire_engine::row::{ColumnType, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::Table;

use crate::expr::{AggFn, BinOp, Expr};

/// A table a statement reads or writes.
#[derive(Clone)]
pub struct TableRef {
    pub db: String,
    pub name: String,
    pub alias: Option<String>,
    pub table: Arc<Table>,
    /// The whole schema: with the hidden row id last, if the table has one
    /// (rows read from the engine carry it; UPDATE and DELETE find rows
    /// by it).
    pub schema: TableSchema,
    /// The names of the columns SQL sees (never the hidden row id): a
    /// row's first `columns.len()` values.
    pub columns: Vec<String>,
}

impl std::fmt::Debug for TableRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.db, self.name)
    }
}

impl TableRef {
    pub fn new(db: &str, name: &str, alias: Option<String>, table: Arc<Table>) -> Self {
        let schema = table.schema();
        let columns = schema.visible_columns().iter().map(|c| c.name.clone()).collect();
        Self { db: db.to_string(), name: name.to_string(), alias, table, schema, columns }
    }

    /// Key columns of an index.
    pub fn index_columns(&self, index: IndexRef) -> &[usize] {
        match index {
            IndexRef::Primary => &self.schema.primary_key,
            IndexRef::Secondary(i) => &self.schema.indexes[i].columns,
        }
    }
}

/// How rows are found.
#[derive(Clone, Debug)]
pub enum Access {
    /// Equality on every primary key column (values in key order).
    Point(Vec<Expr>),
    /// A range of an index, bounds on a prefix of its columns.
    Range {
        index: IndexRef,
        lo: Bound<Vec<Expr>>,
        hi: Bound<Vec<Expr>>,
    },
    /// Several equality ranges (IN on the first column).
    Points {
        index: IndexRef,
        keys: Vec<Expr>,
    },
    Full,
}

impl Access {
    pub fn index(&self) -> Option<IndexRef> {
        match self {
            Access::Point(_) => Some(IndexRef::Primary),
            Access::Range { index, .. } | Access::Points { index, .. } => Some(*index),
            Access::Full => None,
        }
    }
}

fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Bin(BinOp::And, l, r) => {
            conjuncts(l, out);
            conjuncts(r, out);
        }
        Expr::Chain(first, steps) if steps.iter().all(|s| s.op == BinOp::And && s.coll.is_none()) => {
            conjuncts(first, out);
            for s in steps {
                conjuncts(&s.rhs, out);
            }
        }
        other => out.push(other),
    }
}

/// An expression that does not depend on the row.
fn constant(e: &Expr) -> bool {
    constant_with(e, &|_| false)
}

/// An expression computable before a row is read: constant but for the
/// columns `col` accepts (in a join, those of the tables read before).
pub fn constant_with(e: &Expr, col: &dyn Fn(usize) -> bool) -> bool {
    match e {
        Expr::Lit(_) | Expr::Param(_) | Expr::SysVar { .. } => true,
        Expr::Col(c) => col(*c),
        Expr::Neg(x) => constant_with(x, col),
        Expr::Bin(op, l, r) => {
            matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                && constant_with(l, col)
                && constant_with(r, col)
        }
        Expr::Chain(first, steps) => {
            constant_with(first, col)
                && steps.iter().all(|s| {
                    matches!(s.op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) && constant_with(&s.rhs, col)
                })
        }
        Expr::Func(name, args) => {
            !matches!(name.as_str(), "rand" | "now" | "current_timestamp" | "sysdate" | "sleep")
                && !crate::user_lock::is_lock_func(name)
                && !crate::stored::func::is_stored(name)
                && args.iter().all(|a| constant_with(a, col))
        }
        // A correlated subquery's outer value is fixed for one execution.
        Expr::Outer(_) => true,
        _ => false,
    }
}

/// Bounds found on one column.
#[derive(Default)]
struct ColBounds {
    eq: Option<Expr>,
    list: Option<Vec<Expr>>,
    lo: Option<(Expr, bool)>,
    hi: Option<(Expr, bool)>,
}

fn bounds_for(terms: &[&Expr], col: usize, avail: &dyn Fn(&Expr) -> bool) -> ColBounds {
    let constant = avail;
    let mut b = ColBounds::default();
    for t in terms {
        // A column's own collation is its index's: the bounds hold.
        let t = match t {
            Expr::Collate(_, x) => &**x,
            t => *t,
        };
        match t {
            Expr::Bin(op, l, r) => {
                let (c, v, op) = match (&**l, &**r) {
                    (Expr::Col(c), v) if constant(v) => (*c, v, *op),
                    (v, Expr::Col(c)) if constant(v) => (*c, v, flip(*op)),
                    _ => continue,
                };
                if c != col {
                    continue;
                }
                match op {
                    BinOp::Eq => b.eq = Some(v.clone()),
                    BinOp::Gt => b.lo = Some((v.clone(), false)),
                    BinOp::Ge => b.lo = Some((v.clone(), true)),
                    BinOp::Lt => b.hi = Some((v.clone(), false)),
                    BinOp::Le => b.hi = Some((v.clone(), true)),
                    _ => {}
                }
            }
            Expr::Between { expr, low, high, negated: false }
                if matches!(**expr, Expr::Col(c) if c == col) && constant(low) && constant(high) =>
            {
                b.lo = Some(((**low).clone(), true));
                b.hi = Some(((**high).clone(), true));
            }
            Expr::InList { expr, list, negated: false, .. }
                if matches!(**expr, Expr::Col(c) if c == col) && list.iter().all(constant) && !list.is_empty() =>
            {
                b.list = Some(list.clone());
            }
            _ => {}
        }
    }
    b
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

/// Whether reading `access` in index order (forward, or backward for
/// `Some(true)`) yields the rows already in `order`: the ORDER BY columns
/// follow the index's own (a secondary index's then the primary key's, as
/// its entries are ordered), skipping columns that `filter` binds to one
/// value by equality, all in one direction. So `WHERE a = 1 AND b = 2
/// ORDER BY c LIMIT 1` on an index (a, b, c) reads one entry, and locks
/// one row under FOR UPDATE, instead of sorting (and locking) all of
/// `a = 1 AND b = 2`. `None` when a sort is needed.
pub fn order_by_index(t: &TableRef, access: &Access, filter: Option<&Expr>, order: &[(Expr, bool)]) -> Option<bool> {
    if matches!(access, Access::Points { .. } | Access::Point(_)) || order.is_empty() {
        return None;
    }
    let desc = order[0].1;
    let mut wanted = Vec::with_capacity(order.len());
    for (e, d) in order {
        match e {
            Expr::Col(c) if *d == desc => wanted.push(*c),
            _ => return None,
        }
    }
    let terms = filter.map(and_terms).unwrap_or_default();
    // One value for every row: equality to a constant, and for a string
    // column only to a string literal (`s = 5` holds for '5', '05' and
    // '5a'; a parameter's type is known only when it is bound, and cached
    // plans see literals as parameters).
    let fixed = |c: usize| {
        bounds_for(&terms, c, &constant)
            .eq
            .is_some_and(|v| !t.schema.columns[c].ty.is_string() || matches!(v, Expr::Lit(Value::Str(_))))
    };
    wanted.retain(|&c| !fixed(c));
    let index = access.index().unwrap_or(IndexRef::Primary);
    let mut cols: Vec<usize> = t.index_columns(index).to_vec();
    match index {
        // Entries are in the order of a column's prefix, not of its
        // values: no order from the first cut column on.
        IndexRef::Secondary(i) if t.schema.indexes[i].has_prefix() => {
            let def = &t.schema.indexes[i];
            cols.truncate((0..cols.len()).find(|&k| def.prefix_of(k).is_some()).unwrap_or(cols.len()));
        }
        IndexRef::Secondary(_) => {
            cols.extend(t.schema.primary_key.iter().filter(|c| !cols.contains(c)).collect::<Vec<_>>());
        }
        IndexRef::Primary => {}
    }
    let mut next = wanted.iter().peekable();
    for c in cols {
        match next.peek() {
            None => break,
            Some(&&w) if w == c => {
                next.next();
            }
            Some(_) if fixed(c) => {}
            Some(_) => return None,
        }
    }
    next.peek().is_none().then_some(desc)
}

/// Chooses how to find the rows `filter` may accept.
pub fn choose_access(t: &TableRef, filter: Option<&Expr>) -> Access {
    let Some(f) = filter else { return Access::Full };
    let mut terms = Vec::new();
    conjuncts(f, &mut terms);
    choose_access_at(t, 0, &terms, &constant)
}

/// The top-level AND terms of `e`.
pub fn and_terms(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    conjuncts(e, &mut out);
    out
}

/// Whether `e` is the same for every row (usable as an index bound).
pub fn is_constant(e: &Expr) -> bool {
    constant(e)
}

/// [`choose_access`] for a table whose columns sit at `offset` in a wider
/// row (a join): a bound may be any expression `avail` accepts (one
/// computable before the table is read, e.g. from the tables joined
/// before it); the bounds are evaluated on that wider row.
pub fn choose_access_at(t: &TableRef, offset: usize, terms: &[&Expr], avail: &dyn Fn(&Expr) -> bool) -> Access {
    // Every primary key column bound by equality: a point read, chosen
    // without consulting statistics (the OLTP hot path).
    if let Some(point) = point_access(t, offset, terms, avail) {
        return point;
    }
    crate::cost::cheapest(t, candidate_accesses(t, offset, terms, avail))
}

/// A point read when equality binds every primary key column.
fn point_access(t: &TableRef, offset: usize, terms: &[&Expr], avail: &dyn Fn(&Expr) -> bool) -> Option<Access> {
    if t.schema.has_row_id() {
        return None; // the hidden row id has no slot and no name
    }
    let pk = &t.schema.primary_key;
    let eqs: Vec<Option<Expr>> = pk.iter().map(|&c| bounds_for(terms, offset + c, avail).eq).collect();
    (!pk.is_empty() && eqs.iter().all(Option::is_some)).then(|| Access::Point(eqs.into_iter().flatten().collect()))
}

/// Every index access the terms allow, one per index at most, primary key
/// first then the secondary indexes in order (the fixed ranking); a point
/// read first when there is one. For EXPLAIN's `possible_keys`, and for
/// the cost model to choose from.
pub fn candidate_accesses(t: &TableRef, offset: usize, terms: &[&Expr], avail: &dyn Fn(&Expr) -> bool) -> Vec<Access> {
    let mut out: Vec<Access> = point_access(t, offset, terms, avail).into_iter().collect();
    // The clustered index of a table without a usable key is on the
    // hidden row id, which nothing can bound.
    let mut candidates = if t.schema.has_row_id() { vec![] } else { vec![IndexRef::Primary] };
    candidates.extend((0..t.schema.indexes.len()).map(IndexRef::Secondary));
    for index in candidates {
        if let Some(a) = index_access(t, index, offset, terms, avail) {
            if !(index == IndexRef::Primary && matches!(out.first(), Some(Access::Point(_)))) {
                out.push(a);
            }
        }
    }
    out
}

/// The access `index` gives: equality on a prefix of its columns then a
/// range on the next, IN on its first column, or a range on its first.
fn index_access(
    t: &TableRef,
    index: IndexRef,
    offset: usize,
    terms: &[&Expr],
    avail: &dyn Fn(&Expr) -> bool,
) -> Option<Access> {
    let cols = t.index_columns(index);
    let &first = cols.first()?;
    // Equality on a prefix, then a range on the next column.
    let mut prefix = Vec::new();
    for &c in cols {
        match bounds_for(terms, offset + c, avail).eq {
            Some(v) => prefix.push(v),
            None => break,
        }
    }
    if !prefix.is_empty() {
        let next = cols.get(prefix.len()).map(|&c| bounds_for(terms, offset + c, avail));
        let (mut lo, mut hi) = (prefix.clone(), prefix.clone());
        let (mut lo_inc, mut hi_inc) = (true, true);
        if let Some(nb) = next {
            if let Some((v, inc)) = nb.lo {
                lo.push(v);
                lo_inc = inc;
            }
            if let Some((v, inc)) = nb.hi {
                hi.push(v);
                hi_inc = inc;
            }
        }
        let lo = if lo_inc { Bound::Included(lo) } else { Bound::Excluded(lo) };
        let hi = if hi_inc { Bound::Included(hi) } else { Bound::Excluded(hi) };
        return Some(Access::Range { index, lo, hi });
    }
    let b = bounds_for(terms, offset + first, avail);
    // Two values sharing a prefix would read the same entries twice.
    let cut = matches!(index, IndexRef::Secondary(i) if t.schema.indexes[i].prefix_of(0).is_some());
    if let Some(list) = b.list.filter(|_| !cut) {
        return Some(Access::Points { index, keys: list });
    }
    if b.lo.is_some() || b.hi.is_some() {
        let lo = match b.lo {
            Some((v, true)) => Bound::Included(vec![v]),
            Some((v, false)) => Bound::Excluded(vec![v]),
            None => Bound::Unbounded,
        };
        let hi = match b.hi {
            Some((v, true)) => Bound::Included(vec![v]),
            Some((v, false)) => Bound::Excluded(vec![v]),
            None => Bound::Unbounded,
        };
        return Some(Access::Range { index, lo, hi });
    }
    None
}

/// What type inference knows of the columns an expression reads
/// (`Expr::Col(i)`): one table's, or the slots of a join (`rel`).
pub trait ColTypes {
    /// The stored type of column `i`, when it is a table's column.
    fn col_type(&self, i: usize) -> Option<ColumnType>;
    /// The result type of column `i`.
    fn col_meta(&self, i: usize) -> Option<MetaType> {
        self.col_type(i).map(MetaType::of_column)
    }
    /// The result type of window function `i` ([`Expr::Window`]).
    fn window_meta(&self, _i: usize) -> Option<MetaType> {
        None
    }
}

impl ColTypes for TableRef {
    fn col_type(&self, i: usize) -> Option<ColumnType> {
        self.schema.columns.get(i).map(|c| c.ty)
    }
}

/// The type of a result column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaType {
    Int {
        unsigned: bool,
        width: u8,
    },
    Decimal {
        precision: u8,
        scale: u8,
    },
    /// A computed DOUBLE (approximate literals `1e3`, arithmetic with a
    /// double, math functions, CAST(.. AS DOUBLE), floating-point system
    /// variables): as many decimals as the value needs (31 on the wire).
    Double,
    /// A FLOAT or DOUBLE column's values (and MIN / MAX of them): `single`
    /// for FLOAT (wire type FLOAT, printed with 6 digits), `scale` the D
    /// of `FLOAT(M,D)` / `DOUBLE(M,D)` (printed with exactly D decimals).
    Approx {
        single: bool,
        scale: Option<u8>,
    },
    /// CHAR / VARCHAR / TEXT / computed strings, with a length in characters.
    Str {
        len: u32,
        fixed: bool,
    },
    Text,
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    Null,
    /// TIME(fsp) (`timeval.rs`).
    Time {
        fsp: u8,
    },
    /// BINARY / VARBINARY columns and computed binary strings (hex
    /// literals, UNHEX, CAST AS BINARY ...): `len` bytes, character set
    /// `binary`.
    Binary {
        len: u32,
        fixed: bool,
    },
    /// A BLOB column of at most `max_bytes` bytes.
    Blob {
        max_bytes: u32,
    },
    /// JSON: a JSON column or a JSON function's result (MYSQL_TYPE_JSON
    /// on the wire, `json.rs`).
    Json,
    /// An ENUM (`set: false`) or SET column's values: text of at most
    /// `len` characters, sent as STRING with the ENUM / SET flag.
    Choice {
        len: u32,
        set: bool,
    },
    /// A YEAR column's values (wire type YEAR): a column's are ZEROFILL
    /// (four digits, `0000`); MIN / MAX of one are not (`0`), as MariaDB.
    Year {
        zerofill: bool,
    },
    /// A BIT(bits) column's values (wire type BIT, big-endian bytes).
    Bit {
        bits: u8,
    },
}

impl MetaType {
    pub fn of_column(ty: ColumnType) -> Self {
        match ty {
            ColumnType::TinyInt { unsigned } | ColumnType::TinyInt1 { unsigned } => {
                MetaType::Int { unsigned, width: 1 }
            }
            ColumnType::SmallInt { unsigned } => MetaType::Int { unsigned, width: 2 },
            ColumnType::MediumInt { unsigned } => MetaType::Int { unsigned, width: 3 },
            ColumnType::Int { unsigned } => MetaType::Int { unsigned, width: 4 },
            ColumnType::BigInt { unsigned } => MetaType::Int { unsigned, width: 8 },
            ColumnType::Decimal { precision, scale, .. } => MetaType::Decimal { precision, scale },
            ColumnType::Float { digits, .. } => MetaType::Approx { single: true, scale: digits.map(|d| d.1) },
            ColumnType::Double { digits, .. } => MetaType::Approx { single: false, scale: digits.map(|d| d.1) },
            ColumnType::Char { len } => MetaType::Str { len, fixed: true },
            ColumnType::Varchar { len } => MetaType::Str { len, fixed: false },
            ColumnType::Text => MetaType::Text,
            ColumnType::Date => MetaType::Date,
            ColumnType::DateTime { fsp } => MetaType::DateTime { fsp },
            ColumnType::Timestamp { fsp } => MetaType::Timestamp { fsp },
            ColumnType::Time { fsp } => MetaType::Time { fsp },
            ColumnType::Binary { len } => MetaType::Binary { len, fixed: true },
            ColumnType::VarBinary { len } => MetaType::Binary { len, fixed: false },
            ColumnType::Blob { max_bytes } => MetaType::Blob { max_bytes },
            ColumnType::Json => MetaType::Json,
            ColumnType::Enum { members } | ColumnType::Set { members } => {
                MetaType::Choice { len: members.max_chars(), set: members.set }
            }
            ColumnType::Year => MetaType::Year { zerofill: true },
            ColumnType::Bit { bits } => MetaType::Bit { bits },
        }
    }

    fn of_value(v: &Value) -> Self {
        match v {
            Value::Null => MetaType::Null,
            Value::Int(_) => MetaType::Int { unsigned: false, width: 8 },
            Value::UInt(_) => MetaType::Int { unsigned: true, width: 8 },
            Value::Decimal(d) => MetaType::Decimal { precision: 65, scale: d.scale },
            Value::Double(_) => MetaType::Double,
            Value::Str(s) => MetaType::Str { len: s.chars().count().max(1) as u32, fixed: false },
            Value::Date(_) => MetaType::Date,
            Value::DateTime(_) => MetaType::DateTime { fsp: 0 },
            Value::Time(us) => MetaType::Time { fsp: quire_engine::row::time::natural_fsp(*us) },
            Value::Bytes(b) => MetaType::Binary { len: b.len() as u32, fixed: false },
            Value::Json(_) => MetaType::Json,
            Value::Choice(c) => MetaType::Str { len: c.members.max_chars(), fixed: false },
        }
    }
}

/// A result column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColMeta {
    pub name: String,
    pub org_name: String,
    pub table: String,
    pub org_table: String,
    pub db: String,
    pub ty: MetaType,
    pub not_null: bool,
    pub primary_key: bool,
    pub unique_key: bool,
    pub multiple_key: bool,
    pub auto_increment: bool,
    /// A ZEROFILL column's values (`Column::zerofill`, the width they are
    /// padded to in text rows). Only a column read as it is keeps it
    /// (through derived tables and views too); any expression over one,
    /// aggregates and UNIONs included, is a plain number, as MariaDB's.
    pub zerofill: Option<u8>,
}

impl ColMeta {
    /// A computed column.
    pub fn expr(name: &str, ty: MetaType) -> Self {
        Self {
            name: name.to_string(),
            org_name: String::new(),
            table: String::new(),
            org_table: String::new(),
            db: String::new(),
            ty,
            not_null: false,
            primary_key: false,
            unique_key: false,
            multiple_key: false,
            auto_increment: false,
            zerofill: None,
        }
    }

    /// A column of a table, named `name` in the result.
    pub fn column(t: &TableRef, c: usize, name: &str) -> Self {
        let col = &t.schema.columns[c];
        let in_index =
            |unique: bool| t.schema.indexes.iter().any(|i| i.unique == unique && i.columns.first() == Some(&c));
        Self {
            name: name.to_string(),
            org_name: col.name.clone(),
            table: t.alias.clone().unwrap_or_else(|| t.name.clone()),
            org_table: t.name.clone(),
            db: t.db.clone(),
            ty: MetaType::of_column(col.ty),
            not_null: !col.nullable,
            primary_key: t.schema.primary_key.contains(&c),
            unique_key: in_index(true),
            multiple_key: in_index(false),
            auto_increment: col.auto_increment,
            zerofill: col.zerofill,
        }
    }
}

fn same_kind(a: MetaType, b: MetaType) -> bool {
    matches!(
        (a, b),
        (MetaType::Int { .. }, MetaType::Int { .. })
            | (MetaType::Decimal { .. }, MetaType::Decimal { .. })
            | (MetaType::Double | MetaType::Approx { .. }, MetaType::Double | MetaType::Approx { .. })
            | (MetaType::Str { .. } | MetaType::Text, MetaType::Str { .. } | MetaType::Text)
            | (MetaType::Date, MetaType::Date)
            | (MetaType::Json, MetaType::Json)
            | (MetaType::Binary { .. } | MetaType::Blob { .. }, MetaType::Binary { .. } | MetaType::Blob { .. })
            | (
                MetaType::DateTime { .. } | MetaType::Timestamp { .. },
                MetaType::DateTime { .. } | MetaType::Timestamp { .. }
            )
    ) || matches!(b, MetaType::Null)
}

/// An integer result of at most `len` characters: LONG when it fits 9
/// (MariaDB's and MySQL's rule for computed integers, so that `SELECT 1`
/// is LONG and `SELECT 2147483648` LONGLONG), else LONGLONG.
fn int_of_len(len: u32, unsigned: bool) -> MetaType {
    MetaType::Int { unsigned, width: if len <= 9 { 4 } else { 8 } }
}

/// The most characters an integer-valued expression prints as (sign
/// included), as MySQL estimates it to choose LONG or LONGLONG.
fn int_len(e: &Expr, t: Option<&dyn ColTypes>) -> u32 {
    match e {
        Expr::Lit(Value::Int(i)) => i.to_string().len() as u32,
        Expr::Lit(Value::UInt(u)) => u.to_string().len() as u32,
        Expr::Lit(Value::Decimal(d)) => d.int_digits().max(1) + u32::from(d.coef < 0),
        Expr::Col(c) => match t.and_then(|t| t.col_type(*c)) {
            Some(ColumnType::TinyInt { unsigned } | ColumnType::TinyInt1 { unsigned }) => 4 - u32::from(unsigned),
            Some(ColumnType::SmallInt { unsigned }) => 6 - u32::from(unsigned),
            Some(ColumnType::MediumInt { unsigned }) => 9 - u32::from(unsigned),
            Some(ColumnType::Int { unsigned }) => 11 - u32::from(unsigned),
            Some(ColumnType::Decimal { precision, scale, .. }) => u32::from(precision - scale) + 1,
            // MariaDB's lengths: `e + 0` and `y + 0` are LONG, `b + 0` of
            // a BIT(n) has n + 1 characters.
            Some(ColumnType::Enum { .. } | ColumnType::Year) => 5,
            // A SET of up to 30 members: its bitmap fits a LONG.
            Some(ColumnType::Set { members }) if members.len() <= 30 => 6,
            Some(ColumnType::Bit { bits }) => u32::from(bits),
            _ => 21,
        },
        Expr::Neg(x) => int_len(x, t) + 1,
        Expr::Bin(BinOp::Add | BinOp::Sub, l, r) => int_len(l, t).max(int_len(r, t)) + 1,
        Expr::Bin(BinOp::Mul, l, r) => int_len(l, t) + int_len(r, t),
        Expr::Bin(BinOp::IntDiv, l, _) => int_len(l, t),
        Expr::Bin(BinOp::Mod, l, r) => int_len(l, t).max(int_len(r, t)),
        Expr::Func(name, args) if matches!(name.as_str(), "floor" | "ceil" | "ceiling" | "round" | "abs") => {
            args.first().map_or(21, |a| int_len(a, t) + 1)
        }
        _ => 21,
    }
}

/// The D of a `(M,D)` FLOAT / DOUBLE's values.
fn scale_of_approx(m: MetaType) -> Option<u8> {
    match m {
        MetaType::Approx { scale, .. } => scale,
        _ => None,
    }
}

/// The scale (fractional digits) of a numeric expression's values.
fn scale_of(m: MetaType) -> u8 {
    match m {
        MetaType::Decimal { scale, .. } => scale,
        _ => 0,
    }
}

fn decimal(scale: u8) -> MetaType {
    MetaType::Decimal { precision: 65, scale: scale.min(crate::expr::MAX_RESULT_SCALE) }
}

/// The result type of `l op r` for + - * / DIV MOD, by MySQL's rules:
/// integers stay integers (except `/`), a DOUBLE or string operand makes a
/// DOUBLE (MySQL converts strings to double for arithmetic), otherwise an
/// exact DECIMAL whose scale is the larger one for + - MOD, the sum for *,
/// and the dividend's plus div_precision_increment for `/`. DIV is always
/// an integer.
fn arith_type(op: BinOp, e: &Expr, l: MetaType, r: MetaType, t: Option<&dyn ColTypes>) -> MetaType {
    // ENUM / SET, YEAR and BIT operands are their numbers.
    let as_number = |m: MetaType| match m {
        MetaType::Choice { .. } => MetaType::Int { unsigned: false, width: 8 },
        MetaType::Year { .. } | MetaType::Bit { .. } => MetaType::Int { unsigned: true, width: 8 },
        m => m,
    };
    let (l, r) = (as_number(l), as_number(r));
    let approx =
        |m: MetaType| matches!(m, MetaType::Double | MetaType::Approx { .. } | MetaType::Str { .. } | MetaType::Text);
    if op == BinOp::IntDiv {
        let unsigned = matches!((l, r), (MetaType::Int { unsigned: true, .. }, MetaType::Int { unsigned: true, .. }));
        return int_of_len(int_len(e, t), unsigned);
    }
    if matches!(l, MetaType::Null) || matches!(r, MetaType::Null) {
        return if op == BinOp::Div { decimal(crate::expr::DIV_PRECISION_INCREMENT) } else { MetaType::Null };
    }
    if approx(l) || approx(r) {
        return approx_result(op, l, r);
    }
    match (op, l, r) {
        (BinOp::Div, _, _) => decimal(scale_of(l) + crate::expr::DIV_PRECISION_INCREMENT),
        (_, MetaType::Int { unsigned: lu, .. }, MetaType::Int { unsigned: ru, .. }) => {
            // MySQL: unsigned if either operand is (for + - * MOD).
            int_of_len(int_len(e, t), lu || ru)
        }
        (BinOp::Mul, _, _) => decimal(scale_of(l) + scale_of(r)),
        _ => decimal(scale_of(l).max(scale_of(r))),
    }
}

/// The fixed decimals of an operand of arithmetic in doubles: a `(M,D)`
/// FLOAT / DOUBLE's D, an exact number's scale; `None` (MySQL's
/// NOT_FIXED_DEC) for other doubles and strings.
fn fixed_decimals(m: MetaType) -> Option<u8> {
    match m {
        MetaType::Approx { scale, .. } => scale,
        MetaType::Int { .. } => Some(0),
        MetaType::Decimal { scale, .. } => Some(scale),
        _ => None,
    }
}

/// Arithmetic in doubles: a DOUBLE with the operands' decimals when every
/// operand has fixed ones (`c + 0` of a DOUBLE(8,3) prints 3 decimals, `c
/// / 2` 3 + div_precision_increment; MariaDB's rule: the larger for + - *
/// MOD), else as many as each value needs.
fn approx_result(op: BinOp, l: MetaType, r: MetaType) -> MetaType {
    let (Some(ld), Some(rd)) = (fixed_decimals(l), fixed_decimals(r)) else { return MetaType::Double };
    if !matches!(l, MetaType::Approx { scale: Some(_), .. }) && !matches!(r, MetaType::Approx { scale: Some(_), .. }) {
        return MetaType::Double;
    }
    let d = match op {
        BinOp::Div => ld + crate::expr::DIV_PRECISION_INCREMENT,
        _ => ld.max(rd),
    };
    MetaType::Approx { single: false, scale: Some(d.min(30)) }
}

/// The type of a system variable's value: integers and booleans are
/// LONGLONG (unsigned for unsigned variables), floats DOUBLE, the rest
/// strings.
fn sysvar_type(name: &str) -> MetaType {
    use crate::sysvars::VarKind;
    match name {
        "last_insert_id" | "identity" => return MetaType::Int { unsigned: true, width: 8 },
        "autocommit" => return MetaType::Int { unsigned: false, width: 8 },
        "timestamp" => return MetaType::Approx { single: false, scale: Some(6) },
        _ => {}
    }
    match crate::sysvars::lookup(name).map(|d| &d.kind) {
        Some(VarKind::Bool | VarKind::Int { .. }) => MetaType::Int { unsigned: false, width: 8 },
        Some(VarKind::UInt { .. }) => MetaType::Int { unsigned: true, width: 8 },
        Some(VarKind::Float) => MetaType::Double,
        _ => MetaType::Str { len: 255, fixed: false },
    }
}

/// The type an expression's values will have (for result metadata before
/// execution, e.g. COM_STMT_PREPARE).
/// The result type of an aggregate whose argument is of type `arg`.
pub fn agg_type(func: AggFn, arg: MetaType) -> MetaType {
    match func {
        AggFn::Count | AggFn::CountStar => MetaType::Int { unsigned: false, width: 8 },
        // SUM of a `(M,D)` FLOAT / DOUBLE keeps its D, as MariaDB's.
        AggFn::Sum if matches!(arg, MetaType::Approx { scale: Some(_), .. }) => {
            MetaType::Approx { single: false, scale: scale_of_approx(arg) }
        }
        AggFn::Sum | AggFn::Avg
            if matches!(arg, MetaType::Double | MetaType::Approx { .. } | MetaType::Str { .. } | MetaType::Text) =>
        {
            MetaType::Double
        }
        AggFn::Sum => decimal(scale_of(arg)),
        AggFn::Avg => decimal(scale_of(arg) + crate::expr::DIV_PRECISION_INCREMENT),
        // MIN / MAX of an ENUM or SET is plain text (MariaDB's metadata).
        AggFn::Min | AggFn::Max => match arg {
            MetaType::Choice { len, .. } => MetaType::Str { len, fixed: false },
            MetaType::Year { .. } => MetaType::Year { zerofill: false },
            arg => arg,
        },
        AggFn::GroupConcat => MetaType::Text,
        AggFn::JsonArrayAgg | AggFn::JsonObjectAgg => MetaType::Json,
    }
}

pub fn infer(e: &Expr, t: Option<&dyn ColTypes>, aggs: &[crate::expr::Agg]) -> MetaType {
    let longlong = MetaType::Int { unsigned: false, width: 8 };
    // Truth values (comparisons, NOT, IS NULL, LIKE...): 0 or 1, a LONG.
    let boolean = MetaType::Int { unsigned: false, width: 4 };
    let text = MetaType::Str { len: 255, fixed: false };
    match e {
        Expr::Lit(Value::Int(_) | Value::UInt(_)) => int_of_len(int_len(e, t), matches!(e, Expr::Lit(Value::UInt(_)))),
        Expr::Lit(v) => MetaType::of_value(v),
        Expr::Param(_) => text,
        Expr::Col(c) => t.and_then(|t| t.col_meta(*c)).unwrap_or(text),
        Expr::Window(i) => t.and_then(|t| t.window_meta(*i)).unwrap_or(text),
        Expr::Agg(i) => match aggs.get(*i) {
            Some(a) => agg_type(a.func, a.arg.as_ref().map_or(text, |x| infer(x, t, aggs))),
            None => text,
        },
        Expr::Bin(op, l, r) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::IntDiv => {
                // A `?` is typed only when executed: DECIMAL, which the
                // protocol sends as text, so no value is narrowed.
                let operand = |x: &Expr| match x {
                    Expr::Param(_) => MetaType::Decimal { precision: 65, scale: 0 },
                    x => infer(x, t, aggs),
                };
                arith_type(*op, e, operand(l), operand(r), t)
            }
            _ => boolean,
        },
        // A long run of binary operators (`depth.rs` folds it): typed as
        // the nested operators would be, left to right.
        Expr::Chain(first, steps) => {
            // As in `Bin`: a `?` operand of arithmetic is DECIMAL.
            let operand = |x: &Expr| match x {
                Expr::Param(_) => MetaType::Decimal { precision: 65, scale: 0 },
                x => infer(x, t, aggs),
            };
            let arithmetic = |op: BinOp| {
                matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::IntDiv)
            };
            let start = match steps.first() {
                Some(s) if arithmetic(s.op) => operand(first),
                _ => infer(first, t, aggs),
            };
            steps.iter().fold(start, |acc, s| {
                if arithmetic(s.op) {
                    arith_type(s.op, e, acc, operand(&s.rhs), t)
                } else {
                    boolean
                }
            })
        }
        Expr::Not(_) | Expr::IsNull(..) | Expr::Between { .. } | Expr::InList { .. } | Expr::Like { .. } => boolean,
        Expr::Neg(x) => match infer(x, t, aggs) {
            MetaType::Int { .. } => int_of_len(int_len(e, t), false),
            MetaType::Approx { scale, .. } => MetaType::Approx { single: false, scale },
            other => other,
        },
        Expr::Func(name, args) => {
            let arg = |i: usize| args.get(i).map_or(MetaType::Null, |a| infer(a, t, aggs));
            match name.as_str() {
                n if crate::assign::var_of(n).is_some() => arg(0),
                n if crate::stored::func::is_stored(n) => crate::stored::func::infer(n),
                n if crate::timeval::is_func(n) => crate::timeval::infer(n, args, &arg),
                n if crate::json::is_func(n) => crate::json::infer(n, args),
                "str_to_date" => crate::str_to_date::infer(args),
                "get_format" => MetaType::Str { len: 17, fixed: false },
                "hour" | "minute" | "second" | "microsecond" | "date_add" | "date_sub"
                    if matches!(arg(0), MetaType::Time { .. }) =>
                {
                    match name.as_str() {
                        "date_add" | "date_sub" => arg(0),
                        _ => MetaType::Int { unsigned: false, width: 4 },
                    }
                }
                "connection_id" => MetaType::Int { unsigned: true, width: 4 },
                "last_insert_id" => MetaType::Int { unsigned: true, width: 8 },
                "length" | "char_length" | "character_length" => MetaType::Int { unsigned: false, width: 4 },
                "found_rows" | "row_count" | "unix_timestamp" | "cast_signed" => longlong,
                "isnull" | "grouping" | "gtid_subset" => boolean,
                "gtid_subtract" => MetaType::Text,
                "sleep" | "get_lock" | "release_lock" | "is_free_lock" => int_of_len(1, false),
                "is_used_lock" => MetaType::Int { unsigned: true, width: 8 },
                "release_all_locks" => longlong,
                "cast_unsigned" => MetaType::Int { unsigned: true, width: 8 },
                "cast_double" | "rand" => MetaType::Double,
                "cast_float" => MetaType::Approx { single: true, scale: None },
                "now" | "current_timestamp" | "sysdate" | "utc_timestamp" | "localtime" | "localtimestamp" => {
                    MetaType::DateTime {
                        fsp: match args.first() {
                            Some(Expr::Lit(Value::Int(n))) => (*n).clamp(0, 6) as u8,
                            _ => 0,
                        },
                    }
                }
                "cast_datetime" => MetaType::DateTime { fsp: 0 },
                "convert_tz" => match (arg(0), args.first()) {
                    (MetaType::DateTime { fsp } | MetaType::Timestamp { fsp }, _) => MetaType::DateTime { fsp },
                    // A literal's own fractional digits, as MariaDB has it.
                    (_, Some(Expr::Lit(Value::Str(s)))) => MetaType::DateTime {
                        fsp: s.rsplit_once('.').map_or(0, |(_, f)| f.trim_end().len().min(6) as u8),
                    },
                    (MetaType::Date, _) => MetaType::DateTime { fsp: 0 },
                    _ => MetaType::DateTime { fsp: 6 },
                },
                "curdate" | "current_date" | "utc_date" | "cast_date" | "from_days" | "last_day" | "date" => {
                    MetaType::Date
                }
                "date_add" | "date_sub" => {
                    let unit = match args.get(2) {
                        Some(Expr::Lit(Value::Str(u))) => crate::temporal::Unit::parse(u),
                        _ => None,
                    };
                    let micro = unit.is_some_and(|u| u.name().contains("microsecond"));
                    match arg(0) {
                        MetaType::Date if unit.is_some_and(crate::temporal::Unit::keeps_date) => MetaType::Date,
                        MetaType::Date => MetaType::DateTime { fsp: if micro { 6 } else { 0 } },
                        MetaType::DateTime { fsp } | MetaType::Timestamp { fsp } => {
                            MetaType::DateTime { fsp: if micro { 6 } else { fsp } }
                        }
                        MetaType::Null => MetaType::Null,
                        _ => MetaType::Str { len: 29, fixed: false },
                    }
                }
                "year" | "month" | "day" | "dayofmonth" | "hour" | "minute" | "second" | "quarter" | "dayofweek"
                | "weekday" | "dayofyear" | "microsecond" => MetaType::Int { unsigned: false, width: 4 },
                "extract" | "to_days" | "datediff" | "week" | "yearweek" | "timestampdiff" => longlong,
                "from_unixtime" if args.len() == 1 => MetaType::DateTime { fsp: 0 },
                "locate" | "instr" | "ascii" | "ord" | "bit_length" | "octet_length" | "field" | "find_in_set"
                | "strcmp" | "sign" | "crc32" => longlong,
                n if crate::mathfunc::is_double(n) && crate::mathfunc::FUNCS.iter().any(|(f, ..)| *f == n) => {
                    MetaType::Double
                }
                "dayname" | "monthname" => MetaType::Str { len: 9, fixed: false },
                "unhex" => match arg(0) {
                    // MariaDB's length: half the argument's utf8mb4 bytes.
                    MetaType::Str { len, .. } => MetaType::Binary { len: len * 2, fixed: false },
                    _ => MetaType::Binary { len: 255, fixed: false },
                },
                "cast_binary" => match args.get(1) {
                    Some(Expr::Lit(Value::Int(n))) => MetaType::Binary { len: (*n).max(0) as u32, fixed: false },
                    _ => match arg(0) {
                        MetaType::Str { len, .. } | MetaType::Binary { len, .. } => {
                            MetaType::Binary { len: len.max(1), fixed: false }
                        }
                        MetaType::Text | MetaType::Blob { .. } => MetaType::Blob { max_bytes: 65_535 },
                        _ => MetaType::Binary { len: 255, fixed: false },
                    },
                },
                // A binary operand makes these binary (`binary::call`).
                "concat" | "concat_ws" | "substring" | "substr" | "left" | "right" | "upper" | "lower" | "ucase"
                | "lcase" | "trim" | "ltrim" | "rtrim" | "reverse" | "repeat" | "replace"
                    if args
                        .iter()
                        .any(|a| matches!(infer(a, t, aggs), MetaType::Binary { .. } | MetaType::Blob { .. })) =>
                {
                    MetaType::Binary { len: 255, fixed: false }
                }
                "abs" => match arg(0) {
                    MetaType::Approx { scale: Some(d), .. } => MetaType::Approx { single: false, scale: Some(d) },
                    MetaType::Approx { .. } => MetaType::Double,
                    other => other,
                },
                // FLOOR / CEIL of an exact number is an integer.
                "floor" | "ceil" | "ceiling" => match arg(0) {
                    MetaType::Int { unsigned, .. } => int_of_len(int_len(&args[0], t), unsigned),
                    MetaType::Decimal { .. } => int_of_len(int_len(e, t), false),
                    MetaType::Null => MetaType::Null,
                    _ => MetaType::Double,
                },
                // ROUND / TRUNCATE keep the argument's kind; a DECIMAL
                // keeps at most the requested digits (a constant count).
                "round" | "truncate" => match arg(0) {
                    MetaType::Decimal { scale, .. } => {
                        let want = match args.get(1) {
                            None => Some(0),
                            Some(Expr::Lit(Value::Int(d))) => Some((*d).clamp(0, 30) as u8),
                            Some(_) => None,
                        };
                        decimal(want.map_or(scale, |w| w.min(scale)))
                    }
                    MetaType::Int { unsigned, .. } => int_of_len(int_len(&args[0], t), unsigned),
                    MetaType::Null => MetaType::Null,
                    _ => MetaType::Double,
                },
                "greatest" | "least" | "coalesce" | "ifnull" | "if" | "nullif" => {
                    // One type if every (result) argument has it, else text.
                    let skip = usize::from(name == "if");
                    let types: Vec<MetaType> = args.iter().skip(skip).map(|a| infer(a, t, aggs)).collect();
                    match types.first() {
                        Some(&first) if types.iter().all(|&x| same_kind(x, first)) => first,
                        _ => text,
                    }
                }
                _ => text,
            }
        }
        Expr::Collate(_, x) => infer(x, t, aggs),
        Expr::SysVar { name, .. } => sysvar_type(name),
        Expr::Outer(_) => text,
        Expr::Subquery(s) => match s.kind {
            crate::expr::SubKind::Scalar => s.query.plan.columns().first().map_or(text, |c| c.ty),
            _ => boolean,
        },
        Expr::Case { .. } => text,
    }
}
