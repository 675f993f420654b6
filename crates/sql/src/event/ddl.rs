//! CREATE / ALTER / DROP EVENT and SHOW CREATE EVENT, and what DROP
//! DATABASE does to a database's events. The schedule's expressions are
//! evaluated here, in the creating session (its `time_zone` becomes the
//! event's), and checked with MySQL's errors: 1525 a time that is no
//! datetime, 1542 an interval not positive or too big, 1543 ENDS before
//! STARTS or in the past, 1588 / 1544 / 1589 an AT in the past.

use quire_engine::row::{tz, DateTime, Value};

use super::parse::{AlterEvent, CreateEvent, EventStmt, ScheduleText};
use super::schedule::{self, Unit};
use super::{already_exists, store, unknown_event, EventDef, Schedule, Status};
use crate::error::{Result, SqlError};
use crate::routine::ast::Kind;
use crate::routine::{db_of, sysvar_text};
use crate::session::Session;
use crate::sink::Collect;
use crate::Output;

/// The statement's time, UTC seconds.
pub(crate) fn now_secs() -> i64 {
    crate::timezone::statement_us().div_euclid(1_000_000)
}

pub(crate) fn utc_text(secs: i64) -> String {
    tz::from_unix_seconds(secs, 0).map(|d| d.format(0)).unwrap_or_default()
}

/// Runs an event statement.
pub fn run(s: &mut Session, stmt: &EventStmt) -> Result<Output> {
    match stmt {
        EventStmt::Create(c) => create(s, c),
        EventStmt::Alter(a) => alter(s, a),
        EventStmt::Drop { if_exists, db, name } => drop(s, *if_exists, db, name),
        EventStmt::ShowCreate { db, name } => super::show::show_create(s, &db_of(s, db)?, name),
    }
}

