//! The SQL layer behind the protocol: [`SqlBackend`] answers the
//! protocol's [`Backend`] (users from the catalog, sessions) and
//! [`SqlSession`] its [`Session`], converting between the protocol's
//! cells and column definitions and the SQL layer's values and metadata.
//! Result rows pass through [`Wire`], the SQL layer's row sink, straight
//! into the connection's output as they are produced.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use quire_engine::row::{Date, DateTime, Value};
use quire_sql::{Answers, ColMeta, MetaType, Outcome, RowSink, Shared, SqlError};

use crate::proto::handshake::capability;
use crate::proto::replication::{BinlogDump, DumpOutcome, EventSink, RegisterReplica};
use crate::proto::{
    charset, column_flag, column_type, Backend, Cell, Closer, ColumnDef, ConnEnd, Credentials, Done, ErrPacket, Param,
    Prepared, Replies, Session, STATUS_AUTOCOMMIT, STATUS_IN_TRANS, STATUS_MORE_RESULTS,
};
use quire_sql::binlog::source::{DumpCommand, DumpOut};

/// The protocol's event sink as the binary log's dump output.
struct Sink<'a> {
    out: &'a mut dyn EventSink,
}

impl DumpOut for Sink<'_> {
    fn event(&mut self, ev: &[u8]) -> std::io::Result<()> {
        self.out.event(ev)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    fn stopped(&mut self) -> bool {
        false
    }
}

pub struct SqlBackend {
    pub shared: Arc<Shared>,
}

pub struct SqlSession {
    inner: quire_sql::Session,
}

fn err(e: SqlError) -> ErrPacket {
    ErrPacket::new(e.code, e.state, e.message)
}

