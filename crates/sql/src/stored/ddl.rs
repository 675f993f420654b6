//! CREATE / DROP {PROCEDURE | FUNCTION}, SHOW CREATE {PROCEDURE |
//! FUNCTION} and CALL, parsed here (sqlparser does not know MySQL's
//! routine syntax), and what DROP DATABASE does to a database's
//! routines.

use quire_engine::row::Column;
use sqlparser::tokenizer::Token;

use super::{store, Mode, Param, Ready, RoutineDef, RoutineKind};
use crate::error::{Result, SqlError};
use crate::routine::ast::{Kind, Stmt};
use crate::routine::parse::Parser;
use crate::routine::{db_of, sysvar_text};
use crate::session::Session;
use crate::Output;

/// A routine statement.
#[derive(Debug, PartialEq)]
pub enum RoutineStmt {
    Create(CreateRoutine),
    Drop {
        kind: RoutineKind,
        if_exists: bool,
        db: Option<String>,
        name: String,
    },
    ShowCreate {
        kind: RoutineKind,
        db: Option<String>,
        name: String,
    },
    /// `CALL`, as the body statement it is.
    Call(Stmt),
}

#[derive(Debug, PartialEq)]
pub struct CreateRoutine {
    pub or_replace: bool,
    /// `u@h`; empty for CURRENT_USER.
    pub definer: Option<String>,
    pub if_not_exists: bool,
    pub kind: RoutineKind,
    pub db: Option<String>,
    pub name: String,
    pub params: String,
    pub returns: String,
    pub comment: String,
    pub deterministic: bool,
    pub data_access: String,
    pub security_definer: bool,
    pub body: String,
}

/// Words that end a RETURNS type: a characteristic or a body's first word.
const AFTER_TYPE: &[&str] = &[
    "COMMENT",
    "LANGUAGE",
    "NOT",
    "DETERMINISTIC",
    "CONTAINS",
    "NO",
    "READS",
    "MODIFIES",
    "SQL",
    "BEGIN",
    "RETURN",
    "SET",
    "IF",
    "CASE",
    "WHILE",
    "REPEAT",
    "LOOP",
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "DECLARE",
    "CALL",
    "WITH",
];

fn kind_word(p: &mut Parser<'_>) -> Option<RoutineKind> {
    if p.eat("PROCEDURE") {
        Some(RoutineKind::Procedure)
    } else if p.eat("FUNCTION") {
        Some(RoutineKind::Function)
    } else {
        None
    }
}

fn at_end(p: &mut Parser<'_>) -> Result<()> {
    p.eat_token(&Token::SemiColon);
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(())
}

/// `/*!50003 DROP PROCEDURE IF EXISTS p */`, as dumps write it: the
/// statement inside the versioned comment.
fn unversioned(sql: &str) -> Option<&str> {
    let t = sql.trim().trim_end_matches(';').trim_end();
    let rest = t.strip_prefix("/*!")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits != 5 {
        return None;
    }
    rest[digits..].strip_suffix("*/")
}

