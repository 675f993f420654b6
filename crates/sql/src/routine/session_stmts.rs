//! The statements of the session a body may hold besides DML and the
//! procedural ones: dynamic SQL (PREPARE / EXECUTE / DEALLOCATE), DDL,
//! SHOW and SET TRANSACTION, which a procedure runs through the session
//! from their text ([`Stmt::Text`], compiled when they run: the objects
//! they name need not exist when the procedure is created); and the
//! targets of SET that are system variables ([`Target::System`]).
//!
//! What each kind of program may hold, with MariaDB's errors at CREATE:
//! a FUNCTION or TRIGGER gets 1336 for dynamic SQL and 1422 for DDL (an
//! implicit commit); no program may USE, LOCK or UNLOCK (1314), nor
//! create, drop or alter a stored routine or trigger (1303, 1357).

use sqlparser::tokenizer::Token;

use super::ast::{Kind, Stmt, Target};
use super::parse::Parser;
use crate::dynamic_sql::DynStmt;
use crate::error::{Result, SqlError};

/// The object kinds whose DDL a routine may not run (`CREATE` ... `kind`).
const ROUTINE_OBJECTS: [&str; 3] = ["PROCEDURE", "FUNCTION", "TRIGGER"];

impl Parser<'_> {
    /// A session statement at the parser (`None`: not one of them).
    pub(crate) fn session_statement(&mut self) -> Result<Option<Stmt>> {
        let dynamic = self.is_word("PREPARE")
            || self.is_word("EXECUTE")
            || ((self.is_word("DEALLOCATE") || self.is_word("DROP")) && self.next_is_word("PREPARE"));
        if dynamic {
            if self.kind != Kind::Procedure {
                return Err(SqlError::new(1336, "0A000", "Dynamic SQL is not allowed in stored function or trigger"));
            }
            return Ok(crate::dynamic_sql::read(self)?.map(|d| match d {
                DynStmt::Prepare { name, from } => Stmt::Prepare { name, from },
                DynStmt::Execute { name, using } => Stmt::Execute { name, using },
                DynStmt::Deallocate(name) => Stmt::Deallocate(name),
            }));
        }
        for kw in ["USE", "LOCK", "UNLOCK"] {
            if self.is_word(kw) {
                return Err(SqlError::new(1314, "0A000", format!("{kw} is not allowed in stored procedures")));
            }
        }
        if ["CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME"].iter().any(|k| self.is_word(k)) {
            return self.ddl().map(Some);
        }
        if self.kind == Kind::Procedure && self.is_word("SHOW") {
            return Ok(Some(Stmt::Text(self.expr_until(&[])?)));
        }
        Ok(None)
    }

    /// A DDL statement: a procedure's [`Stmt::Text`].
    fn ddl(&mut self) -> Result<Stmt> {
        if self.kind != Kind::Procedure {
            if self.next_is_word("TEMPORARY") {
                // No implicit commit: MariaDB takes it, and quire's
                // functions and triggers do not run it.
                return Err(SqlError::unsupported("temporary tables in a stored function or trigger"));
            }
            return Err(SqlError::new(
                1422,
                "HY000",
                "Explicit or implicit commit is not allowed in stored function or trigger",
            ));
        }
        let text = self.expr_until(&[])?;
        let toks = super::parse::tokens(&text)?;
        // The leading words, to the first parenthesis: what the DDL is of.
        let words: Vec<String> = toks
            .iter()
            .map(|t| &t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .take_while(|t| !matches!(t, Token::LParen))
            .take(8)
            .filter_map(|t| match t {
                Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
                _ => None,
            })
            .collect();
        let verb = words.first().map(String::as_str).unwrap_or("");
        if let Some(object) = words.iter().skip(1).find(|w| ROUTINE_OBJECTS.contains(&w.as_str())) {
            if verb == "CREATE" {
                return Err(SqlError::new(
                    1303,
                    "2F003",
                    format!("Can't create a {object} from within another stored routine"),
                ));
            }
            if object != "TRIGGER" {
                return Err(SqlError::new(
                    1357,
                    "HY000",
                    format!("Can't drop or alter a {object} from within another stored routine"),
                ));
            }
        }
        let program = words.iter().skip(1).any(|w| w == "TRIGGER" || w == "EVENT");
        if program {
            return Err(SqlError::unsupported(format!("{verb} TRIGGER / EVENT in a stored procedure")));
        }
        Ok(Stmt::Text(text))
    }

    /// After SET: `TRANSACTION ...` (a procedure's [`Stmt::Text`]), else
    /// `None` and nothing is read.
    pub(crate) fn set_transaction(&mut self) -> Result<Option<Stmt>> {
        let scoped = self.is_word("SESSION") || self.is_word("GLOBAL");
        if !(self.is_word("TRANSACTION") || scoped && self.next_is_word("TRANSACTION")) {
            return Ok(None);
        }
        if self.kind != Kind::Procedure {
            return Err(SqlError::unsupported("SET TRANSACTION in a stored function or trigger"));
        }
        Ok(Some(Stmt::Text(format!("SET {}", self.expr_until(&[])?))))
    }

    /// A SET target that names a system variable by its form (`@@name`,
    /// `@@scope.name`, `SESSION name`, `NAMES`, `CHARACTER SET`):
    /// [`Target::System`] holding it as written; `None` (nothing read)
    /// for any other target. An unknown variable is 1193.
    pub(crate) fn system_target(&mut self) -> Result<Option<Target>> {
        let start = self.offset();
        let assigned = |p: &Self| matches!(p.peek2(), Some(Token::Eq | Token::Assignment));
        let name = match self.peek() {
            Some(Token::Word(w)) if w.quote_style.is_none() && w.value.starts_with("@@") => {
                let first = w.value.clone();
                self.advance();
                if self.eat_token(&Token::Period) {
                    self.ident()?
                } else {
                    first[2..].rsplit('.').next().unwrap_or_default().to_string()
                }
            }
            Some(Token::Word(w))
                if w.quote_style.is_none()
                    && ["SESSION", "GLOBAL", "LOCAL"].iter().any(|s| w.value.eq_ignore_ascii_case(s))
                    && !assigned(self) =>
            {
                self.advance();
                self.ident()?
            }
            Some(Token::Word(w))
                if w.quote_style.is_none()
                    && ["NAMES", "CHARSET"].iter().any(|s| w.value.eq_ignore_ascii_case(s))
                    && !assigned(self) =>
            {
                self.advance();
                return Ok(Some(Target::System(self.src_since(start))));
            }
            Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("CHARACTER") => {
                if !self.next_is_word("SET") {
                    return Ok(None);
                }
                self.advance();
                self.advance();
                return Ok(Some(Target::System(self.src_since(start))));
            }
            _ => return Ok(None),
        };
        if crate::sysvars::lookup(&name).is_none() {
            return Err(SqlError::new(1193, "HY000", format!("Unknown system variable '{name}'")));
        }
        Ok(Some(Target::System(self.src_since(start))))
    }
}