/// The wire definition of a result column.
pub fn column_def(c: &ColMeta) -> ColumnDef {
    let (ty, length, decimals, cs) = match c.ty {
        MetaType::Int { width, .. } => {
            let t = match width {
                1 => column_type::TINY,
                2 => column_type::SHORT,
                3 => column_type::INT24,
                4 => column_type::LONG,
                _ => column_type::LONGLONG,
            };
            (t, [4, 6, 9, 11, 20][width.min(4) as usize % 5], 0, charset::BINARY)
        }
        MetaType::Decimal { precision, scale } => {
            (column_type::NEWDECIMAL, precision as u32 + 2, scale, charset::BINARY)
        }
        // 31 decimals: MySQL's NOT_FIXED_DEC, "as many as the value needs".
        MetaType::Double => (column_type::DOUBLE, 22, 31, charset::BINARY),
        // A FLOAT / DOUBLE column: length 12 / 22, as MariaDB's.
        MetaType::Approx { single, scale } => {
            let (t, len) = if single { (column_type::FLOAT, 12) } else { (column_type::DOUBLE, 22) };
            (t, len, scale.unwrap_or(31), charset::BINARY)
        }
        MetaType::Str { len, fixed } => {
            (if fixed { column_type::STRING } else { column_type::VAR_STRING }, len * 4, 0, charset::UTF8MB4_GENERAL_CI)
        }
        MetaType::Text => (column_type::BLOB, 65_535 * 4, 0, charset::UTF8MB4_GENERAL_CI),
        MetaType::Date => (column_type::DATE, 10, 0, charset::BINARY),
        MetaType::DateTime { fsp } => (column_type::DATETIME, 19 + fsp as u32 + (fsp > 0) as u32, fsp, charset::BINARY),
        MetaType::Timestamp { fsp } => {
            (column_type::TIMESTAMP, 19 + fsp as u32 + (fsp > 0) as u32, fsp, charset::BINARY)
        }
        MetaType::Null => (column_type::NULL, 0, 0, charset::BINARY),
        MetaType::Time { fsp } => (column_type::TIME, 10 + fsp as u32 + (fsp > 0) as u32, fsp, charset::BINARY),
        MetaType::Binary { len, fixed } => {
            (if fixed { column_type::STRING } else { column_type::VAR_STRING }, len, 0, charset::BINARY)
        }
        MetaType::Blob { max_bytes } => (column_type::BLOB, max_bytes, 0, charset::BINARY),
        // MySQL 8.0: a JSON column is of the binary character set, a
        // computed JSON value utf8mb4_bin (PyMySQL decodes both as text
        // by the type, see its `FIELD_TYPE.JSON` handling).
        MetaType::Json if c.org_table.is_empty() => (column_type::JSON, u32::MAX, 0, charset::UTF8MB4_BIN),
        MetaType::Json => (column_type::JSON, u32::MAX, 0, charset::BINARY),
        // ENUM / SET: STRING with the ENUM / SET flag, YEAR and BIT their
        // own types (MariaDB's metadata).
        MetaType::Choice { len, .. } => (column_type::STRING, len * 4, 0, charset::UTF8MB4_GENERAL_CI),
        MetaType::Year { .. } => (column_type::YEAR, 4, 0, charset::BINARY),
        MetaType::Bit { bits } => (column_type::BIT, u32::from(bits), 0, charset::BINARY),
    };
    let mut flags = 0;
    if c.not_null {
        flags |= column_flag::NOT_NULL;
    }
    if c.primary_key {
        flags |= column_flag::PRI_KEY;
    }
    if c.unique_key {
        flags |= column_flag::UNIQUE_KEY;
    }
    if c.multiple_key {
        flags |= column_flag::MULTIPLE_KEY;
    }
    if c.auto_increment {
        flags |= column_flag::AUTO_INCREMENT;
    }
    match c.ty {
        MetaType::Int { unsigned, .. } => {
            flags |= column_flag::NUM;
            if unsigned {
                flags |= column_flag::UNSIGNED;
            }
        }
        MetaType::Decimal { .. } | MetaType::Double | MetaType::Approx { .. } => flags |= column_flag::NUM,
        MetaType::Text => flags |= column_flag::BLOB,
        MetaType::Blob { .. } => flags |= column_flag::BLOB | column_flag::BINARY,
        MetaType::Binary { .. } => flags |= column_flag::BINARY,
        MetaType::Json if c.org_table.is_empty() => flags |= column_flag::BLOB,
        MetaType::Json => flags |= column_flag::BLOB | column_flag::BINARY,
        MetaType::Choice { set: false, .. } => flags |= column_flag::ENUM,
        MetaType::Choice { set: true, .. } => flags |= column_flag::SET,
        MetaType::Year { zerofill: false } => flags |= column_flag::UNSIGNED,
        MetaType::Year { zerofill: true } => flags |= column_flag::UNSIGNED | column_flag::ZEROFILL,
        MetaType::Bit { .. } => flags |= column_flag::UNSIGNED,
        _ => {}
    }
    // A ZEROFILL column: UNSIGNED, its display width the length the text
    // protocol pads its values to (`response::text_row`).
    let length = match c.zerofill {
        Some(width) => {
            flags |= column_flag::UNSIGNED | column_flag::ZEROFILL;
            u32::from(width)
        }
        None => length,
    };
    // Computed columns of the binary character set (numbers, temporals,
    // NULL) carry BINARY_FLAG, as MySQL's and MariaDB's do; of a table's
    // columns, only temporal ones do.
    let temporal =
        matches!(c.ty, MetaType::Date | MetaType::DateTime { .. } | MetaType::Timestamp { .. } | MetaType::Time { .. });
    if cs == charset::BINARY && (c.org_table.is_empty() || temporal) {
        flags |= column_flag::BINARY;
    }
    ColumnDef {
        schema: c.db.clone(),
        table: c.table.clone(),
        org_table: c.org_table.clone(),
        name: c.name.clone(),
        org_name: c.org_name.clone(),
        charset: cs,
        length,
        column_type: ty,
        flags,
        decimals,
    }
}

fn text(v: &Value) -> Vec<u8> {
    match v {
        Value::Str(s) => s.clone().into_bytes(),
        Value::Bytes(b) => b.clone(),
        other => other.to_string().into_bytes(),
    }
}