/// A routine statement, or `None` when `sql` is none.
pub fn parse(sql: &str) -> Result<Option<RoutineStmt>> {
    let sql = unversioned(sql).unwrap_or(sql);
    // Every COM_QUERY passes here: the first word is looked at in place.
    let head = sql.trim_start().as_bytes();
    let starts = |w: &str| head.len() >= w.len() && head[..w.len()].eq_ignore_ascii_case(w.as_bytes());
    if !(starts("CREATE") || starts("DROP") || starts("SHOW") || starts("CALL")) {
        return Ok(None);
    }
    let Ok(mut p) = Parser::new(sql) else { return Ok(None) };
    p.kind = Kind::Procedure;
    if p.is_word("CALL") {
        p.eat("CALL");
        let call = p.call()?;
        at_end(&mut p)?;
        return Ok(Some(RoutineStmt::Call(call)));
    }
    if p.eat("DROP") {
        let Some(kind) = kind_word(&mut p) else { return Ok(None) };
        let if_exists = p.eat("IF") && {
            p.expect("EXISTS")?;
            true
        };
        let (db, name) = p.qualified()?;
        at_end(&mut p)?;
        return Ok(Some(RoutineStmt::Drop { kind, if_exists, db, name }));
    }
    if p.eat("SHOW") {
        if !p.eat("CREATE") {
            return Ok(None);
        }
        let Some(kind) = kind_word(&mut p) else { return Ok(None) };
        let (db, name) = p.qualified()?;
        at_end(&mut p)?;
        return Ok(Some(RoutineStmt::ShowCreate { kind, db, name }));
    }
    if !p.eat("CREATE") {
        return Ok(None);
    }
    let or_replace = p.eat("OR") && {
        p.expect("REPLACE")?;
        true
    };
    let Some(definer) = crate::trigger::ddl::definer(&mut p, sql) else { return Ok(None) };
    let Some(kind) = kind_word(&mut p) else { return Ok(None) };
    let if_not_exists = p.eat("IF") && {
        p.expect("NOT")?;
        p.expect("EXISTS")?;
        true
    };
    let (db, name) = p.qualified()?;
    if !p.eat_token(&Token::LParen) {
        // CREATE FUNCTION ... SONAME: a loadable function.
        return Err(SqlError::unsupported("CREATE FUNCTION without a parameter list (loadable functions)"));
    }
    let params = if p.eat_token(&Token::RParen) {
        String::new()
    } else {
        let t = p.expr_until(&[")"])?;
        p.expect_token(&Token::RParen)?;
        t
    };
    let returns = if kind == RoutineKind::Function {
        p.expect("RETURNS")?;
        p.expr_until(AFTER_TYPE)?
    } else {
        String::new()
    };
    let mut c = CreateRoutine {
        or_replace,
        definer,
        if_not_exists,
        kind,
        db,
        name,
        params,
        returns,
        comment: String::new(),
        deterministic: false,
        data_access: "CONTAINS SQL".into(),
        security_definer: true,
        body: String::new(),
    };
    loop {
        if p.eat("COMMENT") {
            c.comment = p.string()?;
        } else if p.eat("LANGUAGE") {
            p.expect("SQL")?;
        } else if p.eat("NOT") {
            p.expect("DETERMINISTIC")?;
            c.deterministic = false;
        } else if p.eat("DETERMINISTIC") {
            c.deterministic = true;
        } else if p.eat("CONTAINS") {
            p.expect("SQL")?;
            c.data_access = "CONTAINS SQL".into();
        } else if p.eat("NO") {
            p.expect("SQL")?;
            c.data_access = "NO SQL".into();
        } else if p.eat("READS") {
            p.expect("SQL")?;
            p.expect("DATA")?;
            c.data_access = "READS SQL DATA".into();
        } else if p.eat("MODIFIES") {
            p.expect("SQL")?;
            p.expect("DATA")?;
            c.data_access = "MODIFIES SQL DATA".into();
        } else if p.eat("SQL") {
            p.expect("SECURITY")?;
            c.security_definer = if p.eat("DEFINER") {
                true
            } else {
                p.expect("INVOKER")?;
                false
            };
        } else {
            break;
        }
    }
    c.body = sql[p.offset()..].trim().trim_end_matches(';').trim_end().to_string();
    if c.body.is_empty() {
        return Err(p.error());
    }
    Ok(Some(RoutineStmt::Create(c)))
}

/// A column of type `type_text` named `name`.
pub(crate) fn column(name: &str, type_text: &str) -> Result<Column> {
    let mut p = sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(type_text)
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    let dt = p.parse_data_type().map_err(|e| SqlError::syntax(e.to_string()))?;
    Ok(Column::new(name, crate::ddl::column_type(&dt, name)?))
}

/// The parameters of a parameter list as written (1330 for a name used
/// twice).
pub fn params(text: &str, kind: RoutineKind) -> Result<Vec<Param>> {
    let mut out: Vec<Param> = Vec::new();
    if text.trim().is_empty() {
        return Ok(out);
    }
    let mut p = Parser::new(text)?;
    loop {
        let mut mode = Mode::In;
        if kind == RoutineKind::Procedure {
            if p.eat("INOUT") {
                mode = Mode::InOut;
            } else if p.eat("OUT") {
                mode = Mode::Out;
            } else {
                p.eat("IN");
            }
        }
        let name = p.ident()?;
        let type_text = p.expr_until(&[","])?;
        if out.iter().any(|q| q.column.name.eq_ignore_ascii_case(&name)) {
            return Err(SqlError::new(1330, "42000", format!("Duplicate parameter: {name}")));
        }
        out.push(Param { mode, column: column(&name, &type_text)?, type_text });
        if !p.eat_token(&Token::Comma) {
            break;
        }
    }
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(out)
}

