//! SQL-level prepared statements: `PREPARE name FROM expr`, `EXECUTE
//! name [USING expr, ...]`, `{DEALLOCATE | DROP} PREPARE name`, from a
//! client or a stored procedure's body. A named statement is a statement
//! of the session's binary-protocol table (`Session::prepare`), found by
//! its name through `Session::prepared_names`; it outlives the procedure
//! that prepared it, as in MySQL.
//!
//! As MariaDB (MySQL is stricter): PREPARE's source and EXECUTE's
//! arguments are any expressions (a procedure's locals included), not only
//! user variables.
//!
//! Invariants:
//! 1. Every id in `Session::prepared_names` is a key of `Session::prepared`
//!    (a name is dropped with its statement).
//! 2. A PREPARE first drops the statement of that name, so a PREPARE that
//!    fails leaves no statement of the name (1243 then, as MariaDB).

use quire_engine::row::Value;
use sqlparser::tokenizer::Token;

use crate::error::{Result, SqlError};
use crate::routine::parse::Parser;
use crate::session::Session;
use crate::sink::{Collect, Outcome, RowSink};

/// One dynamic-SQL statement as written; expressions are kept as text.
#[derive(Clone, Debug, PartialEq)]
pub enum DynStmt {
    Prepare { name: String, from: String },
    Execute { name: String, using: Vec<String> },
    Deallocate(String),
}

/// A [`DynStmt`] with its expressions evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Prepare { name: String, text: Value },
    Execute { name: String, args: Vec<Value> },
    Deallocate(String),
}

/// Whether `sql` may be a dynamic-SQL statement (its first word), before
/// it is tokenized: most statements are not.
fn may_be(sql: &str) -> bool {
    let w: String = sql.trim_start().chars().take(10).collect::<String>().to_ascii_uppercase();
    ["PREPARE", "EXECUTE", "DEALLOCATE", "DROP"].iter().any(|k| w.starts_with(k))
}

/// A client's statement: `Some` when it is dynamic SQL.
pub fn parse(sql: &str) -> Result<Option<DynStmt>> {
    if !may_be(sql) {
        return Ok(None);
    }
    let mut p = Parser::new(sql)?;
    let Some(d) = read(&mut p)? else { return Ok(None) };
    p.eat_token(&Token::SemiColon);
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(Some(d))
}

/// Reads a dynamic-SQL statement at `p` (nothing is eaten when there is
/// none); shared with stored programs' parser.
pub(crate) fn read(p: &mut Parser) -> Result<Option<DynStmt>> {
    if p.is_word("DROP") || p.is_word("DEALLOCATE") {
        if !p.next_is_word("PREPARE") {
            return Ok(None);
        }
        p.ident()?;
        p.expect("PREPARE")?;
        return Ok(Some(DynStmt::Deallocate(p.ident()?)));
    }
    if p.eat("PREPARE") {
        let name = p.ident()?;
        p.expect("FROM")?;
        return Ok(Some(DynStmt::Prepare { name, from: p.expr_until(&[])? }));
    }
    if p.eat("EXECUTE") {
        let name = p.ident()?;
        let mut using = Vec::new();
        if p.eat("USING") {
            loop {
                using.push(p.expr_until(&[","])?);
                if !p.eat_token(&Token::Comma) {
                    break;
                }
            }
        }
        return Ok(Some(DynStmt::Execute { name, using }));
    }
    Ok(None)
}

/// 1295: what cannot itself be prepared (by either protocol).
pub(crate) fn not_preparable() -> SqlError {
    SqlError::new(1295, "HY000", "This command is not supported in the prepared statement protocol yet")
}

fn unknown(name: &str, what: &str) -> SqlError {
    SqlError::new(1243, "HY000", format!("Unknown prepared statement handler ({name}) given to {what}"))
}

impl Session {
    /// A client's dynamic-SQL statement: its expressions evaluated, then
    /// run ([`Session::run_dynamic`]).
    pub(crate) fn run_dynamic_statement(&mut self, d: &DynStmt, sink: &mut dyn RowSink) -> Result<Outcome> {
        let action = match d {
            DynStmt::Prepare { name, from } => Action::Prepare { name: name.clone(), text: self.scalar(from)? },
            DynStmt::Execute { name, using } => {
                let args = using.iter().map(|e| self.scalar(e)).collect::<Result<_>>()?;
                Action::Execute { name: name.clone(), args }
            }
            DynStmt::Deallocate(name) => Action::Deallocate(name.clone()),
        };
        self.run_dynamic(action, sink)
    }