/// A value as the cell its column's wire type expects.
pub fn cell(v: &Value, ty: MetaType) -> Cell {
    match (v, ty) {
        (Value::Null, _) => Cell::Null,
        (Value::Int(i), MetaType::Int { .. }) => Cell::Int(*i),
        (Value::UInt(u), MetaType::Int { .. }) => Cell::UInt(*u),
        (other, MetaType::Int { unsigned, .. }) => match quire_sql::expr::to_i128(other) {
            Some(n) if unsigned && n >= 0 => Cell::UInt(n as u64),
            Some(n) => Cell::Int(n.clamp(i64::MIN as i128, i64::MAX as i128) as i64),
            None => Cell::Null,
        },
        (Value::Double(f), MetaType::Double | MetaType::Approx { single: false, .. }) => Cell::Double(*f),
        (other, MetaType::Double | MetaType::Approx { single: false, .. }) => {
            quire_sql::expr::to_f64(other).map_or(Cell::Null, Cell::Double)
        }
        (other, MetaType::Approx { single: true, .. }) => {
            quire_sql::expr::to_f64(other).map_or(Cell::Null, |f| Cell::Float(f as f32))
        }
        (Value::Date(d), MetaType::Date) => date_cell(*d),
        (Value::DateTime(dt), MetaType::Date) => date_cell(dt.date),
        (Value::Date(d), MetaType::DateTime { .. } | MetaType::Timestamp { .. }) => {
            datetime_cell(&DateTime { date: *d, hour: 0, minute: 0, second: 0, micros: 0 })
        }
        (Value::DateTime(dt), MetaType::DateTime { .. } | MetaType::Timestamp { .. }) => datetime_cell(dt),
        (Value::Str(s), MetaType::Date) => Date::parse(s).map_or(Cell::Null, date_cell),
        (Value::Str(s), MetaType::DateTime { .. } | MetaType::Timestamp { .. }) => {
            DateTime::parse(s).map_or(Cell::Null, |d| datetime_cell(&d))
        }
        (Value::Time(us), MetaType::Time { .. }) => time_cell(*us),
        // A YEAR shows four digits (0000), in text rows and, parsed back,
        // as the binary protocol's 2-byte integer.
        (Value::Int(y), MetaType::Year { zerofill: true }) => Cell::Bytes(format!("{y:04}").into_bytes()),
        // A BIT is sent as its big-endian bytes.
        (Value::UInt(n), MetaType::Bit { bits }) => Cell::Bytes(quire_engine::row::bit::to_bytes(*n, bits)),
        // A DECIMAL result prints its type's decimals, as MariaDB sends it
        // (TIME_TO_SEC of a TIME(2) that is a whole second: `-5400.00`).
        (Value::Int(_) | Value::Decimal(_), MetaType::Decimal { scale, .. }) => {
            match quire_sql::expr::to_decimal(v).filter(|d| d.scale < scale).and_then(|d| d.rescale(scale)) {
                Some(d) => Cell::Bytes(d.to_string().into_bytes()),
                None => Cell::Bytes(text(v)),
            }
        }
        (other, MetaType::Time { .. }) => quire_sql::timeval::to_time(other).map_or(Cell::Null, time_cell),
        (Value::Time(us), MetaType::DateTime { .. } | MetaType::Timestamp { .. }) => {
            quire_sql::timeval::to_datetime(*us).map_or(Cell::Null, |d| datetime_cell(&d))
        }
        (other, _) => Cell::Bytes(text(other)),
    }
}

fn time_cell(us: i64) -> Cell {
    let a = us.unsigned_abs();
    let secs = a / 1_000_000;
    Cell::Time {
        negative: us < 0,
        days: (secs / 86_400) as u32,
        hours: (secs / 3600 % 24) as u8,
        minutes: (secs / 60 % 60) as u8,
        seconds: (secs % 60) as u8,
        micros: (a % 1_000_000) as u32,
    }
}

fn date_cell(d: Date) -> Cell {
    Cell::Date { year: d.year, month: d.month, day: d.day }
}