fn has_return(s: &Stmt) -> bool {
    let any = |b: &[Stmt]| b.iter().any(has_return);
    match s {
        Stmt::Return(_) => true,
        Stmt::Block { body, .. } | Stmt::While { body, .. } | Stmt::Repeat { body, .. } | Stmt::Loop { body, .. } => {
            any(body)
        }
        Stmt::If { arms, otherwise } | Stmt::Case { arms, otherwise, .. } => {
            arms.iter().any(|(_, b)| any(b)) || otherwise.as_deref().is_some_and(any)
        }
        _ => false,
    }
}

/// A definition's parameters, RETURNS type and program, checked and
/// prepared (the errors CREATE reports).
pub fn prepare(d: &RoutineDef) -> Result<Ready> {
    let params = params(&d.params, d.kind)?;
    let returns = match d.kind {
        RoutineKind::Function => Some(column(&d.name, &d.returns)?),
        RoutineKind::Procedure => None,
    };
    let kind = match d.kind {
        RoutineKind::Procedure => Kind::Procedure,
        RoutineKind::Function => Kind::Function,
    };
    let program = crate::routine::parse::program_of(&d.body, kind)?;
    if d.kind == RoutineKind::Function && !has_return(&program) {
        return Err(SqlError::new(1320, "42000", format!("No RETURN found in FUNCTION {}.{}", d.db, d.name)));
    }
    let names = crate::routine::exec::Names::routine(kind, params.iter().map(|p| p.column.clone()).collect());
    let program = crate::routine::exec::prepare(&program, &names)?;
    Ok(Ready { params, returns, program })
}

/// A built-in function is named `name` (it takes precedence over a
/// stored function of that name).
fn is_native(name: &str) -> bool {
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let Ok(mut stmts) = crate::session::parse(&format!("SELECT {name}()")) else { return false };
    let Some(sqlparser::ast::Statement::Query(q)) = stmts.pop() else { return false };
    let sqlparser::ast::SetExpr::Select(sel) = *q.body else { return false };
    let e = match sel.projection.first() {
        Some(
            sqlparser::ast::SelectItem::UnnamedExpr(e) | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. },
        ) => e,
        _ => return false,
    };
    let mut scope =
        crate::expr::Scope { table: None, columns: &[], aggs: None, params: 0, place: "field list", rel: None };
    !matches!(crate::expr::compile(e, &mut scope), Err(err) if err.code == 1305)
}

/// Runs CREATE / DROP / SHOW CREATE (CALL: `call`).
pub fn run(s: &mut Session, stmt: &RoutineStmt) -> Result<Output> {
    match stmt {
        RoutineStmt::Create(c) => create(s, c),
        RoutineStmt::Drop { kind, if_exists, db, name } => drop(s, *kind, *if_exists, db, name),
        RoutineStmt::ShowCreate { kind, db, name } => super::show::show_create(s, *kind, &db_of(s, db)?, name),
        RoutineStmt::Call(_) => Err(SqlError::internal("CALL is run by stored::call")),
    }
}

