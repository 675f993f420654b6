//! CREATE TRIGGER, DROP TRIGGER and SHOW CREATE TRIGGER (parsed here,
//! not by sqlparser), and what DROP TABLE, DROP DATABASE and RENAME TABLE
//! do to a table's triggers.

use sqlparser::tokenizer::Token;

use super::{store, Event, Timing, TriggerDef};
use crate::error::{Result, SqlError};
use crate::routine::parse::Parser;
use crate::routine::{db_of, sysvar_text};
use crate::session::Session;
use crate::Output;

/// A trigger statement.
#[derive(Debug, PartialEq)]
pub enum TriggerStmt {
    Create(CreateTrigger),
    Drop { if_exists: bool, db: Option<String>, name: String },
    ShowCreate { db: Option<String>, name: String },
}

#[derive(Debug, PartialEq)]
pub struct CreateTrigger {
    pub definer: Option<String>,
    pub if_not_exists: bool,
    pub db: Option<String>,
    pub name: String,
    pub timing: Timing,
    pub event: Event,
    pub table_db: Option<String>,
    pub table: String,
    /// FOLLOWS (true) or PRECEDES (false) another trigger.
    pub order: Option<(bool, String)>,
    pub body: String,
}

/// `CREATE ... TRIGGER` as mariadb-dump and mysqldump write it:
/// `/*!50003 CREATE*/ /*!50017 DEFINER=...*/ /*!50003 TRIGGER ... */`.
fn undumped(sql: &str) -> Option<String> {
    let t = sql.trim().trim_end_matches(';').trim_end();
    let rest = t.strip_prefix("/*!50003 CREATE*/")?.trim_start();
    let (definer, rest) = match rest.strip_prefix("/*!50017 ") {
        Some(r) => {
            let end = r.find("*/")?;
            (&r[..end], r[end + 2..].trim_start())
        }
        None => ("", rest),
    };
    let body = rest.strip_prefix("/*!50003 ")?.strip_suffix("*/")?;
    Some(format!("CREATE {definer} {body}"))
}

/// `[db.]name`.
fn qualified(p: &mut Parser<'_>) -> Result<(Option<String>, String)> {
    let first = p.ident()?;
    if p.eat_token(&Token::Period) {
        return Ok((Some(first), p.ident()?));
    }
    Ok((None, first))
}

/// A trigger statement, or `None` when `sql` is none.
pub fn parse(sql: &str) -> Result<Option<TriggerStmt>> {
    // Every COM_QUERY passes here: the first word is looked at in place,
    // without allocating.
    let head = sql.trim_start().as_bytes();
    let starts = |w: &str| head.len() >= w.len() && head[..w.len()].eq_ignore_ascii_case(w.as_bytes());
    if !(starts("CREATE") || starts("DROP") || starts("SHOW") || starts("/*!5000")) {
        return Ok(None);
    }
    let owned;
    let sql = match undumped(sql) {
        Some(s) => {
            owned = s;
            owned.as_str()
        }
        None => sql,
    };
    let Ok(mut p) = Parser::new(sql) else { return Ok(None) };
    if p.eat("DROP") {
        if !p.eat("TRIGGER") {
            return Ok(None);
        }
        let if_exists = p.eat("IF") && {
            p.expect("EXISTS")?;
            true
        };
        let (db, name) = qualified(&mut p)?;
        p.eat_token(&Token::SemiColon);
        if !p.at_end() {
            return Err(p.error());
        }
        return Ok(Some(TriggerStmt::Drop { if_exists, db, name }));
    }
    if p.eat("SHOW") {
        if !(p.eat("CREATE") && p.eat("TRIGGER")) {
            return Ok(None);
        }
        let (db, name) = qualified(&mut p)?;
        p.eat_token(&Token::SemiColon);
        if !p.at_end() {
            return Err(p.error());
        }
        return Ok(Some(TriggerStmt::ShowCreate { db, name }));
    }
    if !p.eat("CREATE") {
        return Ok(None);
    }
    let Some(definer) = definer(&mut p, sql) else { return Ok(None) };
    if !p.eat("TRIGGER") {
        return Ok(None);
    }
    let if_not_exists = p.eat("IF") && {
        p.expect("NOT")?;
        p.expect("EXISTS")?;
        true
    };
    let (db, name) = qualified(&mut p)?;
    let timing = if p.eat("BEFORE") {
        Timing::Before
    } else if p.eat("AFTER") {
        Timing::After
    } else {
        return Err(p.error());
    };
    let event = if p.eat("INSERT") {
        Event::Insert
    } else if p.eat("UPDATE") {
        Event::Update
    } else if p.eat("DELETE") {
        Event::Delete
    } else {
        return Err(p.error());
    };
    p.expect("ON")?;
    let (table_db, table) = qualified(&mut p)?;
    p.expect("FOR")?;
    p.expect("EACH")?;
    p.expect("ROW")?;
    let order = if p.eat("FOLLOWS") {
        Some((true, p.ident()?))
    } else if p.eat("PRECEDES") {
        Some((false, p.ident()?))
    } else {
        None
    };
    let body = sql[p.offset()..].trim().trim_end_matches(';').trim_end().to_string();
    if body.is_empty() {
        return Err(p.error());
    }
    Ok(Some(TriggerStmt::Create(CreateTrigger {
        definer,
        if_not_exists,
        db,
        name,
        timing,
        event,
        table_db,
        table,
        order,
        body,
    })))
}

