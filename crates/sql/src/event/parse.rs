//! CREATE / ALTER / DROP EVENT and SHOW CREATE EVENT, read with the
//! routines' parser (sqlparser does not know MySQL's event syntax). The
//! schedule's times and interval are kept as the expressions written:
//! `ddl` evaluates them in the creating session.
//!
//! Dumps wrap the statement in versioned comments
//! (`/*!50106 CREATE*/ /*!50117 DEFINER=...*/ /*!50106 EVENT ... */`):
//! [`unversioned`] takes them off first.

use sqlparser::tokenizer::Token;

use super::schedule::{Unit, MICROSECOND_UNITS};
use super::Status;
use crate::error::{Result, SqlError};
use crate::routine::parse::Parser;

/// An event statement.
#[derive(Debug, PartialEq)]
pub enum EventStmt {
    Create(CreateEvent),
    Alter(AlterEvent),
    Drop { if_exists: bool, db: Option<String>, name: String },
    ShowCreate { db: Option<String>, name: String },
}

/// `ON SCHEDULE ...` as written: each time and the interval's value an
/// expression's text.
#[derive(Clone, Debug, PartialEq)]
pub enum ScheduleText {
    At(String),
    Every { value: String, unit: Unit, starts: Option<String>, ends: Option<String> },
}

#[derive(Debug, PartialEq)]
pub struct CreateEvent {
    /// `u@h`; empty for CURRENT_USER.
    pub definer: Option<String>,
    pub if_not_exists: bool,
    pub db: Option<String>,
    pub name: String,
    pub schedule: ScheduleText,
    pub preserve: bool,
    pub status: Status,
    pub comment: String,
    pub body: String,
}

/// What ALTER EVENT changes (`None`: kept).
#[derive(Debug, Default, PartialEq)]
pub struct AlterEvent {
    pub definer: Option<String>,
    pub db: Option<String>,
    pub name: String,
    pub schedule: Option<ScheduleText>,
    pub preserve: Option<bool>,
    pub rename: Option<(Option<String>, String)>,
    pub status: Option<Status>,
    pub comment: Option<String>,
    pub body: Option<String>,
}

impl EventStmt {
    /// The statement carries a body (CREATE, or ALTER ... DO).
    pub fn has_body(&self) -> bool {
        match self {
            EventStmt::Create(_) => true,
            EventStmt::Alter(a) => a.body.is_some(),
            EventStmt::Drop { .. } | EventStmt::ShowCreate { .. } => false,
        }
    }
}

/// `sql` without the versioned comments' markers (`/*!NNNNN` and their
/// `*/`), outside quotes; `None` when there are none.
pub fn unversioned(sql: &str) -> Option<String> {
    if !sql.trim_start().starts_with("/*!") {
        return None;
    }
    let b = sql.as_bytes();
    let (mut out, mut i, mut depth, mut quote) = (String::with_capacity(sql.len()), 0usize, 0usize, None::<u8>);
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' && q != b'`' && i + 1 < b.len() {
                out.push_str(&sql[i..i + 2]);
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
        } else if matches!(c, b'\'' | b'"' | b'`') {
            quote = Some(c);
        } else if sql[i..].starts_with("/*!") {
            let digits = b[i + 3..].iter().take_while(|d| d.is_ascii_digit()).count();
            i += 3 + digits;
            depth += 1;
            continue;
        } else if depth > 0 && sql[i..].starts_with("*/") {
            i += 2;
            depth -= 1;
            continue;
        }
        let ch = sql[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    Some(out)
}

fn at_end(p: &mut Parser<'_>) -> Result<()> {
    p.eat_token(&Token::SemiColon);
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(())
}

/// Where a time's expression ends.
const AFTER_TIME: &[&str] = &["STARTS", "ENDS", "ON", "ENABLE", "DISABLE", "COMMENT", "DO", "RENAME"];

fn schedule(p: &mut Parser<'_>) -> Result<ScheduleText> {
    if p.eat("AT") {
        return Ok(ScheduleText::At(p.expr_until(AFTER_TIME)?));
    }
    p.expect("EVERY")?;
    let words = Unit::words();
    let value = p.expr_until(&words)?;
    let unit = match p.peek() {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.value.clone(),
        _ => return Err(p.error()),
    };
    if MICROSECOND_UNITS.iter().any(|m| m.eq_ignore_ascii_case(&unit)) {
        return Err(SqlError::unsupported(unit.to_ascii_uppercase()));
    }
    let unit = Unit::from_name(&unit).ok_or_else(|| p.error())?;
    p.eat(unit.name());
    if value.trim().is_empty() {
        return Err(p.error());
    }
    let starts = if p.eat("STARTS") { Some(p.expr_until(AFTER_TIME)?) } else { None };
    let ends = if p.eat("ENDS") { Some(p.expr_until(AFTER_TIME)?) } else { None };
    Ok(ScheduleText::Every { value, unit, starts, ends })
}

