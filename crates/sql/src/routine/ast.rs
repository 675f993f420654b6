//! The compound-statement language of stored programs (MySQL's
//! `sp_proc_stmt`), as [`super::parse`] reads it. Embedded SQL (the
//! expressions and the plain statements) is kept as the text it was
//! written as and parsed by `sqlparser` when the program is prepared
//! (`exec::Prepared`), so the procedural parser knows only where each
//! one ends.

/// One statement of a program.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `[label:] BEGIN decl; ... stmt; ... END [label]`.
    Block { label: Option<String>, decls: Vec<Decl>, body: Vec<Stmt> },
    /// `SET target = expr [, target = expr ...]`.
    Set(Vec<(Target, String)>),
    /// `IF c THEN ... [ELSEIF c THEN ...] [ELSE ...] END IF`.
    If { arms: Vec<(String, Vec<Stmt>)>, otherwise: Option<Vec<Stmt>> },
    /// `CASE [operand] WHEN v THEN ... [ELSE ...] END CASE`: without an
    /// ELSE, no arm matching is error 1339.
    Case { operand: Option<String>, arms: Vec<(String, Vec<Stmt>)>, otherwise: Option<Vec<Stmt>> },
    /// `[label:] WHILE c DO ... END WHILE [label]`.
    While { label: Option<String>, cond: String, body: Vec<Stmt> },
    /// `[label:] REPEAT ... UNTIL c END REPEAT [label]`.
    Repeat { label: Option<String>, body: Vec<Stmt>, until: String },
    /// `[label:] LOOP ... END LOOP [label]`.
    Loop { label: Option<String>, body: Vec<Stmt> },
    /// `LEAVE label`.
    Leave(String),
    /// `ITERATE label`.
    Iterate(String),
    /// `SIGNAL {SQLSTATE [VALUE] 'xxxxx' | condition} [SET MESSAGE_TEXT =
    /// e, MYSQL_ERRNO = e]`; `named`: `sqlstate` is a condition's name.
    Signal { sqlstate: String, named: bool, message: Option<String>, errno: Option<String> },
    /// `RESIGNAL [SQLSTATE [VALUE] 'xxxxx' | condition] [SET MESSAGE_TEXT
    /// = e, MYSQL_ERRNO = e]`: without a SQLSTATE (`None`), the condition
    /// that activated the handler, else a new one; `(state, named)` as
    /// SIGNAL's.
    Resignal { sqlstate: Option<(String, bool)>, message: Option<String>, errno: Option<String> },
    /// `GET [CURRENT | STACKED] DIAGNOSTICS ...`.
    GetDiagnostics(GetDiagnostics),
    /// `OPEN cursor`.
    Open(String),
    /// `FETCH [[NEXT] FROM] cursor INTO target, ...`.
    Fetch { cursor: String, targets: Vec<Target> },
    /// `CLOSE cursor`.
    Close(String),
    /// INSERT / REPLACE / UPDATE / DELETE, as written.
    Sql(String),
    /// `SELECT ... INTO target, ... ...`: the SELECT without its INTO.
    SelectInto { select: String, targets: Vec<Target> },
    /// A SELECT without INTO (procedures only): its rows go to the
    /// client as a result set.
    Select(String),
    /// `CALL [db.]name[(arg, ...)]` (procedures only).
    Call { db: Option<String>, name: String, args: Vec<String> },
    /// `RETURN expr` (functions only).
    Return(String),
    /// `PREPARE name FROM expr` (procedures only; `dynamic_sql.rs`).
    Prepare { name: String, from: String },
    /// `EXECUTE name [USING expr, ...]` (procedures only).
    Execute { name: String, using: Vec<String> },
    /// `{DEALLOCATE | DROP} PREPARE name` (procedures only).
    Deallocate(String),
    /// A statement of the session (DDL, SHOW, SET TRANSACTION) run from
    /// its text, compiled when it runs (procedures only).
    Text(String),
}

/// What kind of stored program a body belongs to: it decides what the
/// body may hold (result sets, RETURN, CALL, COMMIT) and the errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Trigger,
    Procedure,
    Function,
}