/// After CREATE: `[DEFINER = account]`, the account as `u@h` (empty for
/// CURRENT_USER); `None` when what follows is no account.
pub(crate) fn definer(p: &mut Parser<'_>, sql: &str) -> Option<Option<String>> {
    if !p.eat("DEFINER") {
        return Some(None);
    }
    if !p.eat_token(&Token::Eq) {
        return None;
    }
    // The account's tokens, up to the object's keyword: CREATE
    // DEFINER = ... VIEW / PROCEDURE is not a trigger statement.
    let start = p.offset();
    let object = ["TRIGGER", "VIEW", "PROCEDURE", "FUNCTION", "EVENT", "SQL", "ALGORITHM"];
    while !p.at_end() && !object.iter().any(|k| p.is_word(k)) {
        if p.ident().is_err()
            && p.string().is_err()
            && !p.eat_token(&Token::AtSign)
            && !p.eat_token(&Token::LParen)
            && !p.eat_token(&Token::RParen)
        {
            return None;
        }
    }
    Some(Some(normalise_definer(&sql[start..p.offset()])))
}

/// `'u'@'h'`, `` `u`@`h` ``, `u@h`, `CURRENT_USER[()]` as `u@h` (quotes
/// dropped; CURRENT_USER is resolved by the caller).
fn normalise_definer(text: &str) -> String {
    let t: String = text.chars().filter(|c| !matches!(c, '\'' | '`' | '"' | ' ')).collect();
    if t.eq_ignore_ascii_case("CURRENT_USER") || t.eq_ignore_ascii_case("CURRENT_USER()") {
        return String::new();
    }
    t
}

/// 1360 ER_TRG_DOES_NOT_EXIST.
fn no_trigger() -> SqlError {
    SqlError::new(1360, "HY000", "Trigger does not exist")
}

/// The names a trigger of `event` and `timing` on `table` may use.
pub fn names_for(schema: &quire_engine::row::TableSchema, timing: Timing, event: Event) -> crate::routine::exec::Names {
    crate::routine::exec::Names {
        kind: crate::routine::ast::Kind::Trigger,
        params: vec![],
        columns: schema.visible_columns().to_vec(),
        event: event.name(),
        has_new: event != Event::Delete,
        has_old: event != Event::Insert,
        new_assignable: timing == Timing::Before,
    }
}

/// Runs CREATE / DROP TRIGGER (SHOW CREATE TRIGGER: `show`).
pub fn run(s: &mut Session, stmt: &TriggerStmt) -> Result<Output> {
    match stmt {
        TriggerStmt::Create(c) => create(s, c),
        TriggerStmt::Drop { if_exists, db, name } => drop(s, *if_exists, db, name),
        TriggerStmt::ShowCreate { db, name } => super::show::show_create(s, &db_of(s, db)?, name),
    }
}