/// `SELECT expr` in the session: its one value.
fn eval(s: &mut Session, expr: &str) -> Result<Value> {
    let mut stmts = crate::session::parse(&format!("SELECT {expr}"))?;
    if stmts.len() != 1 {
        return Err(SqlError::syntax(format!("near '{expr}'")));
    }
    let db = s.db.clone();
    let c = s.compile_in(stmts.remove(0), db.as_deref())?;
    let mut sink = Collect::default();
    s.execute(&c, &[], &mut sink)?;
    Ok(sink.rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
}

/// A time of the schedule (`what`: AT, STARTS, ENDS), as the session's
/// wall clock shows it; 1525 if it is no datetime.
fn time(s: &mut Session, expr: &str, what: &str) -> Result<DateTime> {
    let v = eval(s, expr)?;
    let dt = match &v {
        Value::DateTime(d) => Some(*d),
        Value::Date(d) => DateTime::parse(&format!("{d} 00:00:00")),
        Value::Str(t) => {
            let dt = DateTime::parse(t);
            if dt.is_none() {
                s.warn(1292, format!("Incorrect datetime value: '{t}'"));
            }
            dt
        }
        _ => None,
    };
    let dt = dt.filter(|d| d.date.month > 0 && d.date.day > 0);
    dt.map(|d| d.with_fsp(0)).ok_or_else(|| {
        let shown = if v == Value::Null { "NULL".to_string() } else { crate::expr::as_string(&v) };
        SqlError::new(1525, "HY000", format!("Incorrect {what} value: '{shown}'"))
    })
}

fn bad_interval() -> SqlError {
    SqlError::new(1542, "HY000", "INTERVAL is either not positive or too big")
}

fn bad_ends() -> SqlError {
    SqlError::new(1543, "HY000", "ENDS is either invalid or before STARTS")
}

/// `EVERY`'s value as SHOW shows it: a whole number for a simple unit
/// (rounded, as MySQL), the text quoted for a compound one.
fn interval_value(s: &mut Session, expr: &str, unit: Unit) -> Result<String> {
    let v = eval(s, expr)?;
    if unit.is_compound() {
        return Ok(format!("'{}'", crate::expr::as_string(&v)));
    }
    let n = match &v {
        Value::Str(t) => match t.trim().parse::<f64>() {
            Ok(f) => f.round(),
            Err(_) => {
                s.warn(1292, format!("Truncated incorrect INTEGER value: '{t}'"));
                0.0
            }
        },
        other => crate::expr::to_f64(other).unwrap_or(0.0).round(),
    };
    Ok(format!("{}", n as i64))
}

/// The schedule `t` evaluated, with its checks (but not the one of an
/// AT in the past, which depends on the statement).
fn evaluate(s: &mut Session, t: &ScheduleText) -> Result<Schedule> {
    match t {
        ScheduleText::At(e) => Ok(Schedule::At(time(s, e, "AT")?.format(0))),
        ScheduleText::Every { value, unit, starts, ends } => {
            let value = interval_value(s, value, *unit)?;
            if schedule::step(&value, *unit).is_none() {
                return Err(bad_interval());
            }
            let starts = match starts {
                Some(e) => time(s, e, "STARTS")?,
                None => crate::timezone::local_now().with_fsp(0),
            };
            let ends = match ends {
                Some(e) => {
                    let end = time(s, e, "ENDS")?;
                    let zone = sysvar_text(s, "time_zone");
                    let end_utc = schedule::utc_secs(&end, &zone);
                    if end_utc < schedule::utc_secs(&starts, &zone) || end_utc < now_secs() {
                        return Err(bad_ends());
                    }
                    Some(end.format(0))
                }
                None => None,
            };
            Ok(Schedule::Every { value, unit: *unit, starts: starts.format(0), ends })
        }
    }
}

/// An AT schedule already past.
fn in_the_past(d: &EventDef) -> bool {
    match &d.schedule {
        Schedule::At(at) => DateTime::parse(at).is_some_and(|t| schedule::utc_secs(&t, &d.time_zone) < now_secs()),
        Schedule::Every { .. } => false,
    }
}

/// The body parses as a procedure's and names no event DDL (1576).
fn check_body(body: &str) -> Result<()> {
    if super::parse::has_event_ddl(body) {
        return Err(SqlError::new(
            1576,
            "HY000",
            "Recursion of EVENT DDL statements is forbidden when body is present",
        ));
    }
    let program = crate::routine::parse::program_of(body, Kind::Procedure)?;
    crate::routine::exec::prepare(&program, &crate::routine::exec::Names::routine(Kind::Procedure, vec![]))?;
    Ok(())
}

/// The database events go in: it exists, the user may use it, it is no
/// system schema.
fn check_db(s: &Session, db: &str) -> Result<()> {
    crate::admin::check_access(s, db)?;
    if crate::catalog::VIRTUAL_DATABASES.iter().any(|v| v.eq_ignore_ascii_case(db)) {
        let msg = format!("Access denied for user '{}'@'localhost' to database '{db}'", s.user);
        return Err(SqlError::new(1044, "42000", msg));
    }
    if !s.shared.catalog.database_exists(db) {
        return Err(SqlError::unknown_database(db));
    }
    Ok(())
}

fn check_name(name: &str) -> Result<()> {
    if name.chars().count() > 64 {
        return Err(SqlError::new(1059, "42000", format!("Identifier name '{name}' is too long")));
    }
    Ok(())
}

fn definer_of(s: &Session, given: &Option<String>) -> String {
    match given.as_deref() {
        Some(d) if !d.is_empty() => d.to_string(),
        _ => format!("{}@localhost", s.user),
    }
}

/// MariaDB's reminder that a scheduler that is off runs nothing.
fn warn_if_off(s: &Session) {
    if !super::scheduler::is_on(&s.shared) {
        s.warn(1105, "Event scheduler is switched off, use SET GLOBAL event_scheduler=ON to enable it.".into());
    }
}

fn create(s: &mut Session, c: &CreateEvent) -> Result<Output> {
    let db = db_of(s, &c.db)?;
    check_db(s, &db)?;
    check_name(&c.name)?;
    let schedule = evaluate(s, &c.schedule)?;
    check_body(&c.body)?;
    let now = utc_text(now_secs());
    let mut status = c.status;
    // An event that reaches a replica is not run there (MySQL).
    if s.replica_applier && status == Status::Enabled {
        status = Status::SlavesideDisabled;
    }
    let mut def = EventDef {
        db: db.clone(),
        name: c.name.clone(),
        definer: definer_of(s, &c.definer),
        time_zone: sysvar_text(s, "time_zone"),
        schedule,
        preserve: c.preserve,
        status,
        comment: c.comment.clone(),
        body: c.body.clone(),
        sql_mode: sysvar_text(s, "sql_mode"),
        created: now.clone(),
        modified: now,
        last_executed: None,
        originator: s.shared.sysvars.global("server_id").and_then(|v| v.as_u64()).unwrap_or(1),
        character_set_client: sysvar_text(s, "character_set_client"),
        collation_connection: sysvar_text(s, "collation_connection"),
        database_collation: sysvar_text(s, "collation_database"),
    };
    store::check(&def)?;
    let shared = s.shared.clone();
    let reg = &shared.catalog.events;
    let _g = reg.lock_change();
    if reg.get(&db, &c.name).is_some() {
        if c.if_not_exists {
            s.note(1537, format!("Event '{}' already exists", c.name));
            warn_if_off(s);
            return Ok(Output::ok());
        }
        return Err(already_exists(&c.name));
    }
    if in_the_past(&def) {
        if !def.preserve {
            s.note(
                1588,
                "Event execution time is in the past and ON COMPLETION NOT PRESERVE is set. \
                 The event was dropped immediately after creation"
                    .into(),
            );
            return Ok(Output::ok());
        }
        s.note(1544, "Event execution time is in the past. Event has been disabled".into());
        def.status = Status::Disabled;
    }
    s.commit()?; // DDL commits the open transaction
    store::write(s.engine(), &[], &[&def])?;
    reg.put(def);
    warn_if_off(s);
    super::scheduler::kick(&shared);
    Ok(Output::ok())
}

fn alter(s: &mut Session, a: &AlterEvent) -> Result<Output> {
    let db = db_of(s, &a.db)?;
    check_db(s, &db)?;
    let schedule = match &a.schedule {
        Some(t) => Some(evaluate(s, t)?),
        None => None,
    };
    if let Some(b) = &a.body {
        check_body(b)?;
    }
    let shared = s.shared.clone();
    let reg = &shared.catalog.events;
    let _g = reg.lock_change();
    let old = reg.get(&db, &a.name).ok_or_else(|| unknown_event(&a.name))?;
    let mut new = old.clone();
    if let Some((to_db, to_name)) = &a.rename {
        let to_db = db_of(s, to_db)?;
        check_db(s, &to_db)?;
        check_name(to_name)?;
        if to_db == db && to_name.eq_ignore_ascii_case(&a.name) {
            return Err(SqlError::new(1551, "HY000", "Same old and new event name"));
        }
        if reg.get(&to_db, to_name).is_some() {
            return Err(already_exists(to_name));
        }
        new.db = to_db;
        new.name = to_name.clone();
    }
    if let Some(sch) = schedule {
        new.schedule = sch;
        // A new schedule runs in the altering session's zone and counts
        // from now.
        new.time_zone = sysvar_text(s, "time_zone");
        new.last_executed = None;
    }
    if let Some(p) = a.preserve {
        new.preserve = p;
    }
    if let Some(st) = a.status {
        new.status = if s.replica_applier && st == Status::Enabled { Status::SlavesideDisabled } else { st };
    }
    if let Some(c) = &a.comment {
        new.comment = c.clone();
    }
    if let Some(b) = &a.body {
        new.body = b.clone();
        new.sql_mode = sysvar_text(s, "sql_mode");
    }
    if a.definer.is_some() {
        new.definer = definer_of(s, &a.definer);
    }
    if a.schedule.is_some() && in_the_past(&new) {
        if !new.preserve {
            return Err(SqlError::new(
                1589,
                "HY000",
                "Event execution time is in the past and ON COMPLETION NOT PRESERVE is set. \
                 The event was not changed. Specify a time in the future.",
            ));
        }
        s.note(1544, "Event execution time is in the past. Event has been disabled".into());
        new.status = Status::Disabled;
    }
    new.modified = utc_text(now_secs());
    store::check(&new)?;
    s.commit()?;
    store::write(s.engine(), &[&old], &[&new])?;
    reg.remove(&old.db, &old.name);
    reg.put(new);
    super::scheduler::kick(&shared);
    Ok(Output::ok())
}

fn drop(s: &mut Session, if_exists: bool, db: &Option<String>, name: &str) -> Result<Output> {
    let db = db_of(s, db)?;
    crate::admin::check_access(s, &db)?;
    let shared = s.shared.clone();
    let reg = &shared.catalog.events;
    let _g = reg.lock_change();
    let Some(old) = reg.get(&db, name) else {
        if if_exists {
            s.note(1305, format!("Event {name} does not exist"));
            return Ok(Output::ok());
        }
        return Err(unknown_event(name));
    };
    s.commit()?;
    store::write(s.engine(), &[&old], &[])?;
    reg.remove(&db, name);
    super::scheduler::kick(&shared);
    Ok(Output::ok())
}

/// DROP DATABASE: its events go too.
pub fn database_dropped(s: &Session, db: &str) -> Result<()> {
    let reg = &s.shared.catalog.events;
    let _g = reg.lock_change();
    let defs: Vec<EventDef> = reg.all().into_iter().filter(|d| d.db == db).collect();
    if defs.is_empty() {
        return Ok(());
    }
    store::write(s.engine(), &defs.iter().collect::<Vec<_>>(), &[])?;
    for d in &defs {
        reg.remove(&d.db, &d.name);
    }
    super::scheduler::kick(&s.shared);
    Ok(())
}
