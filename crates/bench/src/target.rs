//! Targets: the servers a benchmark drives. A target is given as
//! `[label=]mysql://user:password@host:port/database` (`--target`,
//! repeatable) or is the embedded quire ([`crate::embedded`]). This module
//! parses the address, opens connections with a bounded connect timeout
//! and turns a failure into a message naming the target.
//!
//! Invariants:
//! 1. A [`TargetSpec`] always has a host, a port and a database name
//!    (defaults: port 3306, database `sbtest`).
//! 2. The password never appears in [`TargetSpec::display`] (reports are
//!    committed; passwords are not).

use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};

use crate::error::{Error, Result};

/// Where a target listens and how to log in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetSpec {
    /// What reports call it (`--target label=...`, else from the server's
    /// version once connected).
    pub label: Option<String>,
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub database: String,
}

/// How long a connection attempt may take before the target is called
/// unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The client-side packet limit; set so that connecting sends no query
/// (the `mysql` crate otherwise asks for `@@max_allowed_packet`).
const CLIENT_MAX_PACKET: usize = 64 << 20;

impl TargetSpec {
    /// Parses `[label=]mysql://user[:password]@host[:port][/database]`.
    pub fn parse(text: &str) -> Result<TargetSpec> {
        let bad = |why: &str| {
            Error::new(format!(
                "bad --target '{text}': {why} (expected [label=]mysql://user:password@host:port/database)"
            ))
        };
        let (label, url_text) = match text.split_once("=mysql://") {
            Some((l, rest)) if !l.is_empty() && !l.contains('/') => (Some(l.to_string()), format!("mysql://{rest}")),
            _ => (None, text.to_string()),
        };
        let url = url::Url::parse(&url_text).map_err(|e| bad(&e.to_string()))?;
        if url.scheme() != "mysql" {
            return Err(bad(&format!("scheme '{}' is not mysql", url.scheme())));
        }
        let host = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| bad("no host"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
        if url.username().is_empty() {
            return Err(bad("no user"));
        }
        let decode = |s: &str| -> Result<String> {
            url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .ok_or_else(|| bad("undecodable user or password"))
        };
        let user = decode(url.username())?;
        let password = decode(url.password().unwrap_or(""))?;
        let path = url.path().trim_start_matches('/');
        if path.contains('/') {
            return Err(bad("the path must be one database name"));
        }
        let database = if path.is_empty() { "sbtest".to_string() } else { decode(path)? };
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("options after '?' or '#' are not understood"));
        }
        Ok(TargetSpec { label, host, port: url.port().unwrap_or(3306), user, password, database })
    }

    /// `host:port/database as user`, without the password.
    pub fn display(&self) -> String {
        format!("mysql://{}@{}:{}/{}", self.user, self.host, self.port, self.database)
    }

    /// The label, or `host:port` until one is known.
    pub fn name(&self) -> String {
        self.label.clone().unwrap_or_else(|| format!("{}:{}", self.host, self.port))
    }

    /// Connection options; `with_db` selects the target's database.
    pub fn opts(&self, with_db: bool, stmt_cache: usize) -> OptsBuilder {
        OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .user(Some(self.user.clone()))
            .pass(Some(self.password.clone()))
            .db_name(with_db.then(|| self.database.clone()))
            .prefer_socket(false)
            .tcp_connect_timeout(Some(CONNECT_TIMEOUT))
            .tcp_nodelay(true)
            .max_allowed_packet(Some(CLIENT_MAX_PACKET))
            .stmt_cache_size(Some(stmt_cache.max(1)))
    }

    /// One connection, with an error naming the target when it fails.
    pub fn connect(&self, with_db: bool, stmt_cache: usize) -> Result<Conn> {
        Conn::new(self.opts(with_db, stmt_cache)).map_err(|e| self.connect_error(&e))
    }

    /// Options for the driver's own client; `with_db` selects the
    /// target's database.
    pub fn wire_options(&self, with_db: bool) -> crate::driver::wire::ConnectOptions {
        crate::driver::wire::ConnectOptions {
            host: self.host.clone(),
            port: self.port,
            user: self.user.clone(),
            password: self.password.clone(),
            database: with_db.then(|| self.database.clone()),
            deprecate_eof: true,
            connect_timeout: CONNECT_TIMEOUT,
        }
    }

    /// "cannot connect to ..." for the driver's own client.
    pub fn wire_connect_error(&self, e: &crate::driver::wire::WireError) -> Error {
        use crate::driver::wire::WireError;
        let hint = match e {
            WireError::Server(m) => match m.code {
                1045 => " (wrong user or password)",
                1049 => " (create the database first, or name another)",
                1040 => " (raise the server's max_connections)",
                _ => "",
            },
            WireError::Io(_) => " (is the server running and listening there?)",
            WireError::Protocol(_) => "",
        };
        Error::new(format!("cannot connect to {} (target {}): {e}{hint}", self.display(), self.name()))
    }

    /// "cannot connect to ..." with the cause, for `e` from a connect.
    pub fn connect_error(&self, e: &mysql::Error) -> Error {
        use mysql::DriverError::{ConnectTimeout, CouldNotConnect};
        const UNREACHABLE: &str = " (is the server running and listening there?)";
        let (cause, hint) = match e {
            mysql::Error::MySqlError(m) if m.code == 1045 => (m.to_string(), " (wrong user or password)"),
            mysql::Error::MySqlError(m) if m.code == 1049 => {
                (m.to_string(), " (create the database first, or name another)")
            }
            mysql::Error::MySqlError(m) if m.code == 1040 => (m.to_string(), " (raise the server's max_connections)"),
            mysql::Error::DriverError(CouldNotConnect(Some((_, desc, _)))) => (desc.clone(), UNREACHABLE),
            mysql::Error::DriverError(ConnectTimeout) => {
                (format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()), UNREACHABLE)
            }
            mysql::Error::IoError(io) => (io.to_string(), UNREACHABLE),
            _ => (crate::error::describe(e), ""),
        };
        Error::new(format!("cannot connect to {} (target {}): {cause}{hint}", self.display(), self.name()))
    }
}