/// `ON COMPLETION [NOT] PRESERVE`, after its ON.
fn completion(p: &mut Parser<'_>) -> Result<bool> {
    p.expect("COMPLETION")?;
    let not = p.eat("NOT");
    p.expect("PRESERVE")?;
    Ok(!not)
}

fn status(p: &mut Parser<'_>) -> Result<Option<Status>> {
    if p.eat("ENABLE") {
        return Ok(Some(Status::Enabled));
    }
    if p.eat("DISABLE") {
        if p.eat("ON") {
            p.expect("SLAVE")?;
            return Ok(Some(Status::SlavesideDisabled));
        }
        return Ok(Some(Status::Disabled));
    }
    Ok(None)
}

/// The body after DO: the rest of the text.
fn body(p: &mut Parser<'_>, sql: &str) -> Result<String> {
    let b = sql[p.offset()..].trim().trim_end_matches(';').trim_end().to_string();
    if b.is_empty() {
        return Err(p.error());
    }
    Ok(b)
}

/// An event statement, or `None` when `sql` is none.
pub fn parse(sql: &str) -> Result<Option<EventStmt>> {
    // Every COM_QUERY passes here: the first words are looked at in place.
    let head = sql.trim_start().as_bytes();
    let starts = |w: &str| head.len() >= w.len() && head[..w.len()].eq_ignore_ascii_case(w.as_bytes());
    if !(starts("CREATE") || starts("ALTER") || starts("DROP") || starts("SHOW") || starts("/*!")) {
        return Ok(None);
    }
    let owned = unversioned(sql);
    let sql = owned.as_deref().unwrap_or(sql);
    let Ok(mut p) = Parser::new(sql) else { return Ok(None) };
    if p.eat("DROP") {
        if !p.eat("EVENT") {
            return Ok(None);
        }
        let if_exists = p.eat("IF") && {
            p.expect("EXISTS")?;
            true
        };
        let (db, name) = p.qualified()?;
        at_end(&mut p)?;
        return Ok(Some(EventStmt::Drop { if_exists, db, name }));
    }
    if p.eat("SHOW") {
        if !(p.eat("CREATE") && p.eat("EVENT")) {
            return Ok(None);
        }
        let (db, name) = p.qualified()?;
        at_end(&mut p)?;
        return Ok(Some(EventStmt::ShowCreate { db, name }));
    }
    let create = if p.eat("CREATE") {
        true
    } else if p.eat("ALTER") {
        false
    } else {
        return Ok(None);
    };
    let Some(definer) = crate::trigger::ddl::definer(&mut p, sql) else { return Ok(None) };
    if !p.eat("EVENT") {
        return Ok(None);
    }
    if create {
        let if_not_exists = p.eat("IF") && {
            p.expect("NOT")?;
            p.expect("EXISTS")?;
            true
        };
        let (db, name) = p.qualified()?;
        p.expect("ON")?;
        p.expect("SCHEDULE")?;
        let schedule = schedule(&mut p)?;
        let preserve = p.eat("ON") && completion(&mut p)?;
        let status = status(&mut p)?.unwrap_or(Status::Enabled);
        let comment = if p.eat("COMMENT") { p.string()? } else { String::new() };
        p.expect("DO")?;
        let body = body(&mut p, sql)?;
        let c = CreateEvent { definer, if_not_exists, db, name, schedule, preserve, status, comment, body };
        return Ok(Some(EventStmt::Create(c)));
    }
    let (db, name) = p.qualified()?;
    let mut a = AlterEvent { definer, db, name, ..Default::default() };
    if p.is_word("ON") {
        p.eat("ON");
        if p.eat("SCHEDULE") {
            a.schedule = Some(schedule(&mut p)?);
            if p.eat("ON") {
                a.preserve = Some(completion(&mut p)?);
            }
        } else {
            a.preserve = Some(completion(&mut p)?);
        }
    }
    if p.eat("RENAME") {
        p.expect("TO")?;
        a.rename = Some(p.qualified()?);
    }
    a.status = status(&mut p)?;
    if p.eat("COMMENT") {
        a.comment = Some(p.string()?);
    }
    if p.eat("DO") {
        a.body = Some(body(&mut p, sql)?);
    } else {
        at_end(&mut p)?;
    }
    let nothing = a.schedule.is_none()
        && a.preserve.is_none()
        && a.rename.is_none()
        && a.status.is_none()
        && a.comment.is_none()
        && a.body.is_none()
        && a.definer.is_none();
    if nothing {
        return Err(p.error());
    }
    Ok(Some(EventStmt::Alter(a)))
}