fn create(s: &mut Session, c: &CreateRoutine) -> Result<Output> {
    let db = db_of(s, &c.db)?;
    crate::admin::check_access(s, &db)?;
    if crate::catalog::VIRTUAL_DATABASES.iter().any(|v| v.eq_ignore_ascii_case(&db)) {
        let msg = format!("Access denied for user '{}'@'localhost' to database '{db}'", s.user);
        return Err(SqlError::new(1044, "42000", msg));
    }
    if c.name.chars().count() > 64 {
        return Err(SqlError::new(1059, "42000", format!("Identifier name '{}' is too long", c.name)));
    }
    let definer = match c.definer.as_deref() {
        Some(d) if !d.is_empty() => d.to_string(),
        _ => format!("{}@localhost", s.user),
    };
    let now = crate::timezone::local_now();
    let created = format!("{} {:02}:{:02}:{:02}", now.date, now.hour, now.minute, now.second);
    let def = RoutineDef {
        db: db.clone(),
        name: c.name.clone(),
        kind: c.kind,
        params: c.params.clone(),
        returns: c.returns.clone(),
        body: c.body.clone(),
        comment: c.comment.clone(),
        deterministic: c.deterministic,
        data_access: c.data_access.clone(),
        security_definer: c.security_definer,
        definer,
        sql_mode: sysvar_text(s, "sql_mode"),
        created: created.clone(),
        modified: created,
        character_set_client: sysvar_text(s, "character_set_client"),
        collation_connection: sysvar_text(s, "collation_connection"),
        database_collation: sysvar_text(s, "collation_database"),
    };
    // The parameters and the body must parse and bind now (MySQL
    // reports these at CREATE).
    prepare(&def)?;
    store::check(&def)?;
    let shared = s.shared.clone();
    let reg = &shared.catalog.routines;
    let old = reg.get(&db, c.kind, &c.name);
    if old.is_some() && !c.or_replace {
        let msg = format!("{} {} already exists", c.kind.name(), c.name);
        if c.if_not_exists {
            s.note(1304, msg);
            return Ok(Output::ok());
        }
        return Err(SqlError::new(1304, "42000", msg));
    }
    s.commit()?; // DDL commits the open transaction
    let gone: Vec<&RoutineDef> = old.as_ref().map(|o| &o.def).into_iter().collect();
    store::write(s.engine(), &gone, &[&def])?;
    reg.put(def);
    s.shared.bump_epoch();
    if c.kind == RoutineKind::Function && is_native(&c.name) {
        s.note(1585, format!("This function '{}' has the same name as a native function", c.name));
    }
    Ok(Output::ok())
}

fn drop(s: &mut Session, kind: RoutineKind, if_exists: bool, db: &Option<String>, name: &str) -> Result<Output> {
    let db = db_of(s, db)?;
    crate::admin::check_access(s, &db)?;
    let Some(r) = s.shared.catalog.routines.get(&db, kind, name) else {
        let e = super::does_not_exist(kind, &db, name);
        if if_exists {
            s.note(1305, e.message.clone());
            return Ok(Output::ok());
        }
        return Err(e);
    };
    s.commit()?;
    store::write(s.engine(), &[&r.def], &[])?;
    s.shared.catalog.routines.remove(&db, kind, name);
    s.shared.bump_epoch();
    Ok(Output::ok())
}

