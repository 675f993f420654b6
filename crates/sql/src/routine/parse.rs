//! The procedural parser: reads a stored program's body ([`Stmt`]) from
//! `sqlparser`'s tokens. Each embedded expression or SQL statement is
//! found by its extent (to the keyword or `;` that ends it, outside
//! parentheses and CASE ... END) and kept as its source text, which the
//! executor parses with the rest of quire's SQL.
//!
//! What stored programs may hold and quire does not run (other
//! statements) is refused here with 1235, when the program is created.

mod diagnostics;

use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::ast::{CondValue, Decl, Declare, Kind, Stmt, Target};
use crate::error::{Result, SqlError};

/// A token and where it starts in the source (bytes); it ends where the
/// next token starts.
#[derive(Clone, Debug)]
pub(crate) struct Tok {
    pub token: Token,
    pub start: usize,
}

/// Tokenizes `src`, whitespace and comments included (so that a token's
/// end is the next one's start).
pub(crate) fn tokens(src: &str) -> Result<Vec<Tok>> {
    let spans =
        Tokenizer::new(&MySqlDialect {}, src).tokenize_with_location().map_err(|e| SqlError::syntax(format!("{e}")))?;
    // Line starts in bytes; columns count characters from 1.
    let mut lines = vec![0usize];
    lines.extend(src.match_indices('\n').map(|(i, _)| i + 1));
    let offset = |line: u64, column: u64| -> usize {
        let Some(&ls) = lines.get((line as usize).saturating_sub(1)) else { return src.len() };
        src[ls..].char_indices().nth((column as usize).saturating_sub(1)).map_or(src.len(), |(i, _)| ls + i)
    };
    Ok(spans
        .into_iter()
        .filter(|t| t.token != Token::EOF)
        .map(|t| Tok { start: offset(t.span.start.line, t.span.start.column), token: t.token })
        .collect())
}

/// A trigger's body: one statement (a BEGIN ... END block or a single
/// statement), optionally followed by `;`.
pub fn program(src: &str) -> Result<Stmt> {
    program_of(src, Kind::Trigger)
}

/// The body of a program of `kind` ([`program`]).
pub fn program_of(src: &str, kind: Kind) -> Result<Stmt> {
    let mut p = Parser::new(src)?;
    p.kind = kind;
    let s = p.statement()?;
    p.eat_token(&Token::SemiColon);
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(s)
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<Tok>,
    /// Index into `toks` of the next significant token.
    pos: usize,
    /// The program being read (statements allowed, errors).
    pub(crate) kind: Kind,
}

