//! SELECT ... INTO OUTFILE / INTO DUMPFILE / INTO @var: a query whose rows
//! go to a server file or to user variables instead of the client, as
//! MariaDB's `select_export`, `select_dump` and `select_dumpvar` do.
//!
//! The clause is cut out of the statement ([`clause`]); the rest is
//! compiled and run as any SELECT, with a [`RowSink`] that writes each row
//! where it goes. The statement answers OK with the number of rows as its
//! affected rows.
//!
//! MariaDB's rules, kept here:
//! 1. Files: the FILE privilege and `secure_file_priv` as LOAD DATA
//!    (`load/files.rs`: 1045, 1290); an existing file is 1086 (never
//!    overwritten); the file is created by the server, mode 0644, before
//!    the first row, and removed again when the statement fails.
//! 2. OUTFILE writes every row, in `export.rs`'s format (LOAD DATA reads
//!    it back); CHARACTER SET utf8mb4 / utf8 / binary write the text as it
//!    is, latin1 one byte a character (`?` for others); others are 1235.
//! 3. DUMPFILE writes one row's values with nothing between them; a
//!    result of more rows is 1172 (MariaDB counts from the third row:
//!    quire from the second, as MySQL 8.0 and the manual say).
//! 4. `@var`s take the first row's values, one per column (1222 when the
//!    counts differ, before any row); a second row is 1172 (the variables
//!    keep the first row's values); no row is warning 1329 and the
//!    variables stay as they were.
//! 5. INTO after FROM (at the end) answers MariaDB 10.11's deprecation
//!    warning 1287.

pub mod clause;
pub mod export;

use std::io::Write;
use std::path::PathBuf;

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::session::Session;
use crate::sink::{Answers, Outcome, RowSink};
pub use clause::{split, Split, Target};

fn too_many_rows() -> SqlError {
    SqlError::new(1172, "42000", "Result consisted of more than one row")
}

/// Where the rows go while the query runs.
enum Dest {
    Outfile(export::Outfile),
    Dumpfile,
    Vars { names: usize, first: Option<Vec<Value>> },
}

struct IntoSink {
    dest: Dest,
    file: Option<std::io::BufWriter<std::fs::File>>,
    path: String,
    types: Vec<MetaType>,
    rows: u64,
    buf: Vec<u8>,
}

impl IntoSink {
    fn write(&mut self) -> Result<()> {
        if let Some(f) = &mut self.file {
            f.write_all(&self.buf).map_err(|e| write_error(&self.path, &e))?;
        }
        self.buf.clear();
        Ok(())
    }

    /// Writes what is buffered and flushes the file.
    fn finish(&mut self) -> Result<()> {
        self.write()?;
        if let Some(f) = &mut self.file {
            f.flush().map_err(|e| write_error(&self.path, &e))?;
        }
        Ok(())
    }
}

fn write_error(path: &str, e: &std::io::Error) -> SqlError {
    SqlError::new(1026, "HY000", format!("Error writing file '{path}' (errno: {})", e.raw_os_error().unwrap_or(0)))
}

impl RowSink for IntoSink {
    fn columns(&mut self, columns: &[ColMeta]) -> Result<()> {
        if let Dest::Vars { names, .. } = &self.dest {
            if *names != columns.len() {
                return Err(SqlError::new(
                    1222,
                    "21000",
                    "The used SELECT statements have a different number of columns",
                ));
            }
        }
        self.types = columns.iter().map(|c| c.ty).collect();
        Ok(())
    }

    fn row(&mut self, row: Vec<Value>) -> Result<()> {
        self.rows += 1;
        match &mut self.dest {
            Dest::Outfile(o) => {
                o.line(&row, &self.types, &mut self.buf);
                if self.buf.len() >= 64 << 10 {
                    self.write()?;
                }
            }
            Dest::Dumpfile => {
                if self.rows > 1 {
                    return Err(too_many_rows());
                }
                export::dump(&row, &self.types, &mut self.buf);
            }
            Dest::Vars { first, .. } => {
                if first.is_some() {
                    return Err(too_many_rows());
                }
                *first = Some(row);
            }
        }
        Ok(())
    }
}