/// Whether a [`Target::System`] is set without `=` (`SET NAMES x`).
pub(crate) fn takes_no_equals(target: &str) -> bool {
    let t = target.to_ascii_uppercase();
    t == "NAMES" || t == "CHARSET" || t.starts_with("CHARACTER")
}

#[cfg(test)]
mod tests {
    use super::super::parse::program_of;
    use super::*;

    fn proc(src: &str) -> Result<Stmt> {
        program_of(src, Kind::Procedure)
    }

    #[test]
    fn dynamic_sql_ddl_and_show_in_a_procedure() {
        let Stmt::Block { body, .. } = proc(
            "BEGIN PREPARE s FROM CONCAT('SELECT ', v); EXECUTE s USING @a, v + 1; DEALLOCATE PREPARE s;
             DROP PREPARE s; CREATE TEMPORARY TABLE tmp (a INT); TRUNCATE TABLE t; SHOW TABLES; END",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(body[0], Stmt::Prepare { name: "s".into(), from: "CONCAT('SELECT ', v)".into() });
        assert_eq!(body[1], Stmt::Execute { name: "s".into(), using: vec!["@a".into(), "v + 1".into()] });
        assert_eq!(body[2], Stmt::Deallocate("s".into()));
        assert_eq!(body[3], Stmt::Deallocate("s".into()));
        assert_eq!(body[4], Stmt::Text("CREATE TEMPORARY TABLE tmp (a INT)".into()));
        assert_eq!(body[5], Stmt::Text("TRUNCATE TABLE t".into()));
        assert_eq!(body[6], Stmt::Text("SHOW TABLES".into()));
    }

    #[test]
    fn functions_and_triggers_refuse_dynamic_sql_and_ddl() {
        for kind in [Kind::Function, Kind::Trigger] {
            let code = |src: &str| program_of(src, kind).unwrap_err().code;
            assert_eq!(code("BEGIN PREPARE s FROM 'SELECT 1'; END"), 1336);
            assert_eq!(code("EXECUTE s"), 1336);
            assert_eq!(code("DEALLOCATE PREPARE s"), 1336);
            assert_eq!(code("CREATE TABLE x (a INT)"), 1422);
            assert_eq!(code("CREATE TEMPORARY TABLE x (a INT)"), 1235);
            assert_eq!(code("TRUNCATE x"), 1422);
        }
    }

    #[test]
    fn routine_ddl_use_and_lock_are_refused_with_mysql_errors() {
        let code = |src: &str| proc(src).unwrap_err().code;
        assert_eq!(code("CREATE PROCEDURE q() SELECT 1"), 1303);
        assert_eq!(code("CREATE DEFINER = root@localhost FUNCTION f() RETURNS INT RETURN 1"), 1303);
        assert_eq!(code("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @a = 1"), 1303);
        assert_eq!(code("DROP PROCEDURE IF EXISTS p"), 1357);
        assert_eq!(code("ALTER FUNCTION f COMMENT 'x'"), 1357);
        assert_eq!(code("DROP TRIGGER tr"), 1235);
        assert_eq!(code("CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO SELECT 1"), 1235);
        assert_eq!(code("USE d"), 1314);
        assert_eq!(code("LOCK TABLES t READ"), 1314);
        assert_eq!(code("UNLOCK TABLES"), 1314);
        // A table named after a routine object is a table.
        assert_eq!(proc("DROP TABLE procedure_log").unwrap(), Stmt::Text("DROP TABLE procedure_log".into()));
    }

    #[test]
    fn set_of_system_variables_mixed_with_variables() {
        let Stmt::Set(items) = proc("SET v = 1, @@sql_mode = '', @@session.autocommit := 0, SESSION wait_timeout = 5, @u = 2, NAMES latin1 COLLATE latin1_bin, CHARACTER SET utf8mb4").unwrap() else {
            panic!()
        };
        let targets: Vec<&Target> = items.iter().map(|(t, _)| t).collect();
        assert_eq!(
            targets,
            [
                &Target::Name("v".into()),
                &Target::System("@@sql_mode".into()),
                &Target::System("@@session.autocommit".into()),
                &Target::System("SESSION wait_timeout".into()),
                &Target::User("u".into()),
                &Target::System("NAMES".into()),
                &Target::System("CHARACTER SET".into()),
            ]
        );
        assert_eq!(items[5].1, "latin1 COLLATE latin1_bin");
        assert_eq!(proc("SET @@nosuch = 1").unwrap_err().code, 1193);
        assert_eq!(proc("SET GLOBAL nosuch = 1").unwrap_err().code, 1193);
        // Locals named like the keywords are locals.
        assert_eq!(proc("SET names = 1").unwrap(), Stmt::Set(vec![(Target::Name("names".into()), "1".into())]));
        assert_eq!(
            proc("SET TRANSACTION ISOLATION LEVEL READ COMMITTED").unwrap(),
            Stmt::Text("SET TRANSACTION ISOLATION LEVEL READ COMMITTED".into())
        );
    }
}
