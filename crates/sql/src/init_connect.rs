//! `init_connect`: statements each new connection runs before its first
//! command, unless its user has SUPER (in quire: ALL on `*.*`), as MySQL
//! and MariaDB do. Result sets are discarded; a statement that fails ends
//! the connection with 1184 `ER_NEW_ABORTING_CONNECTION`.
//!
//! One deviation: MariaDB sends the OK of the login first and the 1184
//! as the answer to the client's first command; quire answers the login
//! with the 1184, so the client learns it at connect time.

use crate::error::{Result, SqlError};
use crate::session::Session;

impl Session {
    /// Runs `init_connect` for this new session (see the module note).
    pub fn run_init_connect(&mut self) -> Result<()> {
        let sql = match self.shared.sysvars.global("init_connect") {
            Some(v) => v.display(),
            None => return Ok(()),
        };
        if sql.trim().is_empty() || self.shared.catalog.user(&self.user).is_some_and(|u| u.grants.contains("*")) {
            return Ok(());
        }
        let failed = self.query(&sql, true).into_iter().any(|(r, _)| r.is_err());
        if !failed {
            return Ok(());
        }
        Err(SqlError::new(
            1184,
            "08S01",
            format!(
                "Aborted connection {} to db: '{}' user: '{}' host: 'localhost' (init_connect command failed)",
                self.connection_id,
                self.db.as_deref().unwrap_or("unconnected"),
                self.user
            ),
        ))
    }
}