fn datetime_cell(d: &DateTime) -> Cell {
    Cell::DateTime {
        year: d.date.year,
        month: d.date.month,
        day: d.date.day,
        hour: d.hour,
        minute: d.minute,
        second: d.second,
        micros: d.micros,
    }
}

/// A statement parameter as a value.
pub fn param_value(p: &Param) -> Value {
    match p {
        Cell::Null => Value::Null,
        Cell::Int(i) => Value::Int(*i),
        Cell::UInt(u) => Value::UInt(*u),
        Cell::Double(f) if f.is_finite() => Value::Double(quire_engine::row::float::normalize(*f)),
        Cell::Float(f) if f.is_finite() => Value::Double(quire_engine::row::float::normalize(f64::from(*f))),
        Cell::Double(_) | Cell::Float(_) => Value::Null,
        // Text when it is UTF-8; other bytes stay a binary string (a
        // VARBINARY or BLOB parameter), never text with U+FFFD in it.
        Cell::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Value::Str(s.to_owned()),
            Err(_) => Value::Bytes(b.clone()),
        },
        Cell::Date { year, month, day } => Date::new(*year, *month, *day)
            .map_or_else(|| Value::Str(format!("{year:04}-{month:02}-{day:02}")), Value::Date),
        Cell::DateTime { year, month, day, hour, minute, second, micros } => match Date::new(*year, *month, *day) {
            Some(date) => {
                Value::DateTime(DateTime { date, hour: *hour, minute: *minute, second: *second, micros: *micros })
            }
            None => Value::Str(format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}")),
        },
        Cell::Time { negative, days, hours, minutes, seconds, micros } => {
            let us =
                ((i64::from(*days) * 24 + i64::from(*hours)) * 3600 + i64::from(*minutes) * 60 + i64::from(*seconds))
                    * 1_000_000
                    + i64::from(*micros);
            let us = if *negative { -us } else { us };
            quire_engine::row::time::clip(i128::from(us)).value().map_or(Value::Null, Value::Time)
        }
    }
}

/// The SQL layer's answers written to the client as they are produced:
/// a [`RowSink`] turning values into cells for the protocol's
/// [`Replies`], and the [`Answers`] of a command's statements.
struct Wire<'o> {
    out: &'o mut dyn Replies,
    /// The wire types of the open result set's columns.
    types: Vec<MetaType>,
    /// One row's cells, reused.
    cells: Vec<Cell>,
    /// The status flags of the running statement's column definitions.
    status: u16,
    /// Another statement of the command follows the running one.
    more: bool,
    /// The first write that failed: the connection is gone.
    failed: Option<std::io::Error>,
}

impl<'o> Wire<'o> {
    fn new(out: &'o mut dyn Replies, status: u16) -> Self {
        Self { out, types: Vec::new(), cells: Vec::new(), status, more: false, failed: None }
    }

    /// A failed write: kept for the connection, and the statement stops.
    fn broken(&mut self, e: std::io::Error) -> SqlError {
        self.failed.get_or_insert(e);
        quire_sql::sink::write_failed()
    }

    /// The end of a statement: its OK or EOF with `status`, or its error.
    fn end_statement(&mut self, r: quire_sql::Result<Outcome>, warnings: u16, status: u16) {
        if self.failed.is_some() {
            return;
        }
        let written = match r {
            Ok(Outcome::Ok { affected, last_insert_id, info }) => {
                self.out.done(Done { affected_rows: affected, last_insert_id, warnings, info }, status)
            }
            Ok(Outcome::Rows(_)) => self.out.done(Done { warnings, ..Done::default() }, status),
            Err(e) => self.out.error(&err(e)),
        };
        self.types.clear();
        if let Err(e) = written {
            self.failed = Some(e);
        }
    }

    /// `Ok` unless a write failed.
    fn result(self) -> std::io::Result<()> {
        self.failed.map_or(Ok(()), Err)
    }
}

