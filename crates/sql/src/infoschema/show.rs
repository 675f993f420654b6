//! SHOW statements that are views of information_schema, answered by
//! rewriting them into a SELECT over its tables (one implementation for
//! both): `SHOW {INDEX | INDEXES | KEYS} FROM t [FROM db] [WHERE e]`,
//! `SHOW TABLE STATUS [FROM db] [LIKE p | WHERE e]`, `SHOW [FULL] TABLES
//! [FROM db] [LIKE p | WHERE e]`, `SHOW [STORAGE] ENGINES`, `SHOW
//! {CHARACTER SET | CHARSET} [LIKE p | WHERE e]`, `SHOW COLLATION [LIKE
//! p | WHERE e]`, `SHOW PLUGINS [LIKE p | WHERE e]` and `SHOW OPEN TABLES
//! [FROM db] [LIKE p | WHERE e]` (over the hidden OPEN_TABLES, as MySQL
//! answers it). Column names are MySQL 8.0's (SHOW INDEX ends with
//! Visible and Expression; MariaDB has Ignored). LIKE matches the first
//! column; WHERE is evaluated over the statement's own columns (the
//! SELECT is wrapped as a derived table), as MySQL does.
//!
//! A missing database is 1049 and one the user may not use 1044 (checked
//! here, since the views would only come out empty); SHOW INDEX of a
//! missing table is 1146.

use crate::error::{Result, SqlError};
use crate::session::Session;

/// A string literal of `s`.
fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// The words and quoted names of a SHOW statement's text (quoted ones
/// keep their quote character first).
fn tokens(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = sql.chars().peekable();
    while let Some(&c) = it.peek() {
        if c.is_whitespace() || c == ';' {
            it.next();
        } else if c == '`' || c == '\'' || c == '"' {
            it.next();
            let mut s = String::from(c);
            crate::admin::read_quoted(&mut it, c, &mut s);
            out.push(s);
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let mut s = String::new();
            while let Some(&ch) = it.peek() {
                if ch.is_alphanumeric() || ch == '_' || ch == '$' {
                    s.push(ch);
                    it.next();
                } else {
                    break;
                }
            }
            out.push(s);
        } else {
            out.push(c.to_string());
            it.next();
        }
    }
    out
}

/// A filter: LIKE pattern or the WHERE clause's text.
enum Filter {
    None,
    Like(String),
    Where(String),
}

struct Parsed<'a> {
    t: Vec<String>,
    at: usize,
    sql: &'a str,
}

impl Parsed<'_> {
    fn word(&self, w: &str) -> bool {
        self.t.get(self.at).is_some_and(|t| t.eq_ignore_ascii_case(w))
    }

    fn eat(&mut self, w: &str) -> bool {
        let yes = self.word(w);
        self.at += yes as usize;
        yes
    }

    /// A name (bare or back-quoted).
    fn name(&mut self) -> Option<String> {
        let t = self.t.get(self.at)?;
        if t.starts_with('\'') || t.starts_with('"') || (t.len() == 1 && !t.starts_with(char::is_alphanumeric)) {
            return None;
        }
        self.at += 1;
        Some(t.strip_prefix('`').unwrap_or(t).to_string())
    }

    /// `{FROM | IN} name`.
    fn from(&mut self) -> Result<Option<String>> {
        if self.eat("FROM") || self.eat("IN") {
            return self.name().map(Some).ok_or_else(|| SqlError::syntax("a name after FROM"));
        }
        Ok(None)
    }

    /// `[LIKE 'p' | WHERE expr]` and the end of the statement.
    fn filter(&mut self) -> Result<Filter> {
        if self.eat("LIKE") {
            let p = self.t.get(self.at).filter(|t| t.starts_with('\'') || t.starts_with('"'));
            let p = p.ok_or_else(|| SqlError::syntax("a string after LIKE"))?[1..].to_string();
            self.at += 1;
            self.end()?;
            return Ok(Filter::Like(p));
        }
        if self.word("WHERE") {
            // The rest of the text after the WHERE keyword.
            let lower = self.sql.to_ascii_lowercase();
            let pos = find_word(&lower, "where").ok_or_else(|| SqlError::syntax("WHERE"))?;
            let text = self.sql[pos + 5..].trim().trim_end_matches(';').trim();
            return Ok(Filter::Where(text.to_string()));
        }
        self.end()?;
        Ok(Filter::None)
    }

    fn end(&self) -> Result<()> {
        match self.t.get(self.at) {
            None => Ok(()),
            Some(t) => Err(SqlError::syntax(format!("near '{t}'"))),
        }
    }
}

