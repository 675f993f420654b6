//! RESIGNAL and GET DIAGNOSTICS, as MySQL's grammar reads them
//! (`resignal_stmt`, `get_diagnostics`).

use sqlparser::tokenizer::Token;

use super::Parser;
use crate::error::Result;
use crate::routine::ast::{DiagItem, GetDiagnostics, Stmt, Target};

impl Parser<'_> {
    /// After RESIGNAL: `[SQLSTATE [VALUE] 'xxxxx' | condition] [SET ...]`.
    pub(crate) fn resignal(&mut self) -> Result<Stmt> {
        let sqlstate = if self.eat("SQLSTATE") {
            self.eat("VALUE");
            Some((self.sqlstate()?, false))
        } else if matches!(self.peek(), Some(Token::Word(_))) && !self.is_word("SET") {
            Some((self.ident()?, true))
        } else {
            None
        };
        let (message, errno) = self.signal_items()?;
        Ok(Stmt::Resignal { sqlstate, message, errno })
    }

    /// At GET: `GET [CURRENT | STACKED] DIAGNOSTICS {target = item, ... |
    /// CONDITION n target = item, ...}`.
    pub(crate) fn get_diagnostics(&mut self) -> Result<Stmt> {
        self.expect("GET")?;
        let stacked = self.eat("STACKED");
        if !stacked {
            self.eat("CURRENT");
        }
        self.expect("DIAGNOSTICS")?;
        let condition = if self.eat("CONDITION") { Some(self.condition_number()?) } else { None };
        let mut items = Vec::new();
        loop {
            let target = self.target()?;
            if !matches!(target, Target::Name(_) | Target::User(_)) {
                return Err(self.error());
            }
            self.expect_token(&Token::Eq)?;
            let item = match self.peek() {
                Some(Token::Word(w)) if w.quote_style.is_none() => DiagItem::named(&w.value, condition.is_some()),
                _ => None,
            };
            let Some(item) = item else { return Err(self.error()) };
            self.advance();
            items.push((target, item));
            if !self.eat_token(&Token::Comma) {
                break;
            }
        }
        Ok(Stmt::GetDiagnostics(GetDiagnostics { stacked, condition, items }))
    }

    /// A condition number: a literal or a variable (MySQL's
    /// `signal_allowed_expr`), as written.
    fn condition_number(&mut self) -> Result<String> {
        let start = self.offset();
        match self.peek() {
            Some(Token::Number(..) | Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)) => self.advance(),
            Some(Token::Word(w)) if w.value == "@" => {
                // `@'name'`
                self.advance();
                self.string()?;
            }
            Some(Token::Word(_)) => self.advance(),
            _ => return Err(self.error()),
        }
        Ok(self.src[start..self.offset()].trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::routine::ast::{DiagItem, GetDiagnostics, Kind, Stmt, Target};
    use crate::routine::parse::program_of;

    fn parse(src: &str) -> crate::error::Result<Stmt> {
        program_of(src, Kind::Procedure)
    }

    #[test]
    fn get_diagnostics_reads_statement_or_condition_items() {
        assert_eq!(
            parse("GET DIAGNOSTICS @n = NUMBER, r = row_count").unwrap(),
            Stmt::GetDiagnostics(GetDiagnostics {
                stacked: false,
                condition: None,
                items: vec![
                    (Target::User("n".into()), DiagItem::Number),
                    (Target::Name("r".into()), DiagItem::RowCount)
                ],
            })
        );
        assert_eq!(
            parse("GET STACKED DIAGNOSTICS CONDITION @k m = MESSAGE_TEXT, @e = MYSQL_ERRNO").unwrap(),
            Stmt::GetDiagnostics(GetDiagnostics {
                stacked: true,
                condition: Some("@k".into()),
                items: vec![
                    (Target::Name("m".into()), DiagItem::MessageText),
                    (Target::User("e".into()), DiagItem::MysqlErrno)
                ],
            })
        );
        let Stmt::GetDiagnostics(g) = parse("GET CURRENT DIAGNOSTICS CONDITION 1 @s = RETURNED_SQLSTATE").unwrap()
        else {
            panic!()
        };
        assert_eq!((g.stacked, g.condition.as_deref()), (false, Some("1")));
    }

    #[test]
    fn get_diagnostics_refuses_items_of_the_other_kind_and_expressions() {
        for src in [
            "GET DIAGNOSTICS @n = MESSAGE_TEXT",
            "GET DIAGNOSTICS CONDITION 1 @n = NUMBER",
            "GET DIAGNOSTICS CONDITION 1+0 @m = MESSAGE_TEXT",
            "GET DIAGNOSTICS @x = NUMBER, CONDITION 1 @y = MESSAGE_TEXT",
            "GET DIAGNOSTICS NEW.a = NUMBER",
            "GET DIAGNOSTICS @n = NOSUCH",
            "GET STACKED @n = NUMBER",
        ] {
            assert_eq!(parse(src).unwrap_err().code, 1064, "{src}");
        }
    }

    #[test]
    fn resignal_forms() {
        assert_eq!(parse("RESIGNAL").unwrap(), Stmt::Resignal { sqlstate: None, message: None, errno: None });
        assert_eq!(
            parse("RESIGNAL SET MESSAGE_TEXT = 'x'").unwrap(),
            Stmt::Resignal { sqlstate: None, message: Some("'x'".into()), errno: None }
        );
        assert_eq!(
            parse("RESIGNAL SQLSTATE VALUE '45001' SET MYSQL_ERRNO = 1234, MESSAGE_TEXT = m").unwrap(),
            Stmt::Resignal {
                sqlstate: Some(("45001".into(), false)),
                message: Some("m".into()),
                errno: Some("1234".into())
            }
        );
        assert_eq!(
            parse("RESIGNAL gone").unwrap(),
            Stmt::Resignal { sqlstate: Some(("gone".into(), true)), message: None, errno: None }
        );
        assert_eq!(parse("RESIGNAL SQLSTATE '00000'").unwrap_err().code, 1407);
        assert_eq!(parse("RESIGNAL SET CLASS_ORIGIN = 'x'").unwrap_err().code, 1235);
    }
}