/// What a target says about itself.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ServerInfo {
    /// `SELECT VERSION()`.
    pub version: String,
    /// `@@version_comment`, when the server has it.
    pub comment: String,
}

impl ServerInfo {
    /// Asks the server over `conn`.
    pub fn query(conn: &mut Conn) -> Result<ServerInfo> {
        let version: Option<String> = conn
            .query_first("SELECT VERSION()")
            .map_err(|e| Error::new(format!("SELECT VERSION(): {}", crate::error::describe(&e))))?;
        let comment: Option<String> = conn.query_first("SELECT @@version_comment").unwrap_or(None);
        Ok(ServerInfo { version: version.unwrap_or_default(), comment: comment.unwrap_or_default() })
    }

    /// A short product name for charts: "MariaDB 10.11.6", "quire 0.1.0",
    /// "MySQL 8.0.36".
    pub fn product(&self) -> String {
        let base = self.version.split('-').next().unwrap_or(&self.version);
        let all = format!("{} {}", self.version, self.comment).to_ascii_lowercase();
        if all.contains("mariadb") {
            format!("MariaDB {base}")
        } else if all.contains("quire") {
            format!("quire {base}")
        } else if all.contains("percona") {
            format!("Percona {base}")
        } else {
            format!("MySQL {base}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_and_short_urls() {
        let t = TargetSpec::parse("mysql://sb:p%40ss@127.0.0.1:3317/bench").expect("parses");
        assert_eq!((t.host.as_str(), t.port, t.user.as_str()), ("127.0.0.1", 3317, "sb"));
        assert_eq!((t.password.as_str(), t.database.as_str(), t.label), ("p@ss", "bench", None));
        let t = TargetSpec::parse("maria=mysql://root@localhost").expect("parses");
        assert_eq!((t.label.as_deref(), t.port, t.database.as_str()), (Some("maria"), 3306, "sbtest"));
        assert_eq!(t.display(), "mysql://root@localhost:3306/sbtest");
        assert!(!TargetSpec::parse("mysql://u:secret@h/d").expect("parses").display().contains("secret"));
    }

    #[test]
    fn rejects_what_it_cannot_use() {
        for bad in
            ["", "localhost:3306", "http://u@h/db", "mysql://h:3306/db", "mysql://u@h:99999/db", "mysql://u@h/a/b"]
        {
            let e = TargetSpec::parse(bad).expect_err(bad);
            assert!(e.message.starts_with("bad --target"), "{bad}: {e}");
        }
    }
}
