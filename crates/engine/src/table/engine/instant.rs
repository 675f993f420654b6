//! Instant ADD COLUMN (and ALTER COLUMN SET / DROP DEFAULT): new columns
//! appended to a table, or defaults changed, by one catalog write, no
//! row touched (`row::instant` has the format's invariants).
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
    /// Replaces `name`'s columns by `columns` without rewriting a row:
    /// the old columns with at most their DEFAULTs changed (ALTER COLUMN
    /// SET / DROP DEFAULT), then the columns an instant ADD appends, each
    /// with its `instant_default` set (`row::instant::check_columns`;
    /// anything else is `InvalidSchema`, as is a row that could then
    /// exceed the page's limits).
    pub fn alter_columns_instant(&self, name: &str, columns: Vec<Column>) -> Result<()> {
        self.check_ddl_allowed(name)?;
        let _ddl = self.ddl.lock();
        let t = self.table(name)?;
        let mut st = Self::quiesce(&t)?;
        let mut def = st.def.clone();
        instant::check_columns(&def.schema, &columns)
            .map_err(|why| Error::InvalidSchema(format!("no instant ALTER TABLE: {why}")))?;
        def.schema.columns = columns;
        def.schema.validate(self.cfg.page_size)?;
        self.catalog.update(&catalog::table_key(name), &catalog::encode(&def))?;
        self.log.flush_up_to(crate::mtr::last_commit_lsn())?; // DDL is durable in every commit mode
        st.def = def;
        Ok(())
    }
}