/// DROP DATABASE: its routines go too.
pub fn database_dropped(s: &Session, db: &str) -> Result<()> {
    let reg = &s.shared.catalog.routines;
    let defs: Vec<RoutineDef> = reg.all().into_iter().filter(|r| r.def.db == db).map(|r| r.def.clone()).collect();
    if defs.is_empty() {
        return Ok(());
    }
    store::write(s.engine(), &defs.iter().collect::<Vec<_>>(), &[])?;
    for d in &defs {
        reg.remove(&d.db, d.kind, &d.name);
    }
    s.shared.bump_epoch();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_procedure_and_function_statements_parse_with_their_parts() {
        let Some(RoutineStmt::Create(c)) = parse(
            "CREATE DEFINER=`root`@`localhost` PROCEDURE IF NOT EXISTS d.p(IN a INT, OUT b VARCHAR(10), INOUT c DECIMAL(5,2))
             COMMENT 'hi' DETERMINISTIC READS SQL DATA SQL SECURITY INVOKER BEGIN SELECT a; END;",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.definer.as_deref(), Some("root@localhost"));
        assert!(c.if_not_exists && c.deterministic && !c.security_definer);
        assert_eq!((c.db.as_deref(), c.name.as_str(), c.kind), (Some("d"), "p", RoutineKind::Procedure));
        assert_eq!(c.params, "IN a INT, OUT b VARCHAR(10), INOUT c DECIMAL(5,2)");
        assert_eq!((c.comment.as_str(), c.data_access.as_str()), ("hi", "READS SQL DATA"));
        assert_eq!(c.body, "BEGIN SELECT a; END");
        let ps = params(&c.params, c.kind).unwrap();
        assert_eq!(ps.iter().map(|p| p.mode).collect::<Vec<_>>(), [Mode::In, Mode::Out, Mode::InOut]);
        assert_eq!(ps[2].type_text, "DECIMAL(5,2)");

        let Some(RoutineStmt::Create(f)) =
            parse("create function f(x INT) returns varchar(20) charset utf8mb4 no sql return concat('<', x, '>')")
                .unwrap()
        else {
            panic!()
        };
        assert_eq!((f.kind, f.returns.as_str()), (RoutineKind::Function, "varchar(20) charset utf8mb4"));
        assert_eq!((f.data_access.as_str(), f.body.as_str()), ("NO SQL", "return concat('<', x, '>')"));

        assert_eq!(
            parse("DROP FUNCTION IF EXISTS d.f").unwrap(),
            Some(RoutineStmt::Drop {
                kind: RoutineKind::Function,
                if_exists: true,
                db: Some("d".into()),
                name: "f".into()
            })
        );
        assert_eq!(
            parse("CALL p").unwrap(),
            Some(RoutineStmt::Call(Stmt::Call { db: None, name: "p".into(), args: vec![] }))
        );
        assert_eq!(
            parse("call d.p(1, (2 + 3), @x);").unwrap(),
            Some(RoutineStmt::Call(Stmt::Call {
                db: Some("d".into()),
                name: "p".into(),
                args: vec!["1".into(), "(2 + 3)".into(), "@x".into()]
            }))
        );
        assert_eq!(
            parse("/*!50003 DROP PROCEDURE IF EXISTS `p` */;").unwrap(),
            Some(RoutineStmt::Drop { kind: RoutineKind::Procedure, if_exists: true, db: None, name: "p".into() })
        );
        assert_eq!(parse("CREATE TABLE t (a INT)").unwrap(), None);
        assert_eq!(
            parse("CREATE DEFINER = CURRENT_USER TRIGGER t BEFORE INSERT ON t FOR EACH ROW SET @a = 1").unwrap(),
            None
        );
        assert_eq!(parse("SHOW CREATE TABLE t").unwrap(), None);
        assert_eq!(parse("CREATE FUNCTION f RETURNS STRING SONAME 'x.so'").unwrap_err().code, 1235);
        assert_eq!(params("a INT, A INT", RoutineKind::Procedure).unwrap_err().code, 1330);
    }

    #[test]
    fn function_bodies_are_checked_for_return_and_may_use_tables() {
        let def = |kind, params: &str, returns: &str, body: &str| RoutineDef {
            db: "d".into(),
            name: "r".into(),
            kind,
            params: params.into(),
            returns: returns.into(),
            body: body.into(),
            comment: String::new(),
            deterministic: false,
            data_access: "CONTAINS SQL".into(),
            security_definer: true,
            definer: "root@localhost".into(),
            sql_mode: String::new(),
            created: String::new(),
            modified: String::new(),
            character_set_client: String::new(),
            collation_connection: String::new(),
            database_collation: String::new(),
        };
        let f = RoutineKind::Function;
        let p = RoutineKind::Procedure;
        assert_eq!(prepare(&def(f, "a INT", "INT", "BEGIN SET @x = a; END")).err().unwrap().code, 1320);
        assert_eq!(prepare(&def(f, "", "INT", "SELECT 1")).err().unwrap().code, 1415);
        assert!(prepare(&def(f, "", "INT", "BEGIN INSERT INTO t VALUES (1); RETURN 1; END")).is_ok());
        assert_eq!(prepare(&def(p, "", "", "RETURN 1")).err().unwrap().code, 1313);
        assert!(prepare(&def(p, "", "", "BEGIN DECLARE c CURSOR FOR SELECT a FROM t; END")).is_ok());
        let cursor = "BEGIN DECLARE c CURSOR FOR SELECT a FROM t; RETURN 1; END";
        assert!(prepare(&def(f, "", "INT", cursor)).is_ok());
        assert!(is_native("upper") && is_native("count") && !is_native("my_func"));
        assert!(prepare(&def(f, "a INT", "INT", "BEGIN IF a > 0 THEN RETURN a; END IF; RETURN 0; END")).is_ok());
        assert!(prepare(&def(p, "IN a INT, OUT b INT", "", "BEGIN SELECT a; SET b = a * 2; CALL q(b); COMMIT; END"))
            .is_ok());
    }
}