/// The body holds CREATE or ALTER EVENT (1576: MySQL forbids them in an
/// event's body; DROP EVENT it allows).
pub fn has_event_ddl(body: &str) -> bool {
    let Ok(toks) = crate::routine::parse::tokens(body) else { return false };
    let words: Vec<String> = toks
        .iter()
        .filter_map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            Token::Whitespace(_) => None,
            _ => Some(String::new()),
        })
        .collect();
    words.windows(2).any(|w| matches!(w[0].as_str(), "CREATE" | "ALTER") && w[1] == "EVENT")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_event_statements_parse_with_their_schedules() {
        let Some(EventStmt::Create(c)) = parse(
            "CREATE DEFINER=`root`@`localhost` EVENT IF NOT EXISTS d.e ON SCHEDULE EVERY '1:30' HOUR_MINUTE \
             STARTS '2030-01-01' + INTERVAL 1 DAY ENDS NOW() + INTERVAL 1 YEAR ON COMPLETION PRESERVE \
             DISABLE ON SLAVE COMMENT 'it''s' DO BEGIN INSERT INTO t VALUES (1); END;",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.definer.as_deref(), Some("root@localhost"));
        assert!(c.if_not_exists && c.preserve);
        assert_eq!((c.db.as_deref(), c.name.as_str()), (Some("d"), "e"));
        assert_eq!(
            c.schedule,
            ScheduleText::Every {
                value: "'1:30'".into(),
                unit: Unit::HourMinute,
                starts: Some("'2030-01-01' + INTERVAL 1 DAY".into()),
                ends: Some("NOW() + INTERVAL 1 YEAR".into()),
            }
        );
        assert_eq!((c.status, c.comment.as_str()), (Status::SlavesideDisabled, "it's"));
        assert_eq!(c.body, "BEGIN INSERT INTO t VALUES (1); END");

        let Some(EventStmt::Create(c)) = parse("create event e on schedule at now() do delete from t").unwrap() else {
            panic!()
        };
        assert_eq!((c.schedule, c.status, c.preserve), (ScheduleText::At("now()".into()), Status::Enabled, false));
        assert_eq!(parse("CREATE EVENT e ON SCHEDULE EVERY 1 MICROSECOND DO SELECT 1").unwrap_err().code, 1235);
        assert_eq!(parse("CREATE EVENT e ON SCHEDULE EVERY 1 FORTNIGHT DO SELECT 1").unwrap_err().code, 1064);
        assert_eq!(parse("CREATE EVENT e ON SCHEDULE AT NOW()").unwrap_err().code, 1064);
        assert_eq!(parse("CREATE TABLE t (a INT)").unwrap(), None);
        assert_eq!(parse("CREATE PROCEDURE p() SELECT 1").unwrap(), None);
    }

    #[test]
    fn alter_drop_and_show_create_event_parse() {
        let Some(EventStmt::Alter(a)) =
            parse("ALTER EVENT e ON COMPLETION PRESERVE RENAME TO d.f DISABLE COMMENT 'x'").unwrap()
        else {
            panic!()
        };
        assert_eq!((a.preserve, a.status, a.comment.as_deref()), (Some(true), Some(Status::Disabled), Some("x")));
        assert_eq!(a.rename, Some((Some("d".into()), "f".into())));
        assert_eq!(parse("ALTER EVENT e").unwrap_err().code, 1064);
        // MySQL's order: ON SCHEDULE before ON COMPLETION.
        assert_eq!(parse("ALTER EVENT e ON COMPLETION PRESERVE ON SCHEDULE AT NOW()").unwrap_err().code, 1064);
        assert_eq!(
            parse("DROP EVENT IF EXISTS d.e").unwrap(),
            Some(EventStmt::Drop { if_exists: true, db: Some("d".into()), name: "e".into() })
        );
        assert_eq!(parse("SHOW CREATE EVENT e").unwrap(), Some(EventStmt::ShowCreate { db: None, name: "e".into() }));
        assert_eq!(parse("SHOW CREATE TABLE e").unwrap(), None);
        assert_eq!(
            parse("/*!50106 DROP EVENT IF EXISTS `e` */;").unwrap(),
            Some(EventStmt::Drop { if_exists: true, db: None, name: "e".into() })
        );
        let Some(EventStmt::Create(c)) = parse(
            "/*!50106 CREATE*/ /*!50117 DEFINER=`root`@`localhost`*/ /*!50106 EVENT `e` ON SCHEDULE AT '2030-01-01 00:00:00' ON COMPLETION NOT PRESERVE ENABLE DO insert into t values ('*/') */",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.body, "insert into t values ('*/')");
    }

    #[test]
    fn event_ddl_in_a_body_is_found() {
        assert!(has_event_ddl("CREATE EVENT y ON SCHEDULE EVERY 1 DAY DO SELECT 1"));
        assert!(has_event_ddl("BEGIN INSERT INTO t VALUES (1); ALTER EVENT e DISABLE; END"));
        assert!(!has_event_ddl("DROP EVENT e"));
        assert!(!has_event_ddl("INSERT INTO event VALUES ('create event')"));
    }
}
