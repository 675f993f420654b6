//! Instant ADD COLUMN: new columns appended to a table by one catalog
//! write, no row touched (`row::instant` has the format's invariants).
//!
//! Under the DDL mutex, once no active transaction has a change in the
//! table (`Engine::quiesce`, MySQL's metadata lock) and with the table's
//! state latch held exclusively (no DML meanwhile), the definition with
//! the new columns and their instant defaults is written to the catalog
//! and made durable, then replaces the live one: the change is as atomic
//! as any catalog-only DDL (`Engine::update_def`). A crash before the
//! write leaves the table as it was; after it, rows of every age read
//! correctly, since each row says (by its format version, or its field
//! count) which columns it holds. Secondary indexes are untouched: a new
//! column has none.

use super::super::catalog;
use super::Engine;
use crate::row::{instant, Column};
use crate::{Error, Result};

impl Engine {
    /// Appends `added` (each with its `instant_default` set) to `name`'s
    /// columns without rewriting a row. Refused (`InvalidSchema`) for a
    /// table clustered on a hidden row id, an AUTO_INCREMENT column, or a
    /// row that could then exceed the page's limits.
    pub fn add_columns_instant(&self, name: &str, added: Vec<Column>) -> Result<()> {
        self.check_ddl_allowed(name)?;
        let _ddl = self.ddl.lock();
        let t = self.table(name)?;
        let mut st = Self::quiesce(&t)?;
        let mut def = st.def.clone();
        instant::check_append(&def.schema, &added)
            .map_err(|why| Error::InvalidSchema(format!("no instant ADD COLUMN: {why}")))?;
        def.schema.columns.extend(added);
        def.schema.validate(self.cfg.page_size)?;
        debug_assert!(instant::has_instant(&def.schema));
        self.catalog.update(&catalog::table_key(name), &catalog::encode(&def))?;
        self.log.flush_up_to(crate::mtr::last_commit_lsn())?; // DDL is durable in every commit mode
        st.def = def;
        Ok(())
    }
}