fn is_space(t: &Token) -> bool {
    matches!(t, Token::Whitespace(_))
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Result<Self> {
        let toks = tokens(src)?;
        let mut p = Parser { src, toks, pos: 0, kind: Kind::Trigger };
        p.skip_space();
        Ok(p)
    }

    fn skip_space(&mut self) {
        while self.toks.get(self.pos).is_some_and(|t| is_space(&t.token)) {
            self.pos += 1;
        }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// Byte offset of the next significant token (the source's end at the end).
    pub(crate) fn offset(&self) -> usize {
        self.toks.get(self.pos).map_or(self.src.len(), |t| t.start)
    }

    pub(crate) fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos).map(|t| &t.token)
    }

    /// The significant token after the next one is the keyword `kw`.
    pub(crate) fn next_is_word(&self, kw: &str) -> bool {
        word_is(self.peek2(), kw)
    }

    /// The significant token after the next one.
    pub(crate) fn peek2(&self) -> Option<&Token> {
        self.toks[(self.pos + 1).min(self.toks.len())..].iter().map(|t| &t.token).find(|t| !is_space(t))
    }

    /// The source text from `start` to the next significant token.
    pub(crate) fn src_since(&self, start: usize) -> String {
        self.src[start..self.offset()].trim().to_string()
    }

    pub(crate) fn advance(&mut self) {
        self.pos += 1;
        self.skip_space();
    }

    /// 1064 near the next token, as MySQL words it.
    pub(crate) fn error(&self) -> SqlError {
        let rest: String = self.src[self.offset()..].chars().take(40).collect();
        SqlError::syntax(format!(
            "check the manual that corresponds to your MariaDB server version for the right syntax to use near '{rest}'"
        ))
    }

    /// The next token is the (unquoted) keyword `kw`.
    pub(crate) fn is_word(&self, kw: &str) -> bool {
        word_is(self.peek(), kw)
    }

    pub(crate) fn eat(&mut self, kw: &str) -> bool {
        if self.is_word(kw) {
            self.advance();
            return true;
        }
        false
    }

    pub(crate) fn expect(&mut self, kw: &str) -> Result<()> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    pub(crate) fn eat_token(&mut self, t: &Token) -> bool {
        if self.peek() == Some(t) {
            self.advance();
            return true;
        }
        false
    }

    pub(crate) fn expect_token(&mut self, t: &Token) -> Result<()> {
        if self.eat_token(t) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// An identifier (quoted or not).
    pub(crate) fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let v = w.value.clone();
                self.advance();
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    /// A string literal.
    pub(crate) fn string(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                let v = s.clone();
                self.advance();
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    /// `[label:]` before BEGIN / WHILE / REPEAT / LOOP.
    fn label(&mut self) -> Option<String> {
        match (self.peek(), self.peek2()) {
            (Some(Token::Word(w)), Some(Token::Colon)) => {
                let l = w.value.clone();
                self.advance();
                self.advance();
                Some(l)
            }
            _ => None,
        }
    }

    /// `END <what> [label]`: the closing label must match the opening one.
    fn end_label(&mut self, label: &Option<String>) -> Result<()> {
        if let Some(Token::Word(w)) = self.peek() {
            if w.quote_style.is_some() || !is_reserved_after_end(&w.value) {
                let closing = w.value.clone();
                if !label.as_ref().is_some_and(|l| l.eq_ignore_ascii_case(&closing)) {
                    return Err(SqlError::new(1310, "42000", format!("End-label {closing} without match")));
                }
                self.advance();
            }
        }
        Ok(())
    }

    pub(crate) fn statement(&mut self) -> Result<Stmt> {
        let label = self.label();
        if self.eat("BEGIN") {
            return self.block(label);
        }
        if self.eat("WHILE") {
            let cond = self.expr_until(&["DO"])?;
            self.expect("DO")?;
            let body = self.statements(&["END"])?;
            self.expect("END")?;
            self.expect("WHILE")?;
            self.end_label(&label)?;
            return Ok(Stmt::While { label, cond, body });
        }
        if self.eat("REPEAT") {
            let body = self.statements(&["UNTIL"])?;
            self.expect("UNTIL")?;
            let until = self.expr_until(&["END"])?;
            self.expect("END")?;
            self.expect("REPEAT")?;
            self.end_label(&label)?;
            return Ok(Stmt::Repeat { label, body, until });
        }
        if self.eat("LOOP") {
            let body = self.statements(&["END"])?;
            self.expect("END")?;
            self.expect("LOOP")?;
            self.end_label(&label)?;
            return Ok(Stmt::Loop { label, body });
        }
        if label.is_some() {
            return Err(self.error());
        }
        if self.eat("SET") {
            return self.set();
        }
        if self.eat("IF") {
            return self.if_stmt();
        }
        if self.eat("CASE") {
            return self.case_stmt();
        }
        if self.eat("LEAVE") {
            return Ok(Stmt::Leave(self.ident()?));
        }
        if self.eat("ITERATE") {
            return Ok(Stmt::Iterate(self.ident()?));
        }
        if self.eat("SIGNAL") {
            return self.signal();
        }
        if self.eat("RESIGNAL") {
            return self.resignal();
        }
        if self.is_word("GET") {
            return self.get_diagnostics();
        }
        if self.eat("OPEN") {
            return Ok(Stmt::Open(self.ident()?));
        }
        if self.eat("CLOSE") {
            return Ok(Stmt::Close(self.ident()?));
        }
        if self.eat("FETCH") {
            if self.eat("NEXT") {
                self.expect("FROM")?;
            } else {
                self.eat("FROM");
            }
            let cursor = self.ident()?;
            self.expect("INTO")?;
            let mut targets = vec![self.target()?];
            while self.eat_token(&Token::Comma) {
                targets.push(self.target()?);
            }
            return Ok(Stmt::Fetch { cursor, targets });
        }
        if self.is_word("DECLARE") {
            // Declarations come first in a block (MySQL's grammar).
            return Err(self.error());
        }
        if let Some(s) = self.session_statement()? {
            return Ok(s);
        }
        for kw in ["INSERT", "REPLACE", "UPDATE", "DELETE"] {
            if self.is_word(kw) {
                return Ok(Stmt::Sql(self.sql_text()?));
            }
        }
        if self.is_word("RETURN") {
            if self.kind != Kind::Function {
                return Err(SqlError::new(1313, "42000", "RETURN is only allowed in a FUNCTION"));
            }
            self.advance();
            return Ok(Stmt::Return(self.expr_until(&[])?));
        }
        if self.kind == Kind::Procedure {
            if self.eat("CALL") {
                return self.call();
            }
            // Transactions follow the session (MySQL allows them here).
            for kw in ["COMMIT", "ROLLBACK", "START", "SAVEPOINT", "RELEASE"] {
                if self.is_word(kw) {
                    return Ok(Stmt::Sql(self.sql_text()?));
                }
            }
        }
        if self.kind == Kind::Function && ["COMMIT", "ROLLBACK", "START"].iter().any(|k| self.is_word(k)) {
            return Err(SqlError::new(
                1422,
                "HY000",
                "Explicit or implicit commit is not allowed in stored function or trigger.",
            ));
        }
        if self.is_word("SELECT") || self.is_word("WITH") || self.peek() == Some(&Token::LParen) {
            return self.select_into();
        }
        let what = match self.peek() {
            Some(Token::Word(w)) => w.value.to_ascii_uppercase(),
            _ => return Err(self.error()),
        };
        Err(SqlError::unsupported(format!("{what} in a stored program")))
    }

    /// After BEGIN: declarations, then statements, to END [label].
    fn block(&mut self, label: Option<String>) -> Result<Stmt> {
        let mut decls: Vec<Decl> = Vec::new();
        while self.eat("DECLARE") {
            let d = self.declare()?;
            let rank = |d: &Decl| match d {
                Decl::Var(_) | Decl::Condition { .. } => 0,
                Decl::Cursor { .. } => 1,
                Decl::Handler { .. } => 2,
            };
            match (decls.iter().map(rank).max().unwrap_or(0), rank(&d)) {
                (1 | 2, 0) => {
                    return Err(SqlError::new(
                        1337,
                        "42000",
                        "Variable or condition declaration after cursor or handler declaration",
                    ))
                }
                (2, 1) => return Err(SqlError::new(1338, "42000", "Cursor declaration after handler declaration")),
                _ => {}
            }
            decls.push(d);
            self.expect_token(&Token::SemiColon)?;
        }
        let body = self.statements(&["END"])?;
        self.expect("END")?;
        self.end_label(&label)?;
        Ok(Stmt::Block { label, decls, body })
    }

    fn declare(&mut self) -> Result<Decl> {
        if (self.is_word("CONTINUE") || self.is_word("EXIT")) && word_is(self.peek2(), "HANDLER") {
            let exit = self.is_word("EXIT");
            self.advance();
            self.advance();
            self.expect("FOR")?;
            let mut conds = vec![self.cond_value(true)?];
            while self.eat_token(&Token::Comma) {
                conds.push(self.cond_value(true)?);
            }
            let body = Box::new(self.statement()?);
            return Ok(Decl::Handler { exit, conds, body });
        }
        if self.is_word("UNDO") && word_is(self.peek2(), "HANDLER") {
            // Reserved by the standard, run by neither MySQL nor MariaDB.
            return Err(self.error());
        }
        let first = self.ident()?;
        if self.eat("CONDITION") {
            self.expect("FOR")?;
            return Ok(Decl::Condition { name: first, value: self.cond_value(false)? });
        }
        if self.eat("CURSOR") {
            self.expect("FOR")?;
            if !(self.is_word("SELECT") || self.is_word("WITH") || self.peek() == Some(&Token::LParen)) {
                return Err(self.error());
            }
            let select = self.sql_text()?;
            return Ok(Decl::Cursor { name: first, select });
        }
        let mut names = vec![first];
        while self.eat_token(&Token::Comma) {
            names.push(self.ident()?);
        }
        let data_type = self.expr_until(&["DEFAULT"])?;
        let default = if self.eat("DEFAULT") { Some(self.expr_until(&[])?) } else { None };
        Ok(Decl::Var(Declare { names, data_type, default }))
    }

    /// A condition value: `SQLSTATE [VALUE] 'xxxxx'` or an error code;
    /// for a handler (`handler`) also SQLWARNING, NOT FOUND, SQLEXCEPTION
    /// and a condition's name.
    fn cond_value(&mut self, handler: bool) -> Result<CondValue> {
        if self.eat("SQLSTATE") {
            self.eat("VALUE");
            return Ok(CondValue::State(self.sqlstate()?));
        }
        if let Some(Token::Number(n, _)) = self.peek() {
            let code = n.parse::<u16>().ok().filter(|c| *c > 0);
            let Some(code) = code else {
                return Err(SqlError::new(1064, "42000", format!("Incorrect CONDITION value: '{n}'")));
            };
            self.advance();
            return Ok(CondValue::Code(code));
        }
        if !handler {
            return Err(self.error());
        }
        if self.eat("SQLWARNING") {
            return Ok(CondValue::Warning);
        }
        if self.eat("SQLEXCEPTION") {
            return Ok(CondValue::Exception);
        }
        if self.eat("NOT") {
            self.expect("FOUND")?;
            return Ok(CondValue::NotFound);
        }
        Ok(CondValue::Named(self.ident()?))
    }

    /// A SQLSTATE literal: five letters or digits, not of class 00 (1407).
    fn sqlstate(&mut self) -> Result<String> {
        let sqlstate = self.string()?;
        if sqlstate.len() != 5 || !sqlstate.bytes().all(|b| b.is_ascii_alphanumeric()) || sqlstate.starts_with("00") {
            return Err(SqlError::new(1407, "42000", format!("Bad SQLSTATE: '{sqlstate}'")));
        }
        Ok(sqlstate)
    }

    /// Statements each ended by `;`, up to one of `stops` (not eaten).
    fn statements(&mut self, stops: &[&str]) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        while !stops.iter().any(|s| self.is_word(s)) {
            if self.at_end() {
                return Err(self.error());
            }
            out.push(self.statement()?);
            self.expect_token(&Token::SemiColon)?;
        }
        Ok(out)
    }

    fn target(&mut self) -> Result<Target> {
        let Some(Token::Word(w)) = self.peek() else { return Err(self.error()) };
        let (name, quoted) = (w.value.clone(), w.quote_style.is_some());
        if name.starts_with("@@") && !quoted {
            return Err(SqlError::unsupported("SET of a system variable in a stored program"));
        }
        self.advance();
        if let Some(user) = name.strip_prefix('@').filter(|_| !quoted) {
            // `@'quoted name'` tokenizes as `@` then a string.
            if user.is_empty() {
                return Ok(Target::User(self.string()?.to_ascii_lowercase()));
            }
            return Ok(Target::User(user.to_ascii_lowercase()));
        }
        if self.eat_token(&Token::Period) {
            let col = self.ident()?;
            if name.eq_ignore_ascii_case("NEW") {
                return Ok(Target::New(col));
            }
            if name.eq_ignore_ascii_case("OLD") {
                return Ok(Target::Old(col));
            }
            return Err(SqlError::unsupported(format!("SET of {name}.{col} in a stored program")));
        }
        Ok(Target::Name(name))
    }

    fn set(&mut self) -> Result<Stmt> {
        if let Some(s) = self.set_transaction()? {
            return Ok(s);
        }
        let mut items = Vec::new();
        loop {
            let t = match self.system_target()? {
                Some(t) => t,
                None => self.target()?,
            };
            let bare = matches!(&t, Target::System(lhs) if super::session_stmts::takes_no_equals(lhs));
            if !bare && !self.eat_token(&Token::Eq) {
                // `:=` tokenizes as one token.
                self.expect_token(&Token::Assignment)?;
            }
            items.push((t, self.expr_until(&[","])?));
            if !self.eat_token(&Token::Comma) {
                break;
            }
        }
        Ok(Stmt::Set(items))
    }

    fn if_stmt(&mut self) -> Result<Stmt> {
        let mut arms = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.expr_until(&["THEN"])?;
            self.expect("THEN")?;
            let body = self.statements(&["ELSEIF", "ELSE", "END"])?;
            arms.push((cond, body));
            if self.eat("ELSEIF") {
                continue;
            }
            if self.eat("ELSE") {
                otherwise = Some(self.statements(&["END"])?);
            }
            break;
        }
        self.expect("END")?;
        self.expect("IF")?;
        Ok(Stmt::If { arms, otherwise })
    }

    fn case_stmt(&mut self) -> Result<Stmt> {
        let operand = if self.is_word("WHEN") { None } else { Some(self.expr_until(&["WHEN"])?) };
        let mut arms = Vec::new();
        while self.eat("WHEN") {
            let v = self.expr_until(&["THEN"])?;
            self.expect("THEN")?;
            arms.push((v, self.statements(&["WHEN", "ELSE", "END"])?));
        }
        if arms.is_empty() {
            return Err(self.error());
        }
        let otherwise = if self.eat("ELSE") { Some(self.statements(&["END"])?) } else { None };
        self.expect("END")?;
        self.expect("CASE")?;
        Ok(Stmt::Case { operand, arms, otherwise })
    }

    fn signal(&mut self) -> Result<Stmt> {
        let (sqlstate, named) = if self.eat("SQLSTATE") {
            self.eat("VALUE");
            (self.sqlstate()?, false)
        } else {
            (self.ident()?, true)
        };
        let (message, errno) = self.signal_items()?;
        Ok(Stmt::Signal { sqlstate, named, message, errno })
    }

    /// SIGNAL's and RESIGNAL's `[SET MESSAGE_TEXT = e, MYSQL_ERRNO = e]`.
    fn signal_items(&mut self) -> Result<(Option<String>, Option<String>)> {
        let (mut message, mut errno) = (None, None);
        if self.eat("SET") {
            loop {
                let item = self.ident()?.to_ascii_uppercase();
                self.expect_token(&Token::Eq)?;
                let v = self.expr_until(&[","])?;
                match item.as_str() {
                    "MESSAGE_TEXT" => message = Some(v),
                    "MYSQL_ERRNO" => errno = Some(v),
                    other => return Err(SqlError::unsupported(format!("SIGNAL ... SET {other}"))),
                }
                if !self.eat_token(&Token::Comma) {
                    break;
                }
            }
        }
        Ok((message, errno))
    }

    /// After CALL: `[db.]name[(arg, ...)]`, each argument's text.
    pub(crate) fn call(&mut self) -> Result<Stmt> {
        let (db, name) = self.qualified()?;
        let mut args = Vec::new();
        if self.eat_token(&Token::LParen) && !self.eat_token(&Token::RParen) {
            loop {
                args.push(self.expr_until(&[",", ")"])?);
                if self.eat_token(&Token::RParen) {
                    break;
                }
                self.expect_token(&Token::Comma)?;
            }
        }
        Ok(Stmt::Call { db, name, args })
    }

    /// `[db.]name`.
    pub(crate) fn qualified(&mut self) -> Result<(Option<String>, String)> {
        let first = self.ident()?;
        if self.eat_token(&Token::Period) {
            return Ok((Some(first), self.ident()?));
        }
        Ok((None, first))
    }

    /// A plain SQL statement: its text to the `;` that ends it (or the end).
    fn sql_text(&mut self) -> Result<String> {
        self.expr_until(&[])
    }

    /// SELECT ... INTO targets ...: the SELECT's text without the INTO
    /// clause; a SELECT without INTO would return rows (1415).
    fn select_into(&mut self) -> Result<Stmt> {
        let start = self.offset();
        let mut depth = 0usize;
        let mut cut: Option<(usize, usize)> = None;
        let mut targets = Vec::new();
        while let Some(t) = self.peek() {
            match t {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                Token::SemiColon if depth == 0 => break,
                _ => {}
            }
            if depth == 0 && self.is_word("INTO") && cut.is_none() {
                let from = self.offset();
                self.advance();
                if self.is_word("OUTFILE") || self.is_word("DUMPFILE") {
                    return Err(SqlError::unsupported("SELECT ... INTO OUTFILE in a stored program"));
                }
                loop {
                    targets.push(self.target()?);
                    if !self.eat_token(&Token::Comma) {
                        break;
                    }
                }
                cut = Some((from, self.offset()));
                continue;
            }
            self.advance();
        }
        let end = self.offset();
        let Some((from, to)) = cut else {
            let what = match self.kind {
                Kind::Procedure => return Ok(Stmt::Select(self.src[start..end].trim().to_string())),
                Kind::Function => "function",
                Kind::Trigger => "trigger",
            };
            return Err(SqlError::new(1415, "0A000", format!("Not allowed to return a result set from a {what}")));
        };
        let select = format!("{} {}", &self.src[start..from], &self.src[to..end]).trim().to_string();
        Ok(Stmt::SelectInto { select, targets })
    }

    /// The source text from here to the first of `stops` (keywords, or
    /// `","`), `;` or the end, outside parentheses and CASE ... END.
    pub(crate) fn expr_until(&mut self, stops: &[&str]) -> Result<String> {
        let start = self.offset();
        let (mut parens, mut cases) = (0usize, 0usize);
        while let Some(t) = self.peek() {
            if parens == 0 && cases == 0 {
                let stop = match t {
                    Token::SemiColon => true,
                    Token::Comma => stops.contains(&","),
                    Token::RParen => stops.contains(&")"),
                    Token::Word(w) if w.quote_style.is_none() => stops.iter().any(|s| w.value.eq_ignore_ascii_case(s)),
                    _ => false,
                };
                if stop {
                    break;
                }
            }
            match t {
                Token::LParen => parens += 1,
                Token::RParen => parens = parens.saturating_sub(1),
                Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("CASE") => cases += 1,
                Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("END") && cases > 0 => {
                    cases -= 1
                }
                _ => {}
            }
            self.advance();
        }
        let text = self.src[start..self.offset()].trim();
        if text.is_empty() {
            return Err(self.error());
        }
        Ok(text.to_string())
    }
}