impl RowSink for Wire<'_> {
    fn columns(&mut self, columns: &[ColMeta]) -> quire_sql::Result<()> {
        self.types = columns.iter().map(|c| c.ty).collect();
        let defs = columns.iter().map(column_def).collect();
        self.out.columns(defs, self.status).map_err(|e| self.broken(e))
    }

    fn row(&mut self, row: Vec<Value>) -> quire_sql::Result<()> {
        self.cells.clear();
        // A string sent as its bytes moves into its cell (no copy).
        self.cells.extend(row.into_iter().zip(&self.types).map(|(v, &ty)| match (v, ty) {
            (Value::Str(s), MetaType::Str { .. } | MetaType::Text | MetaType::Decimal { .. }) => {
                Cell::Bytes(s.into_bytes())
            }
            (Value::Bytes(b), _) => Cell::Bytes(b),
            (v, ty) => cell(&v, ty),
        }));
        self.out.row(&self.cells).map_err(|e| self.broken(e))
    }
}

impl Answers for Wire<'_> {
    fn rows(&mut self) -> &mut dyn RowSink {
        self
    }

    fn begin(&mut self, s: &quire_sql::Session, more: bool) {
        self.more = more;
        self.status = status_flags(s, more);
    }

    fn end(&mut self, s: &quire_sql::Session, r: quire_sql::Result<Outcome>) {
        let status = status_flags(s, self.more);
        self.end_statement(r, s.statement_warnings(), status);
    }

    fn local_file(&mut self, name: &str) -> quire_sql::Result<Option<Box<dyn std::io::Read + '_>>> {
        let failed = &mut self.failed;
        match self.out.local_file(name) {
            Ok(r) => Ok(r),
            Err(e) => {
                failed.get_or_insert(e);
                Err(quire_sql::sink::write_failed())
            }
        }
    }
}

/// The status flags of an OK / EOF: autocommit, in a transaction, more
/// results to come.
fn status_flags(s: &quire_sql::Session, more: bool) -> u16 {
    let mut f = 0;
    if s.autocommit() {
        f |= STATUS_AUTOCOMMIT;
    }
    if s.in_transaction() {
        f |= STATUS_IN_TRANS;
    }
    if more {
        f |= STATUS_MORE_RESULTS;
    }
    f
}

impl Backend for SqlBackend {
    type Session = SqlSession;

    fn credentials(&self, user: &str) -> Option<Credentials> {
        self.shared.catalog.user(user).map(|u| Credentials { native: u.native, sha2: u.sha2 })
    }

    fn open_session(&self, user: &str, db: Option<&str>, connection_id: u32) -> Result<SqlSession, ErrPacket> {
        let mut inner = quire_sql::Session::new(self.shared.clone(), user, db, connection_id).map_err(err)?;
        // Counted once this connection is listed: two logins at once may
        // both be refused, never both admitted past the limit.
        inner.check_user_connections().map_err(err)?;
        inner.run_init_connect().map_err(err)?;
        let on = db.map_or(String::new(), str::to_string);
        self.shared.general_log.write(connection_id, "Connect", &format!("{user}@localhost on {on} using TCP/IP"));
        Ok(SqlSession { inner })
    }

    fn server_version(&self) -> String {
        quire_sql::VERSION.to_string()
    }

    fn max_allowed_packet(&self) -> usize {
        self.shared.sysvars.global("max_allowed_packet").and_then(|v| v.as_u64()).unwrap_or(64 << 20) as usize
    }

    fn connection_opened(&self, connection_id: u32, peer: &str, closer: Option<Closer>) {
        // `Connections` counts attempts, successful or not (as MySQL).
        self.shared.stats.connections.fetch_add(1, Ordering::Relaxed);
        self.shared.processes.register(connection_id, peer, closer);
    }