fn create(s: &mut Session, c: &CreateTrigger) -> Result<Output> {
    let db = db_of(s, &c.db)?;
    crate::admin::check_access(s, &db)?;
    let table_db = match &c.table_db {
        Some(d) => d.clone(),
        None => db.clone(),
    };
    if table_db != db {
        return Err(SqlError::new(1435, "HY000", "Trigger in wrong schema"));
    }
    if c.name.chars().count() > 64 {
        return Err(SqlError::new(1059, "42000", format!("Identifier name '{}' is too long", c.name)));
    }
    if s.temps.get(&db, &c.table).is_some() {
        return Err(SqlError::new(
            1361,
            "HY000",
            format!("Trigger's '{}' is a view, temporary table or sequence", c.table),
        ));
    }
    if s.shared.catalog.view(&db, &c.table).is_some() {
        return Err(SqlError::new(1347, "HY000", format!("'{db}.{}' is not of type 'BASE TABLE'", c.table)));
    }
    if crate::catalog::is_unlisted(&db, &c.table)
        || crate::catalog::VIRTUAL_DATABASES.iter().any(|v| v.eq_ignore_ascii_case(&db))
    {
        return Err(SqlError::new(1465, "HY000", "Triggers can not be created on system tables"));
    }
    let table = s.engine().table(&format!("{db}/{}", c.table)).map_err(|_| SqlError::no_such_table(&db, &c.table))?;
    let shared = s.shared.clone();
    let reg = &shared.catalog.triggers;
    if reg.get(&db, &c.name).is_some() {
        let msg = format!("Trigger '{db}.{}' already exists", c.name);
        if c.if_not_exists {
            s.note(1359, msg);
            return Ok(Output::ok());
        }
        return Err(SqlError::new(1359, "HY000", msg));
    }
    // The body must parse and bind now (MySQL reports these at CREATE).
    let program = crate::routine::parse::program(&c.body)?;
    crate::routine::exec::prepare(&program, &names_for(&table.schema(), c.timing, c.event))?;
    let mut group: Vec<TriggerDef> = reg
        .of_table(&db, &c.table)
        .into_iter()
        .filter(|t| t.def.timing == c.timing && t.def.event == c.event)
        .map(|t| t.def.clone())
        .collect();
    let at = match &c.order {
        None => group.len(),
        Some((follows, other)) => {
            let i = group.iter().position(|d| d.name.eq_ignore_ascii_case(other)).ok_or_else(|| {
                SqlError::new(
                    4031,
                    "HY000",
                    format!("Referenced trigger '{other}' for the given action time and event type does not exist"),
                )
            })?;
            if *follows {
                i + 1
            } else {
                i
            }
        }
    };
    let definer = match c.definer.as_deref() {
        Some(d) if !d.is_empty() => d.to_string(),
        _ => format!("{}@localhost", s.user),
    };
    let now = crate::timezone::local_now();
    let created =
        format!("{} {:02}:{:02}:{:02}.{:02}", now.date, now.hour, now.minute, now.second, now.micros / 10_000);
    let def = TriggerDef {
        db: db.clone(),
        name: c.name.clone(),
        table: c.table.clone(),
        timing: c.timing,
        event: c.event,
        order: 0,
        definer,
        sql_mode: sysvar_text(s, "sql_mode"),
        created,
        body: c.body.clone(),
        character_set_client: sysvar_text(s, "character_set_client"),
        collation_connection: sysvar_text(s, "collation_connection"),
        database_collation: sysvar_text(s, "collation_database"),
    };
    store::check(&def)?;
    group.insert(at, def);
    let (before, mut changed): (Vec<_>, Vec<_>) = (group.clone(), Vec::new());
    for (i, d) in group.iter_mut().enumerate() {
        d.order = i as u32 + 1;
    }
    for (i, d) in group.iter().enumerate() {
        if i == at || before[i].order != d.order {
            changed.push(i);
        }
    }
    let gone: Vec<&TriggerDef> = changed.iter().filter(|&&i| i != at).map(|&i| &before[i]).collect();
    let put: Vec<&TriggerDef> = changed.iter().map(|&i| &group[i]).collect();
    s.commit()?; // DDL commits the open transaction
    store::write(s.engine(), &gone, &put)?;
    for &i in &changed {
        reg.put(group[i].clone());
    }
    s.shared.bump_epoch();
    Ok(Output::ok())
}

fn drop(s: &mut Session, if_exists: bool, db: &Option<String>, name: &str) -> Result<Output> {
    let db = db_of(s, db)?;
    crate::admin::check_access(s, &db)?;
    let Some(t) = s.shared.catalog.triggers.get(&db, name) else {
        if if_exists {
            s.note(1360, "Trigger does not exist".into());
            return Ok(Output::ok());
        }
        return Err(no_trigger());
    };
    s.commit()?;
    remove(s, std::slice::from_ref(&t.def))?;
    Ok(Output::ok())
}

