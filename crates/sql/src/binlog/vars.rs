//! The binary log's system variables: the values quire does not do are
//! refused with 1235 (never accepted and ignored).
//!
//! | variable          | refused                         | why                                   |
//! |-------------------|---------------------------------|---------------------------------------|
//! | binlog_format     | STATEMENT, MIXED                | quire logs rows only                  |
//! | binlog_row_image  | MINIMAL, NOBLOB                 | only FULL images are written          |
//!
//! `gtid_mode`'s steps and the other GTID variables are checked in
//! `gtid.rs`.

use crate::sysvars::{VarError, VarValue};

/// `Err(1235)` for a value of a binary log variable quire does not do.
pub fn refuse(name: &str, v: &VarValue) -> Result<(), VarError> {
    let VarValue::Str(s) = v else { return Ok(()) };
    let ok = match name {
        "binlog_format" => s == "ROW",
        "binlog_row_image" => s == "FULL",
        _ => true,
    };
    if ok {
        return Ok(());
    }
    Err(VarError {
        code: 1235,
        state: "42000",
        message: format!("This version of quire doesn't yet support '{name}={s}'"),
    })
}