/// The target file, created (rule 1).
fn create(s: &Session, name: &str) -> Result<(std::fs::File, PathBuf)> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = crate::load::files::allowed(s, name)?;
    if path.exists() {
        return Err(SqlError::new(1086, "HY000", format!("File '{name}' already exists")));
    }
    let file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o644).open(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            return SqlError::new(1086, "HY000", format!("File '{name}' already exists"));
        }
        let errno = e.raw_os_error().unwrap_or(0);
        SqlError::new(1, "HY000", format!("Can't create/write to file '{}' (Errcode: {errno})", path.display()))
    })?;
    Ok((file, path))
}

impl Session {
    /// Runs a statement [`split`] found an INTO clause in.
    pub(crate) fn select_into(&mut self, split: Result<Split>, out: &mut dyn Answers) {
        out.begin(self, false);
        let r = match split {
            Ok(split) => self.run_select_into(split),
            Err(e) => self.fail(e),
        };
        self.row_count = match &r {
            Ok(Outcome::Ok { affected, .. }) => *affected as i64,
            _ => -1,
        };
        out.end(self, r);
    }

    fn run_select_into(&mut self, split: Split) -> Result<Outcome> {
        let compiled = match crate::depth::parse_tokens(split.tokens, split.text_len) {
            Ok(mut stmts) if stmts.len() == 1 && matches!(stmts[0], sqlparser::ast::Statement::Query(_)) => {
                self.compile(stmts.remove(0))
            }
            Ok(_) => Err(SqlError::syntax("INTO OUTFILE, DUMPFILE or @var outside a SELECT")),
            Err(e) => Err(e),
        };
        let compiled = match compiled {
            Ok(c) => c,
            Err(e) => return self.fail(e),
        };
        let (dest, file_name) = match &split.target {
            Target::Outfile { file, charset, format } => {
                let latin1 = match charset.as_deref() {
                    None | Some("utf8mb4" | "utf8" | "utf8mb3" | "binary" | "default") => false,
                    Some("latin1") => true,
                    Some(other) => {
                        return self.fail(SqlError::unsupported(format!("INTO OUTFILE ... CHARACTER SET {other}")))
                    }
                };
                // A separator that can be part of a number: MariaDB's rules
                // for it (1475 and its escaping) are not built.
                let sep = format.enclosed.or(format.field_term.first().copied());
                if format.enclosed.is_none() && sep.is_some_and(|c| b".0123456789e+-".contains(&c)) {
                    let e = SqlError::unsupported("INTO OUTFILE with a field separator that can be part of a number");
                    return self.fail(e);
                }
                (Dest::Outfile(export::Outfile::new(format.clone(), latin1)), Some(file))
            }
            Target::Dumpfile { file } => (Dest::Dumpfile, Some(file)),
            Target::Vars(names) => (Dest::Vars { names: names.len(), first: None }, None),
        };
        let (file, path) = match file_name.map(|n| create(self, n)).transpose() {
            Ok(Some((f, p))) => (Some(std::io::BufWriter::new(f)), Some(p)),
            Ok(None) => (None, None),
            Err(e) => return self.fail(e),
        };
        let shown = path.as_ref().map_or(String::new(), |p| p.display().to_string());
        let mut sink = IntoSink { dest, file, path: shown, types: Vec::new(), rows: 0, buf: Vec::new() };
        let r = match self.execute(&compiled, &[], &mut sink) {
            Ok(o) => match sink.finish() {
                Ok(()) => Ok(o),
                Err(e) => self.fail(e),
            },
            Err(e) => Err(e),
        };
        if let (Dest::Vars { first: Some(row), .. }, Target::Vars(names)) = (&mut sink.dest, &split.target) {
            for (name, v) in names.iter().zip(std::mem::take(row)) {
                self.user_vars.get_mut().insert(name.clone(), v);
            }
        }
        match r {
            Ok(_) => {
                if split.trailing {
                    let m = "'<select expression> INTO <destination>;' is deprecated and will be removed in a \
                             future release. Please use 'SELECT <select list> INTO <destination> FROM...' instead";
                    self.warn(1287, m.into());
                }
                if matches!(sink.dest, Dest::Vars { .. }) && sink.rows == 0 {
                    self.warn(1329, "No data - zero rows fetched, selected, or processed".into());
                }
                Ok(Outcome::Ok { affected: sink.rows, last_insert_id: 0, info: String::new() })
            }
            Err(e) => {
                drop(sink.file.take());
                if let Some(p) = path {
                    let _ = std::fs::remove_file(p);
                }
                Err(e)
            }
        }
    }
}
