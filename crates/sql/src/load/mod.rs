//! LOAD DATA [LOCAL] INFILE: a text file's records written into a table
//! through the INSERT machinery, as MariaDB's `sql_load.cc` does.
//!
//! The statement becomes one compiled `INSERT [IGNORE] | REPLACE INTO t
//! (cols) VALUES (?, ...)` plan whose markers read each record's fields
//! (the column list's `@var`s are markers too, inside the SET
//! expressions). Each record is read ([`read::Records`], streaming),
//! converted into a row with the record number as the warnings' row, and
//! written by [`crate::upsert::RowWriter`] (duplicates, AUTO_INCREMENT,
//! foreign keys), all in one statement of the session's transaction: an
//! error rolls the whole load back.
//!
//! MariaDB's rules, kept here:
//! 1. A field missing from a record sets its column to NULL if nullable,
//!    else to the type's implicit default, with 1261 per missing column;
//!    extra fields are dropped with 1262. Both are errors in strict mode.
//! 2. `\N` (or an unenclosed NULL with ENCLOSED BY) into a NOT NULL column
//!    is 1263 and the implicit default.
//! 3. A NOT NULL column without a default that the statement does not
//!    fill is 1364 once per statement, not once per row.
//! 4. LOCAL without REPLACE behaves as IGNORE (the server cannot stop the
//!    client's upload midway), as MySQL and MariaDB document.
//! 5. Affected rows are rows inserted plus rows REPLACE deleted; the info
//!    string is `Records: read  Deleted: D  Skipped: read - inserted
//!    Warnings: W`.

pub mod files;
pub mod format;
pub mod parse;
pub mod read;

use std::collections::HashMap;
use std::io::Read;
use std::ops::ControlFlow;

use quire_engine::row::Value;
use sqlparser::ast;

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{eval, Env as _};
use crate::query::Ctx;
use crate::query::{Resolver as _, SessionEnv as _};
use crate::session::Plan;
use crate::session::{Env, Session};
use crate::sink::{Answers, Outcome};
use crate::store::{self, Place};
use parse::{LoadStmt, OnDuplicate};

/// What fills each target column of the compiled INSERT, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The record's k-th field (one marker).
    Field(usize),
    /// A SET expression.
    Set,
    /// Rule 3's implicit default (one marker).
    Implicit,
}

/// The compiled INSERT and how a record feeds it.
struct LoadPlan {
    compiled: crate::session::Compiled,
    /// Each marker's value.
    sources: Vec<Source>,
    /// Each target's, in the plan's target order.
    kinds: Vec<Kind>,
    /// Fields a record should have (the column list's length).
    items: usize,
}

/// Where each `?` of the compiled INSERT takes its value from.
#[derive(Clone, Debug)]
enum Source {
    /// The record's k-th field: a column of the list (`Some(column)`), or
    /// an `@var` of it (`None`).
    Field(usize, Option<usize>),
    /// A fixed value (rule 3's implicit defaults).
    Const(Value),
}

impl Session {
    /// Runs a LOAD DATA statement, answering through `out` (LOCAL asks the
    /// client for the file through it).
    pub(crate) fn load_data(&mut self, sql: &str, out: &mut dyn Answers) {
        out.begin(self, false);
        let stmt = match parse::parse(sql) {
            Ok(s) => s,
            Err(e) => {
                let r = self.fail(e);
                return out.end(self, r);
            }
        };
        let ignore =
            stmt.on_duplicate == OnDuplicate::Ignore || (stmt.local && stmt.on_duplicate == OnDuplicate::Error);
        self.begin_statement(true, !ignore);
        let r = self.load_file(&stmt, ignore, out);
        let r = self.finish(r);
        self.row_count = match &r {
            Ok(Outcome::Ok { affected, .. }) => *affected as i64,
            _ => -1,
        };
        out.end(self, r);
    }

