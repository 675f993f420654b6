//! The forms of CREATE TABLE beyond a plain column list (`admin::create_table`
//! handles that one and calls in here):
//!
//! - [`options`]: table options (`AUTO_INCREMENT=n`, `COMMENT`, `ENGINE`)
//!   and column COMMENTs, read into the definition's `TableExtras`
//!   (engine catalog version 4);
//! - [`check`]: CHECK constraints: their definition, storage and
//!   enforcement on INSERT / UPDATE / upserts;
//! - [`generated`]: generated columns (VIRTUAL and STORED): their
//!   definition, storage and computation on every write;
//! - [`like`]: `CREATE TABLE t LIKE s`;
//! - [`prefix`]: prefix indexes (`KEY (a(10))`);
//! - [`select`]: `CREATE TABLE t [(defs)] [AS] SELECT ...`;
//! - [`zerofill`]: the ZEROFILL attribute, which sqlparser does not read.
//!
//! `CREATE TEMPORARY TABLE` is refused (1235): quire has no session-private
//! tables yet.

pub mod binary_collation;
pub mod charset;
pub mod check;
pub mod generated;
pub mod like;
pub mod numeric;
pub mod options;
pub mod prefix;
pub mod select;
pub mod zerofill;