/// Removes `defs` (each table's remaining triggers renumbered), stored
/// and in memory.
fn remove(s: &Session, defs: &[TriggerDef]) -> Result<()> {
    let reg = &s.shared.catalog.triggers;
    let mut gone: Vec<TriggerDef> = defs.to_vec();
    let mut put: Vec<TriggerDef> = Vec::new();
    for d in defs {
        let mut n = 0;
        for t in reg.of_table(&d.db, &d.table) {
            if t.def.timing != d.timing || t.def.event != d.event || defs.iter().any(|x| x.name == t.def.name) {
                continue;
            }
            n += 1;
            if t.def.order != n && !put.iter().any(|p| p.name == t.def.name && p.db == t.def.db) {
                gone.push(t.def.clone());
                put.push(TriggerDef { order: n, ..t.def.clone() });
            }
        }
    }
    store::write(s.engine(), &gone.iter().collect::<Vec<_>>(), &put.iter().collect::<Vec<_>>())?;
    for d in defs {
        reg.remove(&d.db, &d.name);
    }
    for d in put {
        reg.put(d);
    }
    s.shared.bump_epoch();
    Ok(())
}

/// DROP TABLE / DROP DATABASE: the dropped tables' triggers go too.
pub fn table_dropped(s: &Session, db: &str, table: Option<&str>) -> Result<()> {
    let reg = &s.shared.catalog.triggers;
    if !reg.any() {
        return Ok(());
    }
    let defs: Vec<TriggerDef> = reg
        .all()
        .into_iter()
        .filter(|t| t.def.db == db && table.is_none_or(|n| t.def.table == n))
        .map(|t| t.def.clone())
        .collect();
    if defs.is_empty() {
        return Ok(());
    }
    remove(s, &defs)
}

/// RENAME TABLE: 1435 when a table with triggers would move to another
/// database (MySQL's rule).
pub fn check_rename(s: &Session, from: &(String, String), to: &(String, String)) -> Result<()> {
    let reg = &s.shared.catalog.triggers;
    if from.0 != to.0 && reg.any() && !reg.of_table(&from.0, &from.1).is_empty() {
        return Err(SqlError::new(1435, "HY000", "Trigger in wrong schema"));
    }
    Ok(())
}

/// RENAME TABLE done: the triggers follow the table.
pub fn table_renamed(s: &Session, from: &(String, String), to: &(String, String)) -> Result<()> {
    let reg = &s.shared.catalog.triggers;
    if !reg.any() {
        return Ok(());
    }
    let old: Vec<TriggerDef> = reg.of_table(&from.0, &from.1).into_iter().map(|t| t.def.clone()).collect();
    if old.is_empty() {
        return Ok(());
    }
    let new: Vec<TriggerDef> = old.iter().map(|d| TriggerDef { table: to.1.clone(), ..d.clone() }).collect();
    store::write(s.engine(), &old.iter().collect::<Vec<_>>(), &new.iter().collect::<Vec<_>>())?;
    for d in new {
        reg.put(d);
    }
    s.shared.bump_epoch();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_trigger_statements_parse_with_their_parts() {
        let Some(TriggerStmt::Create(c)) = parse(
            "CREATE DEFINER=`root`@`localhost` TRIGGER IF NOT EXISTS d.tr BEFORE UPDATE ON d.t FOR EACH ROW PRECEDES x SET NEW.a = 1;",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.definer.as_deref(), Some("root@localhost"));
        assert!(c.if_not_exists);
        assert_eq!((c.db.as_deref(), c.name.as_str()), (Some("d"), "tr"));
        assert_eq!((c.timing, c.event), (Timing::Before, Event::Update));
        assert_eq!(c.order, Some((false, "x".into())));
        assert_eq!(c.body, "SET NEW.a = 1");
        let dumped = "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW BEGIN\n SET NEW.b = 1;\nEND */";
        let Some(TriggerStmt::Create(c)) = parse(dumped).unwrap() else { panic!() };
        assert_eq!(c.body, "BEGIN\n SET NEW.b = 1;\nEND");
        assert_eq!(
            parse("drop trigger if exists tr").unwrap(),
            Some(TriggerStmt::Drop { if_exists: true, db: None, name: "tr".into() })
        );
        assert_eq!(parse("CREATE TABLE t (a INT)").unwrap(), None);
        assert_eq!(parse("CREATE DEFINER = 'root'@'%' VIEW v AS SELECT 1").unwrap(), None);
        assert_eq!(parse("CREATE DEFINER = CURRENT_USER SQL SECURITY INVOKER VIEW v AS SELECT 1").unwrap(), None);
        assert_eq!(parse("DROP TABLE t").unwrap(), None);
    }
}