/// The byte position of the first whole word `w` of `text` (lower case)
/// outside quotes.
fn find_word(text: &str, w: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' || c == b'`' => quote = Some(c),
            None => {
                let before = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
                let after = b.get(i + w.len()).is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
                if before && after && b[i..].starts_with(w.as_bytes()) {
                    return Some(i);
                }
            }
        }
        i += 1;
    }
    None
}

/// `sql` with each versioned comment `/*!NNNNN words */` outside quotes
/// replaced by its words, as MySQL runs them (quire is 8.0.36: a version
/// above 80036 leaves the comment out); MariaDB's `/*M!...*/` are
/// comments to MySQL and stay.
fn expand_versioned(sql: &str) -> std::borrow::Cow<'_, str> {
    if !sql.contains("/*!") {
        return std::borrow::Cow::Borrowed(sql);
    }
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
            None if rest.starts_with("/*!") => {
                if let Some(end) = rest.find("*/") {
                    let body = &rest[3..end];
                    let digits = body.len() - body.trim_start_matches(|d: char| d.is_ascii_digit()).len();
                    if body[..digits].parse::<u32>().map_or(true, |v| v <= 80036) {
                        out.push(' ');
                        out.push_str(&body[digits..]);
                        out.push(' ');
                    }
                    rest = &rest[end + 2..];
                    continue;
                }
            }
            None => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// The SELECT over information_schema that `sql` is, if it is one of the
/// SHOW statements above.
pub fn rewrite(s: &Session, sql: &str) -> Result<Option<String>> {
    if !sql.trim_start().get(..4).is_some_and(|w| w.eq_ignore_ascii_case("show")) {
        return Ok(None);
    }
    // `SHOW /*!50002 FULL*/ TABLES` (mariadb-check): the comment's words.
    let expanded = expand_versioned(sql);
    let sql: &str = &expanded;
    let t = tokens(sql);
    if !t.first().is_some_and(|w| w.eq_ignore_ascii_case("SHOW")) {
        return Ok(None);
    }
    let mut p = Parsed { t, at: 1, sql };
    let db_of = |named: Option<String>| -> Result<String> {
        let db = named.or_else(|| s.db.clone()).ok_or_else(SqlError::no_database)?;
        crate::admin::check_access(s, &db)?;
        Ok(db)
    };
    p.eat("EXTENDED");
    let full = p.eat("FULL");
    // The rows keep the order their table makes them in (no ORDER BY).
    let mut unordered = false;
    let (select, filter, like_col) = if p.eat("INDEX") || p.eat("INDEXES") || p.eat("KEYS") {
        if full {
            return Ok(None);
        }
        let first = p.from()?.ok_or_else(|| SqlError::syntax("SHOW INDEX needs FROM table"))?;
        let (table, named_db) = if p.eat(".") {
            (p.name().ok_or_else(|| SqlError::syntax("a table name after '.'"))?, Some(first))
        } else {
            (first, None)
        };
        let named_db = p.from()?.or(named_db);
        let db = db_of(named_db)?;
        // A view has no keys: an empty set, as MariaDB answers.
        let view = s.temps.get(&db, &table).is_none() && s.shared.catalog.view(&db, &table).is_some();
        if !crate::infoschema::is_db(&db) && !view && s.engine().table(&s.table_key(&db, &table)).is_err() {
            return Err(SqlError::no_such_table(&db, &table));
        }
        let filter = p.filter()?;
        if matches!(filter, Filter::Like(_)) {
            return Err(SqlError::syntax("near 'LIKE'"));
        }
        let select = format!(
            "SELECT TABLE_NAME AS `Table`, NON_UNIQUE AS `Non_unique`, INDEX_NAME AS `Key_name`, \
             SEQ_IN_INDEX AS `Seq_in_index`, COLUMN_NAME AS `Column_name`, `COLLATION` AS `Collation`, \
             CARDINALITY AS `Cardinality`, SUB_PART AS `Sub_part`, PACKED AS `Packed`, NULLABLE AS `Null`, \
             INDEX_TYPE AS `Index_type`, `COMMENT` AS `Comment`, INDEX_COMMENT AS `Index_comment`, \
             IS_VISIBLE AS `Visible`, EXPRESSION AS `Expression` FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = {} AND TABLE_NAME = {}",
            lit(&db),
            lit(&table)
        );
        (select, filter, "")
    } else if p.eat("TABLE") {
        if !p.eat("STATUS") || full {
            return Ok(None);
        }
        let db = db_of(p.from()?)?;
        let filter = p.filter()?;
        let select = format!(
            "SELECT TABLE_NAME AS `Name`, ENGINE AS `Engine`, VERSION AS `Version`, ROW_FORMAT AS `Row_format`, \
             TABLE_ROWS AS `Rows`, AVG_ROW_LENGTH AS `Avg_row_length`, DATA_LENGTH AS `Data_length`, \
             MAX_DATA_LENGTH AS `Max_data_length`, INDEX_LENGTH AS `Index_length`, DATA_FREE AS `Data_free`, \
             AUTO_INCREMENT AS `Auto_increment`, CREATE_TIME AS `Create_time`, UPDATE_TIME AS `Update_time`, \
             CHECK_TIME AS `Check_time`, TABLE_COLLATION AS `Collation`, CHECKSUM AS `Checksum`, \
             CREATE_OPTIONS AS `Create_options`, TABLE_COMMENT AS `Comment` FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = {}",
            lit(&db)
        );
        (select, filter, "TABLE_NAME")
    } else if p.eat("TABLES") {
        let db = db_of(p.from()?)?;
        let filter = p.filter()?;
        let mut header = format!("Tables_in_{db}");
        if let Filter::Like(pat) = &filter {
            header.push_str(&format!(" ({pat})"));
        }
        let header = header.replace('`', "``");
        let kind = if full { ", TABLE_TYPE AS `Table_type`" } else { "" };
        let select = format!(
            "SELECT TABLE_NAME AS `{header}`{kind} FROM information_schema.TABLES WHERE TABLE_SCHEMA = {}",
            lit(&db)
        );
        (select, filter, "TABLE_NAME")
    } else if p.eat("ENGINES") || (p.eat("STORAGE") && p.eat("ENGINES")) {
        p.end()?;
        let select = "SELECT ENGINE AS `Engine`, SUPPORT AS `Support`, `COMMENT` AS `Comment`, \
                      TRANSACTIONS AS `Transactions`, XA AS `XA`, SAVEPOINTS AS `Savepoints` \
                      FROM information_schema.ENGINES WHERE 1"
            .to_string();
        (select, Filter::None, "")
    } else if (p.eat("CHARACTER") && p.eat("SET")) || p.eat("CHARSET") {
        let filter = p.filter()?;
        let select = "SELECT CHARACTER_SET_NAME AS `Charset`, DESCRIPTION AS `Description`, \
                      DEFAULT_COLLATE_NAME AS `Default collation`, MAXLEN AS `Maxlen` \
                      FROM information_schema.CHARACTER_SETS WHERE 1"
            .to_string();
        (select, filter, "CHARACTER_SET_NAME")
    } else if p.eat("COLLATION") {
        let filter = p.filter()?;
        let select = "SELECT COLLATION_NAME AS `Collation`, CHARACTER_SET_NAME AS `Charset`, ID AS `Id`, \
                      IS_DEFAULT AS `Default`, IS_COMPILED AS `Compiled`, SORTLEN AS `Sortlen` \
                      FROM information_schema.COLLATIONS WHERE 1"
            .to_string();
        (select, filter, "COLLATION_NAME")
    } else if p.eat("EVENTS") {
        if full {
            return Ok(None);
        }
        // A database that does not exist has no events (MariaDB answers
        // an empty list, not 1049).
        let named = p.from()?;
        let db = match named {
            Some(d) if !s.shared.catalog.database_exists(&d) => d,
            other => db_of(other)?,
        };
        let filter = p.filter()?;
        let select = format!(
            "SELECT EVENT_SCHEMA AS `Db`, EVENT_NAME AS `Name`, DEFINER AS `Definer`, TIME_ZONE AS `Time zone`, \
             EVENT_TYPE AS `Type`, EXECUTE_AT AS `Execute at`, INTERVAL_VALUE AS `Interval value`, \
             INTERVAL_FIELD AS `Interval field`, STARTS AS `Starts`, ENDS AS `Ends`, STATUS AS `Status`, \
             ORIGINATOR AS `Originator`, CHARACTER_SET_CLIENT AS `character_set_client`, \
             COLLATION_CONNECTION AS `collation_connection`, DATABASE_COLLATION AS `Database Collation` \
             FROM information_schema.EVENTS WHERE EVENT_SCHEMA = {}",
            lit(&db)
        );
        (select, filter, "EVENT_NAME")
    } else if p.word("FUNCTION") || p.word("PROCEDURE") {
        let kind = if p.eat("FUNCTION") { "FUNCTION" } else { "PROCEDURE" };
        if kind == "PROCEDURE" {
            p.eat("PROCEDURE");
        }
        if full || !p.eat("STATUS") {
            return Ok(None); // SHOW CREATE / SHOW ... CODE: not views
        }
        let filter = p.filter()?;
        let select = format!(
            "SELECT ROUTINE_SCHEMA AS `Db`, ROUTINE_NAME AS `Name`, ROUTINE_TYPE AS `Type`, DEFINER AS `Definer`, \
             LAST_ALTERED AS `Modified`, CREATED AS `Created`, SECURITY_TYPE AS `Security_type`, \
             ROUTINE_COMMENT AS `Comment`, CHARACTER_SET_CLIENT AS `character_set_client`, \
             COLLATION_CONNECTION AS `collation_connection`, DATABASE_COLLATION AS `Database Collation` \
             FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = {}",
            lit(kind)
        );
        (select, filter, "ROUTINE_NAME")
    } else if p.eat("TRIGGERS") {
        if full {
            return Ok(None);
        }
        let db = db_of(p.from()?)?;
        let filter = p.filter()?;
        let select = format!(
            "SELECT TRIGGER_NAME AS `Trigger`, EVENT_MANIPULATION AS `Event`, EVENT_OBJECT_TABLE AS `Table`, \
             ACTION_STATEMENT AS `Statement`, ACTION_TIMING AS `Timing`, CREATED AS `Created`, \
             SQL_MODE AS `sql_mode`, DEFINER AS `Definer`, CHARACTER_SET_CLIENT AS `character_set_client`, \
             COLLATION_CONNECTION AS `collation_connection`, DATABASE_COLLATION AS `Database Collation` \
             FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = {}",
            lit(&db)
        );
        (select, filter, "EVENT_OBJECT_TABLE")
    } else if p.eat("PLUGINS") {
        if full {
            return Ok(None);
        }
        // MySQL's SHOW PLUGINS takes no filter; MariaDB's takes LIKE and
        // WHERE, which are kept. The rows stay in registration order.
        let filter = p.filter()?;
        let select = "SELECT PLUGIN_NAME AS `Name`, PLUGIN_STATUS AS `Status`, PLUGIN_TYPE AS `Type`, \
                      PLUGIN_LIBRARY AS `Library`, PLUGIN_LICENSE AS `License` \
                      FROM information_schema.PLUGINS WHERE 1"
            .to_string();
        unordered = true;
        (select, filter, "PLUGIN_NAME")
    } else if p.eat("OPEN") {
        if full || !p.eat("TABLES") {
            return Ok(None);
        }
        // No check of the database: one that does not exist, or that the
        // user may not use, has no open table to list (MariaDB's answer).
        let db = p.from()?;
        let filter = p.filter()?;
        let mut select = "SELECT `Database`, `Table`, `In_use`, `Name_locked` \
                          FROM information_schema.OPEN_TABLES WHERE 1"
            .to_string();
        if let Some(db) = db {
            select.push_str(&format!(" AND `Database` = {}", lit(&db)));
        }
        // Rows come by database, then table (`open_tables::rows`).
        unordered = true;
        (select, filter, "`Table`")
    } else {
        return Ok(None);
    };
    let order = if like_col.is_empty() || unordered { String::new() } else { format!(" ORDER BY {like_col}") };
    Ok(Some(match filter {
        Filter::None => format!("{select}{order}"),
        Filter::Like(pat) => format!("{select} AND {like_col} LIKE {}{order}", lit(&pat)),
        Filter::Where(e) => format!("SELECT * FROM ({select}{order}) AS `show` WHERE {e}"),
    }))
}

#[cfg(test)]
mod tests {
    use super::find_word;

    #[test]
    fn versioned_comments_give_their_words_unless_newer_than_8_0_36() {
        use super::expand_versioned;
        assert_eq!(expand_versioned("SHOW /*!50002 FULL*/ TABLES"), "SHOW   FULL  TABLES");
        assert_eq!(expand_versioned("SHOW /*!90000 FULL*/ TABLES"), "SHOW  TABLES");
        assert_eq!(expand_versioned("SHOW TABLES LIKE '/*!1 x*/'"), "SHOW TABLES LIKE '/*!1 x*/'");
    }

    #[test]
    fn where_is_found_outside_quotes_only() {
        assert_eq!(find_word("show tables where `where` = 'where'", "where"), Some(12));
        assert_eq!(find_word("show tables like 'where'", "where"), None);
        assert_eq!(find_word("show tables_where", "where"), None);
    }
}