fn word_is(t: Option<&Token>, kw: &str) -> bool {
    matches!(t, Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
}

/// Words that may follow `END` and are not a closing label.
fn is_reserved_after_end(w: &str) -> bool {
    ["IF", "CASE", "WHILE", "REPEAT", "LOOP", "ELSE", "ELSEIF", "WHEN", "END", "UNTIL"]
        .iter()
        .any(|k| k.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_with_declarations_loops_and_signal() {
        let src = "lbl: BEGIN DECLARE i, j INT DEFAULT (1 + 2); DECLARE s VARCHAR(10);
            WHILE i < 10 DO SET i = i + 1, @x = CASE WHEN i > 2 THEN 'a' END; END WHILE;
            r: REPEAT SET NEW.a = NEW.a + 1; UNTIL NEW.a > 5 END REPEAT r;
            IF i = 1 THEN LEAVE lbl; ELSEIF i = 2 THEN ITERATE r; ELSE SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no;pe', MYSQL_ERRNO = 1644; END IF;
            INSERT INTO t VALUES (NEW.a, 'x;y');
            SELECT COUNT(*) INTO j FROM t WHERE a > (SELECT 1);
            END lbl";
        let Stmt::Block { label, decls, body } = program(src).unwrap() else { panic!() };
        assert_eq!(label.as_deref(), Some("lbl"));
        let [Decl::Var(d0), Decl::Var(d1)] = &decls[..] else { panic!() };
        assert_eq!(d0.names, ["i", "j"]);
        assert_eq!(d0.data_type, "INT");
        assert_eq!(d0.default.as_deref(), Some("(1 + 2)"));
        assert_eq!(d1.data_type, "VARCHAR(10)");
        assert_eq!(body.len(), 5);
        let Stmt::While { cond, body: wb, .. } = &body[0] else { panic!() };
        assert_eq!(cond, "i < 10");
        assert_eq!(
            wb[0],
            Stmt::Set(vec![
                (Target::Name("i".into()), "i + 1".into()),
                (Target::User("x".into()), "CASE WHEN i > 2 THEN 'a' END".into())
            ])
        );
        let Stmt::If { arms, otherwise } = &body[2] else { panic!() };
        assert_eq!(arms.len(), 2);
        assert_eq!(
            otherwise.as_ref().unwrap()[0],
            Stmt::Signal {
                sqlstate: "45000".into(),
                named: false,
                message: Some("'no;pe'".into()),
                errno: Some("1644".into())
            }
        );
        assert_eq!(body[3], Stmt::Sql("INSERT INTO t VALUES (NEW.a, 'x;y')".into()));
        assert_eq!(
            body[4],
            Stmt::SelectInto {
                select: "SELECT COUNT(*)  FROM t WHERE a > (SELECT 1)".into(),
                targets: vec![Target::Name("j".into())]
            }
        );
    }

    #[test]
    fn single_statement_bodies() {
        assert_eq!(program("SET NEW.a = 1").unwrap(), Stmt::Set(vec![(Target::New("a".into()), "1".into())]));
        assert_eq!(program("INSERT INTO t VALUES (1);").unwrap(), Stmt::Sql("INSERT INTO t VALUES (1)".into()));
    }

    #[test]
    fn unsupported_parts_are_refused_not_ignored() {
        for src in ["CALL p()", "BEGIN DO 1; END"] {
            assert_eq!(program(src).unwrap_err().code, 1235, "{src}");
        }
        assert_eq!(program("BEGIN LOCK TABLES t READ; END").unwrap_err().code, 1314, "MariaDB's code");
        assert_eq!(program("SELECT 1").unwrap_err().code, 1415);
        assert_eq!(program("BEGIN SET @a = 1; DECLARE x INT; END").unwrap_err().code, 1064);
        assert_eq!(program("a: LOOP LEAVE a; END LOOP b").unwrap_err().code, 1310);
        assert_eq!(program("BEGIN SET @a = 1 END").unwrap_err().code, 1064);
    }

    #[test]
    fn cursors_conditions_and_handlers_in_their_order() {
        let src = "BEGIN DECLARE done INT DEFAULT 0; DECLARE dup CONDITION FOR 1062;
            DECLARE c CURSOR FOR SELECT a, b FROM t WHERE a > done;
            DECLARE CONTINUE HANDLER FOR NOT FOUND, SQLSTATE '22001' SET done = 1;
            DECLARE EXIT HANDLER FOR dup, SQLEXCEPTION, 1146 BEGIN END;
            OPEN c; FETCH NEXT FROM c INTO x, @y; FETCH c INTO x; CLOSE c; SIGNAL dup; END";
        let Stmt::Block { decls, body, .. } = program_of(src, Kind::Procedure).unwrap() else { panic!() };
        assert_eq!(decls[1], Decl::Condition { name: "dup".into(), value: CondValue::Code(1062) });
        assert_eq!(decls[2], Decl::Cursor { name: "c".into(), select: "SELECT a, b FROM t WHERE a > done".into() });
        let Decl::Handler { exit: false, conds, .. } = &decls[3] else { panic!() };
        assert_eq!(conds, &[CondValue::NotFound, CondValue::State("22001".into())]);
        let Decl::Handler { exit: true, conds, .. } = &decls[4] else { panic!() };
        assert_eq!(conds, &[CondValue::Named("dup".into()), CondValue::Exception, CondValue::Code(1146)]);
        assert_eq!(body[0], Stmt::Open("c".into()));
        assert_eq!(
            body[1],
            Stmt::Fetch { cursor: "c".into(), targets: vec![Target::Name("x".into()), Target::User("y".into())] }
        );
        assert_eq!(body[3], Stmt::Close("c".into()));
        let order = |src: &str| program_of(src, Kind::Procedure).unwrap_err().code;
        assert_eq!(order("BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE a INT; END"), 1337);
        assert_eq!(order("BEGIN DECLARE EXIT HANDLER FOR 1 BEGIN END; DECLARE c CURSOR FOR SELECT 1; END"), 1338);
        assert_eq!(order("BEGIN DECLARE EXIT HANDLER FOR SQLSTATE '00000' BEGIN END; END"), 1407);
        assert_eq!(order("BEGIN DECLARE UNDO HANDLER FOR SQLEXCEPTION BEGIN END; END"), 1064);
    }
}
