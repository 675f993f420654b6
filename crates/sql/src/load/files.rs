//! Which server-side files LOAD DATA INFILE and SELECT ... INTO OUTFILE may
//! touch, and the errors MySQL gives for them.
//!
//! `secure_file_priv` (read-only, set at startup): `NULL` disables both
//! statements (1290), the empty string allows any path, a directory
//! allows the files under it (compared after resolving `..` and symbolic
//! links, so a link cannot lead out). quire's default is `NULL`, the
//! safe choice MySQL 8.0 makes with its own default directory; MariaDB
//! defaults to the empty string. The statements also need the FILE
//! privilege (global): 1045 without it, as MariaDB.

use std::path::{Path, PathBuf};

use crate::error::{Result, SqlError};
use crate::session::Session;

/// 1290: `secure_file_priv` refuses the path.
pub fn refused() -> SqlError {
    SqlError::new(
        1290,
        "HY000",
        "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement",
    )
}

/// The absolute path `name` names for the server (a relative name is
/// relative to the server's working directory), once the statement is
/// allowed to use it.
pub fn allowed(s: &Session, name: &str) -> Result<PathBuf> {
    if !s.shared.catalog.user(&s.user).is_some_and(|u| u.grants.contains("*")) {
        return Err(SqlError::new(
            1045,
            "28000",
            format!("Access denied for user '{}'@'%' (using password: YES)", s.user),
        ));
    }
    let priv_dir = match s.shared.sysvars.global("secure_file_priv") {
        Some(crate::sysvars::VarValue::Str(d)) => d,
        _ => "NULL".to_string(),
    };
    let path = std::env::current_dir().map(|d| d.join(name)).unwrap_or_else(|_| PathBuf::from(name));
    if priv_dir.eq_ignore_ascii_case("NULL") {
        return Err(refused());
    }
    if priv_dir.is_empty() {
        return Ok(path);
    }
    let dir = std::fs::canonicalize(&priv_dir).map_err(|_| refused())?;
    if !resolved(&path).is_some_and(|p| p.starts_with(&dir)) {
        return Err(refused());
    }
    Ok(path)
}

/// `p` with links and `..` resolved; a file not there yet resolves through
/// its directory.
fn resolved(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let parent = std::fs::canonicalize(p.parent()?).ok()?;
    Some(parent.join(p.file_name()?))
}

/// A file LOAD DATA cannot use, as MariaDB reports it: it stats the file
/// first (13 "Can't get stat", a missing file included; MySQL 8.0 says 29
/// there), then opens it (29 "File not found" with the reason).
pub fn open_error(name: &str, e: &std::io::Error, stat: bool) -> SqlError {
    let errno = e.raw_os_error().unwrap_or(0);
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => e.to_string(),
    };
    if stat {
        SqlError::new(13, "HY000", format!("Can't get stat of '{name}' (Errcode: {errno} \"{text}\")"))
    } else {
        SqlError::new(29, "HY000", format!("File '{name}' not found (Errcode: {errno} \"{text}\")"))
    }
}