    fn load_file(&mut self, stmt: &LoadStmt, ignore: bool, out: &mut dyn Answers) -> Result<Outcome> {
        self.check_writable()?;
        let lp = self.load_plan(stmt, ignore)?;
        self.refuse_if_read_only(&lp.compiled.plan)?; // read_only.rs
        if self.shared.table_locks.active() {
            self.admit_tables(&lp.compiled)?; // LOCK TABLES, the global read lock
        }
        let (plan, sources, kinds) = (&lp.compiled, &lp.sources, &lp.kinds);
        let input: Box<dyn Read + '_> = if stmt.local {
            let on = matches!(self.shared.sysvars.global("local_infile"), Some(crate::sysvars::VarValue::Bool(true)));
            let file = if on { out.local_file(&stmt.file)? } else { None };
            file.ok_or_else(local_disabled)?
        } else {
            let path = files::allowed(self, &stmt.file)?;
            let name = path.to_string_lossy().into_owned();
            let meta = std::fs::metadata(&path).map_err(|e| files::open_error(&name, &e, true))?;
            if meta.is_dir() {
                return Err(files::open_error(&name, &std::io::Error::from_raw_os_error(21), false));
            }
            let f = std::fs::File::open(&path).map_err(|e| files::open_error(&name, &e, false))?;
            Box::new(f)
        };
        let Plan::Insert(p) = &plan.plan else { return Err(SqlError::internal("LOAD DATA plan")) };
        let charset = Charset::of(stmt.charset.as_deref())?;
        let mut records = read::Records::new(input, stmt.format.clone());
        let format = &stmt.format;
        let counts = self.in_trx(|trx, s| {
            let env = Env { s };
            let mut w = crate::upsert::RowWriter::new(p, &env)?;
            // Rule 3, once.
            for (&c, _) in p.targets.iter().zip(kinds).filter(|(_, k)| **k == Kind::Implicit) {
                let m = format!("Field '{}' doesn't have a default value", p.table.schema.columns[c].name);
                env.warn(Condition::new(Level::Warning, 1364, m))?;
            }
            let mut fields = Vec::new();
            let mut skip = stmt.skip_lines;
            let mut read = 0u64;
            let mut params = Vec::with_capacity(sources.len());
            loop {
                if !records.next_record(&mut fields).map_err(read_error)? {
                    break;
                }
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                read += 1;
                if read.is_multiple_of(1024) {
                    s.interrupted()?;
                }
                let at = Place { db: &p.table.db, table: &p.table.name, row: read };
                params.clear();
                let mut missing = 0;
                for src in sources {
                    params.push(match src {
                        Source::Const(v) => v.clone(),
                        Source::Field(k, col) => match fields.get(*k) {
                            Some(f) if f.is_null(format) => Value::Null,
                            Some(f) => Value::Str(charset.decode(&f.bytes)),
                            None => {
                                missing += col.is_some() as usize;
                                match col.map(|c| &p.table.schema.columns[c]) {
                                    Some(c) if !c.nullable && !c.auto_increment => store::implicit_default(c),
                                    _ => Value::Null,
                                }
                            }
                        },
                    });
                }
                let ctx = Ctx { params: &params, aggs: vec![], session: &env, in_keys: Default::default() };
                let row = build_row(p, kinds, fields.len(), w.fires_before(), at, &ctx).and_then(|mut row| {
                    for i in 0..missing {
                        let m = format!("Row {read} doesn't contain data for all columns");
                        let c = Condition::new(Level::Warning, 1261, m);
                        if i + 1 < missing && ctx.mode().abort_on_warning {
                            // Strict: MariaDB raises one error per missing
                            // column before the statement stops.
                            s.diag.borrow_mut().push_row_error(&c.into_error());
                            continue;
                        }
                        ctx.warn(c)?;
                    }
                    if fields.len() > lp.items {
                        let m =
                            format!("Row {read} was truncated; it contained more data than there were input columns");
                        ctx.warn(Condition::new(Level::Warning, 1262, m))?;
                    }
                    w.before(trx, &mut row, &ctx)?;
                    crate::create::check::enforce(&p.constraints, &mut row, at, &ctx)?;
                    Ok(row)
                });
                let Some(row) = crate::create::check::ignored(ignore, row, &ctx)? else { continue };
                w.put(trx, row, &ctx)?;
            }
            Ok((read, w.result().clone()))
        });
        drop(records); // a LOCAL upload is read to its end before the answer
        let (read, r) = counts?;
        if r.first_insert_id != 0 {
            self.last_insert_id.set(r.first_insert_id);
            self.auto_is_null_id.set(r.first_insert_id);
        }
        let deleted = if stmt.on_duplicate == OnDuplicate::Replace { r.duplicates } else { 0 };
        let info = format!(
            "Records: {read}  Deleted: {deleted}  Skipped: {}  Warnings: {}",
            read - r.matched,
            self.statement_warnings()
        );
        Ok(Outcome::Ok { affected: r.affected, last_insert_id: r.first_insert_id, info })
    }

    /// The INSERT plan the statement's rows go through, and where each of
    /// its markers reads.
    fn load_plan(&self, stmt: &LoadStmt, ignore: bool) -> Result<LoadPlan> {
        let t = self.resolver().resolve(&stmt.table, None)?;
        let visible = t.schema.visible_columns();
        let items: Vec<String> =
            if stmt.items.is_empty() { visible.iter().map(|c| c.name.clone()).collect() } else { stmt.items.clone() };
        let mut cols = Vec::new();
        let mut values = Vec::new();
        let mut sources = Vec::new();
        let mut kinds = Vec::new();
        let mut vars: HashMap<String, usize> = HashMap::new();
        for (k, item) in items.iter().enumerate() {
            if let Some(v) = item.strip_prefix('@') {
                vars.insert(v.to_ascii_lowercase(), k);
                continue;
            }
            let c = t.schema.column_index(item).ok_or_else(|| SqlError::unknown_column(item, "SELECT"))?; // MariaDB's place name
            cols.push(quoted(item));
            values.push("?".to_string());
            sources.push(Source::Field(k, Some(c)));
            kinds.push(Kind::Field(k));
        }
        for (col, e) in &stmt.sets {
            let mut e = e.clone();
            let mut found = Vec::new();
            let _ = ast::visit_expressions_mut(&mut e, |x| {
                if let ast::Expr::Identifier(i) = x {
                    if let Some(&k) = i.value.strip_prefix('@').and_then(|v| vars.get(&v.to_ascii_lowercase())) {
                        found.push(k);
                        *x = ast::Expr::value(ast::Value::Placeholder("?".into()));
                    }
                }
                ControlFlow::<()>::Continue(())
            });
            cols.push(quoted(col));
            values.push(e.to_string());
            sources.extend(found.into_iter().map(|k| Source::Field(k, None)));
            kinds.push(Kind::Set);
        }
        // Rule 3: the columns left out that need a value.
        for (ci, c) in visible.iter().enumerate() {
            let named = cols.iter().any(|x| x.eq_ignore_ascii_case(&quoted(&c.name)));
            let generated = crate::create::generated::is_generated(&t, ci);
            if !c.nullable && c.default.is_none() && !c.auto_increment && !c.default_now && !named && !generated {
                cols.push(quoted(&c.name));
                values.push("?".to_string());
                sources.push(Source::Const(store::implicit_default(c)));
                kinds.push(Kind::Implicit);
            }
        }
        let verb = match stmt.on_duplicate {
            OnDuplicate::Replace => "REPLACE",
            _ if ignore => "INSERT IGNORE",
            _ => "INSERT",
        };
        let sql = format!(
            "{verb} INTO {}.{} ({}) VALUES ({})",
            quoted(&t.db),
            quoted(&t.name),
            cols.join(", "),
            values.join(", ")
        );
        let mut stmts = crate::session::parse(&sql)?;
        let compiled = self.compile(stmts.remove(0))?;
        match &compiled.plan {
            Plan::Insert(p) if p.rows.len() == 1 && p.params == sources.len() && p.targets.len() == kinds.len() => {}
            _ => return Err(SqlError::unsupported("LOAD DATA into this table")),
        }
        Ok(LoadPlan { compiled, sources, kinds, items: items.len() })
    }
}

