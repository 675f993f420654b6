//! RESIGNAL and GET DIAGNOSTICS in the interpreter (invariant 5 of
//! `exec`): both read the handler that is running, GET [CURRENT]
//! DIAGNOSTICS the session's diagnostics area.

use quire_engine::row::Value;

use super::{signal_defaults, Dest, Flow, Sql, Vm};
use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::routine::ast::DiagItem;

impl<'p> Vm<'_, 'p> {
    /// RESIGNAL: without a SQLSTATE, the handler's condition again, its
    /// MYSQL_ERRNO / MESSAGE_TEXT changed where it stands in the area;
    /// with one, a new condition on top of it (its MESSAGE_TEXT kept
    /// unless set; its level and MYSQL_ERRNO the SQLSTATE's, as SIGNAL's).
    /// The area keeps what the handler took. An error leaves the handler
    /// and goes to the blocks outside it; a warning goes on.
    pub(super) fn resignal(
        &mut self,
        sqlstate: Option<&'static str>,
        message: Option<&Sql>,
        errno: Option<&Sql>,
    ) -> Result<Flow> {
        if self.active.is_empty() {
            return Err(SqlError::new(1645, "0K000", "RESIGNAL when handler not active"));
        }
        let (code, text) = self.signal_items(message, errno)?;
        let Some(a) = self.active.last_mut() else { return Ok(Flow::Next) };
        a.resignaled = true;
        let (old, number) = (a.cond.clone(), a.number);
        self.host.adopt_diagnostics();
        let raised = match sqlstate {
            None => {
                let mut c = old;
                c.code = code.unwrap_or(c.code);
                c.message = text.unwrap_or(c.message);
                if !self.host.update_condition(number, &c) {
                    self.host.warn(c.clone())?;
                }
                c
            }
            Some(state) => {
                if !self.host.update_condition(number, &old) {
                    self.host.warn(old.clone())?;
                }
                let (level, default_code, _) = signal_defaults(state);
                let c = Condition::with_state(level, code.unwrap_or(default_code), state, text.unwrap_or(old.message));
                self.host.warn(c.clone())?;
                c
            }
        };
        if raised.level == Level::Error {
            return Err(raised.into_error());
        }
        Ok(Flow::Next)
    }

    /// GET [CURRENT | STACKED] DIAGNOSTICS: NUMBER and ROW_COUNT, or the
    /// items of condition `condition` (1-based). A condition number out of
    /// range is no failure: it adds error 1758 to the area and assigns
    /// nothing (MySQL and MariaDB).
    pub(super) fn get_diagnostics(
        &mut self,
        stacked: bool,
        condition: Option<&Sql>,
        items: &'p [(Dest, DiagItem)],
    ) -> Result<Flow> {
        let (area, row_count) = if stacked {
            let Some(a) = self.active.last() else {
                return Err(SqlError::new(1887, "0Z002", "GET STACKED DIAGNOSTICS when handler not active"));
            };
            (a.stacked.clone(), a.row_count)
        } else {
            (self.host.diagnostics(), self.host.row_count())
        };
        let cond = match condition {
            None => None,
            Some(e) => {
                let n = crate::expr::to_i128(&self.eval(e)?);
                match n.filter(|n| *n >= 1 && *n <= area.len() as i128) {
                    Some(n) => Some(&area[n as usize - 1]),
                    None => {
                        self.host.adopt_diagnostics();
                        self.host.warn(Condition::new(Level::Error, 1758, "Invalid condition number"))?;
                        return Ok(Flow::Next);
                    }
                }
            }
        };
        for (d, item) in items {
            let v = match (item, cond) {
                (DiagItem::Number, _) => Value::Int(area.len() as i64),
                (DiagItem::RowCount, _) => Value::Int(row_count),
                (DiagItem::MessageText, Some(c)) => Value::Str(c.message.clone()),
                (DiagItem::MysqlErrno, Some(c)) => Value::Int(i64::from(c.code)),
                (DiagItem::ReturnedSqlstate, Some(c)) => Value::Str(c.state.to_string()),
                // No condition quire raises sets the others (SIGNAL's SET
                // takes MESSAGE_TEXT and MYSQL_ERRNO only): '' as MariaDB
                // reports them for its server errors.
                _ => Value::Str(String::new()),
            };
            self.assign(d, v)?;
        }
        Ok(Flow::Next)
    }
}