    fn connection_closed(&self, connection_id: u32, end: ConnEnd) {
        self.shared.replicas.connection_closed(connection_id);
        if let Some(p) = self.shared.processes.get(connection_id) {
            self.shared.processes.remove(&p);
        }
        let counter = match end {
            ConnEnd::Quit => {
                self.shared.general_log.write(connection_id, "Quit", "");
                return;
            }
            ConnEnd::LoginFailed => &self.shared.stats.aborted_connects,
            ConnEnd::Aborted => &self.shared.stats.aborted_clients,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn is_connection_admin(&self, user: &str) -> bool {
        self.shared.catalog.user(user).is_some_and(|u| u.grants.contains("*"))
    }

    fn connect_timeout(&self) -> Option<Duration> {
        self.shared.sysvars.global("connect_timeout").and_then(|v| v.as_u64()).map(Duration::from_secs)
    }
}

impl Session for SqlSession {
    fn query(&mut self, sql: &str, multi: bool, out: &mut dyn Replies) -> std::io::Result<()> {
        let mut wire = Wire::new(out, 0);
        self.inner.query_each(sql, multi, &mut wire);
        wire.result()
    }

    fn init_db(&mut self, db: &str) -> Result<(), ErrPacket> {
        self.inner.use_database(db).map_err(err)
    }

    fn prepare(&mut self, sql: &str) -> Result<Prepared, ErrPacket> {
        let (id, params, cols) = self.inner.prepare(sql).map_err(err)?;
        let params = u16::try_from(params)
            .map_err(|_| ErrPacket::new(1390, "HY000", "Prepared statement contains too many placeholders"))?;
        Ok(Prepared { id, params, columns: cols.iter().map(column_def).collect() })
    }

    fn execute(&mut self, id: u32, params: &[Param], out: &mut dyn Replies) -> std::io::Result<()> {
        let vals: Vec<Value> = params.iter().map(param_value).collect();
        let mut wire = Wire::new(out, self.status_flags());
        let r = self.inner.execute_prepared(id, &vals, &mut wire);
        let status = self.status_flags();
        wire.end_statement(r, self.inner.statement_warnings(), status);
        wire.result()
    }

    fn close_statement(&mut self, id: u32) {
        self.inner.close_prepared(id);
    }

    fn reset_statement(&mut self, id: u32) -> Result<(), ErrPacket> {
        if self.inner.prepared.contains_key(&id) {
            Ok(())
        } else {
            Err(ErrPacket::new(
                1243,
                "HY000",
                format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_reset"),
            ))
        }
    }

    fn reset_connection(&mut self) {
        self.inner.reset();
    }

    fn register_replica(&mut self, r: &RegisterReplica) -> Result<(), ErrPacket> {
        self.inner.register_replica(r.server_id, &r.host, r.port, r.master_id).map_err(err)
    }

    fn binlog_dump(&mut self, d: &BinlogDump, out: &mut dyn EventSink) -> DumpOutcome {
        let cmd = DumpCommand {
            file: d.file.clone(),
            pos: d.pos,
            flags: d.flags,
            server_id: d.server_id,
            gtid_set: d.gtid_set.clone(),
        };
        let mut sink = Sink { out };
        match self.inner.binlog_dump(&cmd, &mut sink) {
            Ok(true) => DumpOutcome::Eof,
            Ok(false) => DumpOutcome::Closed,
            Err(e) => DumpOutcome::Error(err(e)),
        }
    }

    fn status_flags(&self) -> u16 {
        status_flags(&self.inner, false)
    }

    fn statistics(&self) -> Option<String> {
        Some(self.inner.statistics())
    }

    fn database(&self) -> Option<String> {
        self.inner.db.clone()
    }

    fn client_capabilities(&mut self, caps: u32) {
        self.inner.client_found_rows = caps & capability::FOUND_ROWS != 0;
    }

    fn idle_timeout(&self) -> Option<Duration> {
        Some(Duration::from_secs(self.inner.vars.wait_timeout_secs()))
    }

    fn thread_pool_priority(&self) -> Option<&'static str> {
        Some(self.inner.vars.thread_pool_priority())
    }

    fn write_timeout(&self) -> Option<Duration> {
        Some(Duration::from_secs(self.inner.vars.net_write_timeout_secs()))
    }

    fn set_interactive(&mut self) {
        if let Some(v) = self.inner.shared.sysvars.global("interactive_timeout") {
            // Both are uint(1, 31536000): the value always fits.
            let _ = self.inner.vars.set_by_name("wait_timeout", &v);
        }
    }

    fn killed(&self) -> bool {
        self.inner.process.killed()
    }
}