/// The row a record makes: the table's defaults, then each target from
/// its expression (a marker, or a SET expression), converted; a missing
/// field's value (rule 1) and an implicit default (rule 3) are final.
fn build_row(
    p: &crate::dml::InsertPlan,
    kinds: &[Kind],
    fields: usize,
    deferred: bool,
    at: Place<'_>,
    env: &dyn crate::expr::Env,
) -> Result<Vec<Value>> {
    let schema = &p.table.schema;
    let mut row = Vec::with_capacity(schema.columns.len());
    for col in schema.visible_columns() {
        row.push(match &col.default {
            Some(d) => d.clone(),
            None if col.default_now => store::current_timestamp(col),
            _ => Value::Null,
        });
    }
    for ((&c, e), kind) in p.targets.iter().zip(&p.rows[0]).zip(kinds) {
        let col = &schema.columns[c];
        let v = eval(e, &[], env)?;
        let converted = match kind {
            Kind::Field(k) => *k < fields,
            Kind::Set => true,
            Kind::Implicit => false,
        };
        row[c] = match v {
            v if !converted => v,
            // A BEFORE INSERT trigger may still fill the column: NOT NULL
            // is judged after it (`dml::before_insert`), as in MariaDB.
            Value::Null if col.auto_increment || col.nullable || deferred => Value::Null,
            Value::Null => {
                let m = format!(
                    "Column set to default value; NULL supplied to NOT NULL column '{}' at row {}",
                    col.name, at.row
                );
                env.warn(Condition::new(Level::Warning, 1263, m))?;
                store::implicit_default(col)
            }
            v => store::assign(col, v, at, env)?,
        };
    }
    Ok(row)
}

/// 3948: LOCAL is off on the server, or the client does not send files.
/// MySQL 8.0's error; MariaDB answers 1148 "The used command is not
/// allowed with this MariaDB version", which names the wrong cause.
fn local_disabled() -> SqlError {
    SqlError::new(
        3948,
        "42000",
        "Loading local data is disabled; this must be enabled on both the client and server sides",
    )
}

fn read_error(e: std::io::Error) -> SqlError {
    if e.kind() == std::io::ErrorKind::ConnectionAborted {
        return crate::sink::write_failed();
    }
    SqlError::new(1030, "HY000", format!("Got error {} \"{e}\" from storage engine", e.raw_os_error().unwrap_or(0)))
}

fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The file's CHARACTER SET: how its bytes become text.
#[derive(Clone, Copy)]
enum Charset {
    Utf8,
    Latin1,
}

impl Charset {
    fn of(name: Option<&str>) -> Result<Self> {
        match name {
            None | Some("utf8mb4" | "utf8" | "utf8mb3" | "binary" | "ascii" | "default") => Ok(Charset::Utf8),
            Some("latin1") => Ok(Charset::Latin1),
            Some(other) => Err(SqlError::unsupported(format!("LOAD DATA ... CHARACTER SET {other}"))),
        }
    }

    fn decode(self, b: &[u8]) -> String {
        match self {
            Charset::Utf8 => String::from_utf8_lossy(b).into_owned(),
            Charset::Latin1 => b.iter().map(|&c| c as char).collect(),
        }
    }
}