    /// The value of expression `text` (`SELECT text`).
    fn scalar(&mut self, text: &str) -> Result<Value> {
        let c = self.compile_one(&format!("SELECT {text}")).or_else(|e| self.fail(e))?;
        let mut rows = Collect::default();
        self.execute(&c, &[], &mut rows)?;
        Ok(rows.rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
    }

    /// Runs one dynamic-SQL action; an EXECUTE's rows go to `sink`. Its
    /// error is recorded in the diagnostics area, as a statement's.
    pub(crate) fn run_dynamic(&mut self, a: Action, sink: &mut dyn RowSink) -> Result<Outcome> {
        let ok = |info: &str| Outcome::Ok { affected: 0, last_insert_id: 0, info: info.to_string() };
        match a {
            Action::Prepare { name, text } => {
                self.begin_statement(false, false);
                self.drop_named(&name); // invariant 2
                let id = self.prepare_text(text).or_else(|e| self.fail(e))?;
                self.prepared_names.insert(name.to_ascii_lowercase(), id);
                Ok(ok("Statement prepared"))
            }
            Action::Execute { name, args } => match self.named(&name) {
                Some(id) => self.run_prepared(id, &args, sink, "EXECUTE"),
                None => self.fail(unknown(&name, "EXECUTE")),
            },
            Action::Deallocate(name) => {
                self.begin_statement(false, false);
                if !self.drop_named(&name) {
                    return self.fail(unknown(&name, "DEALLOCATE PREPARE"));
                }
                Ok(ok(""))
            }
        }
    }

    /// Prepares the statement `text` holds: its id.
    fn prepare_text(&mut self, text: Value) -> Result<u32> {
        let text = match text {
            Value::Null => return Err(SqlError::syntax("check the manual that corresponds to your MariaDB server version for the right syntax to use near 'NULL' at line 1")),
            v => crate::expr::as_string(&v),
        };
        // Statements the session runs outside compiled plans.
        let program_ddl = crate::stored::ddl::parse(&text)?.is_some()
            || crate::trigger::ddl::parse(&text)?.is_some()
            || crate::event::parse::parse(&text)?.is_some();
        if program_ddl {
            return Err(SqlError::unsupported("PREPARE of CALL or of stored program DDL"));
        }
        Ok(self.prepare(&text)?.0)
    }

    fn named(&self, name: &str) -> Option<u32> {
        self.prepared_names.get(&name.to_ascii_lowercase()).copied()
    }

    /// Whether the statement named `name` returns a result set (`None`:
    /// there is none of that name).
    pub(crate) fn named_returns_rows(&self, name: &str) -> Option<bool> {
        let id = self.named(name)?;
        self.prepared.get(&id).map(|p| !p.compiled.columns().is_empty())
    }

    /// Drops the statement named `name`; whether there was one.
    fn drop_named(&mut self, name: &str) -> bool {
        match self.prepared_names.remove(&name.to_ascii_lowercase()) {
            Some(id) => {
                self.close_prepared(id);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_read_with_their_expressions() {
        assert_eq!(
            parse("PREPARE s FROM CONCAT('SELECT ', @c);").unwrap(),
            Some(DynStmt::Prepare { name: "s".into(), from: "CONCAT('SELECT ', @c)".into() })
        );
        assert_eq!(
            parse("execute s using @a, v * 2").unwrap(),
            Some(DynStmt::Execute { name: "s".into(), using: vec!["@a".into(), "v * 2".into()] })
        );
        assert_eq!(parse("EXECUTE s").unwrap(), Some(DynStmt::Execute { name: "s".into(), using: vec![] }));
        assert_eq!(parse("DEALLOCATE PREPARE s").unwrap(), Some(DynStmt::Deallocate("s".into())));
        assert_eq!(parse("DROP PREPARE `s`").unwrap(), Some(DynStmt::Deallocate("s".into())));
    }

    #[test]
    fn other_statements_are_not_dynamic_sql() {
        for sql in ["DROP TABLE t", "SELECT 1", "EXPLAIN SELECT 1", "DROP PROCEDURE p"] {
            assert_eq!(parse(sql).unwrap(), None, "{sql}");
        }
        assert_eq!(parse("PREPARE s 'SELECT 1'").unwrap_err().code, 1064);
        assert_eq!(parse("EXECUTE s USING").unwrap_err().code, 1064);
    }
}