/// One DECLARE of a block, in the order MySQL requires: variables and
/// conditions, then cursors, then handlers (1337, 1338).
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    Var(Declare),
    /// `DECLARE name CONDITION FOR {SQLSTATE [VALUE] 'xxxxx' | code}`.
    Condition {
        name: String,
        value: CondValue,
    },
    /// `DECLARE name CURSOR FOR select`.
    Cursor {
        name: String,
        select: String,
    },
    /// `DECLARE {CONTINUE | EXIT} HANDLER FOR condition, ... statement`.
    Handler {
        exit: bool,
        conds: Vec<CondValue>,
        body: Box<Stmt>,
    },
}

/// A condition a handler catches or a named condition stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum CondValue {
    /// A MySQL error code.
    Code(u16),
    /// `SQLSTATE 'xxxxx'`.
    State(String),
    /// A declared condition's name.
    Named(String),
    /// SQLWARNING: class 01, or any warning.
    Warning,
    /// NOT FOUND: class 02.
    NotFound,
    /// SQLEXCEPTION: an error of any other class.
    Exception,
}

/// `DECLARE name [, name ...] type [DEFAULT expr]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declare {
    pub names: Vec<String>,
    /// The data type as written (`INT`, `VARCHAR(20)`).
    pub data_type: String,
    pub default: Option<String>,
}

/// What SET and SELECT ... INTO assign to.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A name: a local variable (resolved when prepared).
    Name(String),
    /// `NEW.col` (triggers).
    New(String),
    /// `OLD.col`: never assignable (1362), kept to report it.
    Old(String),
    /// `@name`.
    User(String),
    /// A system variable as written (`@@x`, `@@session.x`, `GLOBAL x`,
    /// `NAMES`, `CHARACTER SET`); a [`Target::Name`] that is no local
    /// is one too.
    System(String),
}

/// `GET [CURRENT | STACKED] DIAGNOSTICS target = item, ...` (statement
/// items) or `... CONDITION n target = item, ...` (condition items).
#[derive(Clone, Debug, PartialEq)]
pub struct GetDiagnostics {
    /// STACKED: the area as it was when the running handler began.
    pub stacked: bool,
    /// The condition number as written (a literal or a variable).
    pub condition: Option<String>,
    pub items: Vec<(Target, DiagItem)>,
}

/// What GET DIAGNOSTICS reads: NUMBER and ROW_COUNT of the statement,
/// the others of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagItem {
    Number,
    RowCount,
    MessageText,
    MysqlErrno,
    ReturnedSqlstate,
    ClassOrigin,
    SubclassOrigin,
    ConstraintCatalog,
    ConstraintSchema,
    ConstraintName,
    CatalogName,
    SchemaName,
    TableName,
    ColumnName,
    CursorName,
}

impl DiagItem {
    /// The item called `name`, among the condition items (`condition`)
    /// or the statement items.
    pub fn named(name: &str, condition: bool) -> Option<DiagItem> {
        use DiagItem::*;
        let statement = [("NUMBER", Number), ("ROW_COUNT", RowCount)];
        let conditions = [
            ("MESSAGE_TEXT", MessageText),
            ("MYSQL_ERRNO", MysqlErrno),
            ("RETURNED_SQLSTATE", ReturnedSqlstate),
            ("CLASS_ORIGIN", ClassOrigin),
            ("SUBCLASS_ORIGIN", SubclassOrigin),
            ("CONSTRAINT_CATALOG", ConstraintCatalog),
            ("CONSTRAINT_SCHEMA", ConstraintSchema),
            ("CONSTRAINT_NAME", ConstraintName),
            ("CATALOG_NAME", CatalogName),
            ("SCHEMA_NAME", SchemaName),
            ("TABLE_NAME", TableName),
            ("COLUMN_NAME", ColumnName),
            ("CURSOR_NAME", CursorName),
        ];
        let list: &[(&str, DiagItem)] = if condition { &conditions } else { &statement };
        list.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, i)| *i)
    }
}
