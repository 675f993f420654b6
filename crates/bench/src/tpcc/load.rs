//! The initial population (TPC-C clause 4.3.3.1), loaded with multi-row
//! INSERTs over several connections.
//!
//! The work is cut into units (items in chunks, each warehouse with its
//! districts, stock in chunks, each district's customers and history,
//! each district's orders, order lines and new orders); loader threads
//! take units from a shared queue. Each unit has its own random numbers
//! (seeded by the unit), so a load is the same whatever the thread count.
//! Foreign keys are not checked while loading (`foreign_key_checks=0` on
//! the loader connections, as mysqldump does); every row the load makes
//! has its parents, which the consistency checks and the run's own
//! inserts (checked) rely on.

use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mysql::prelude::Queryable;
use mysql::Conn;

use super::rand::{last_name, TRand, C_LAST_LOAD};
use super::schema::{create_statements, Scale, DISTRICTS, TABLES};
use crate::error::{describe, Context, Error, Result};
use crate::target::TargetSpec;

/// Rows per INSERT at most.
const ROWS_PER_INSERT: usize = 500;
/// Bytes of SQL per INSERT at most (customers carry up to 500 bytes of
/// c_data each).
const BYTES_PER_INSERT: usize = 256 << 10;
/// Items (and stock rows) per unit.
const ITEM_CHUNK: u32 = 10_000;

/// One piece of the load.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Items { from: u32, to: u32 },
    Warehouse { w: u32 },
    Stock { w: u32, from: u32, to: u32 },
    Customers { w: u32, d: u32 },
    Orders { w: u32, d: u32 },
}

impl Unit {
    fn seed(&self, base: u64) -> u64 {
        let (k, a, b) = match *self {
            Unit::Items { from, .. } => (1, from, 0),
            Unit::Warehouse { w } => (2, w, 0),
            Unit::Stock { w, from, .. } => (3, w, from),
            Unit::Customers { w, d } => (4, w, d),
            Unit::Orders { w, d } => (5, w, d),
        };
        base ^ (k << 56) ^ (u64::from(a) << 24) ^ u64::from(b)
    }
}

fn units(scale: &Scale) -> Vec<Unit> {
    let chunks = |w: Option<u32>| {
        (1..=scale.items).step_by(ITEM_CHUNK as usize).map(move |from| {
            let to = (from + ITEM_CHUNK - 1).min(scale.items);
            match w {
                Some(w) => Unit::Stock { w, from, to },
                None => Unit::Items { from, to },
            }
        })
    };
    let mut u: Vec<Unit> = Vec::new();
    // Biggest first, so that the threads finish together.
    for w in 1..=scale.warehouses {
        u.extend((1..=DISTRICTS).map(|d| Unit::Orders { w, d }));
    }
    for w in 1..=scale.warehouses {
        u.extend((1..=DISTRICTS).map(|d| Unit::Customers { w, d }));
        u.extend(chunks(Some(w)));
        u.push(Unit::Warehouse { w });
    }
    u.extend(chunks(None));
    u
}

/// Drops the nine tables and makes them again (`fk`: with their foreign
/// keys), in the target's database, created if missing.
pub fn create_tables(spec: &TargetSpec, fk: bool) -> Result<()> {
    let name = spec.name();
    let mut admin = spec.connect(false, 4)?;
    let db = &spec.database;
    if let Err(e) = admin.query_drop(format!("CREATE DATABASE IF NOT EXISTS `{db}`")) {
        admin
            .query_drop(format!("USE `{db}`"))
            .map_err(|_| Error::new(format!("{name}: cannot create or use database '{db}': {}", describe(&e))))?;
    }
    admin.query_drop(format!("USE `{db}`")).context(|| format!("{name}: USE {db}"))?;
    admin.query_drop("SET foreign_key_checks = 0").context(|| format!("{name}: SET foreign_key_checks"))?;
    for t in TABLES.iter().rev() {
        admin.query_drop(format!("DROP TABLE IF EXISTS {t}")).context(|| format!("{name}: DROP TABLE {t}"))?;
    }
    for sql in create_statements(fk) {
        admin.query_drop(&sql).context(|| format!("{name}: {sql}"))?;
    }
    Ok(())
}

/// Creates the tables and loads `scale` with `threads` connections, then
/// runs ANALYZE TABLE on each.
pub fn load(spec: &TargetSpec, scale: Scale, fk: bool, threads: u32, seed: u64, progress: bool) -> Result<()> {
    if let Some(why) = scale.invalid() {
        return Err(Error::new(why));
    }
    create_tables(spec, fk)?;
    let queue = Arc::new(Mutex::new(units(&scale)));
    let total = queue.lock().map_or(0, |q| q.len()) as u64;
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if progress { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() },
    );
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} parts ({eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("loading TPC-C ({} warehouses) into {}", scale.warehouses, spec.name()));
    let mut handles = Vec::new();
    for _ in 0..threads.max(1) {
        let (spec, queue, bar) = (spec.clone(), queue.clone(), bar.clone());
        handles.push(std::thread::spawn(move || -> Result<()> {
            let mut conn = spec.connect(true, 4)?;
            conn.query_drop("SET foreign_key_checks = 0").context(|| format!("{}: SET", spec.name()))?;
            loop {
                let unit = match queue.lock() {
                    Ok(mut q) => q.pop(),
                    Err(_) => return Err(Error::new("a loader thread panicked")),
                };
                let Some(unit) = unit else { return Ok(()) };
                let mut r = TRand::new(unit.seed(seed));
                let mut b = Batch { conn: &mut conn, spec: &spec, head: String::new(), sql: String::new(), rows: 0 };
                load_unit(&mut b, unit, &scale, &mut r).context(|| format!("{}: loading {unit:?}", spec.name()))?;
                bar.inc(1);
            }
        }));
    }
    let mut first = None;
    for h in handles {
        if let Err(e) = h.join().unwrap_or_else(|_| Err(Error::new("a loader thread panicked"))) {
            first.get_or_insert(e);
        }
    }
    bar.finish_and_clear();
    if let Some(e) = first {
        return Err(e);
    }
    let mut conn = spec.connect(true, 4)?;
    for t in TABLES {
        conn.query_drop(format!("ANALYZE TABLE {t}")).context(|| format!("{}: ANALYZE TABLE {t}", spec.name()))?;
    }
    Ok(())
}

/// Rows gathered into one multi-row INSERT.
struct Batch<'a> {
    conn: &'a mut Conn,
    spec: &'a TargetSpec,
    head: String,
    sql: String,
    rows: usize,
}

impl Batch<'_> {
    /// Starts INSERTs into `head` (`INSERT INTO t (cols) VALUES`).
    fn start(&mut self, head: &str) -> Result<()> {
        self.flush()?;
        self.head = head.to_string();
        Ok(())
    }

    /// Adds one row, `(...)`.
    fn row(&mut self, values: &str) -> Result<()> {
        if self.rows == 0 {
            self.sql.clear();
            self.sql.push_str(&self.head);
        } else {
            self.sql.push(',');
        }
        self.sql.push_str(values);
        self.rows += 1;
        if self.rows >= ROWS_PER_INSERT || self.sql.len() >= BYTES_PER_INSERT {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.rows > 0 {
            self.conn
                .query_drop(&self.sql)
                .map_err(|e| Error::new(format!("{}: {}: {}", self.spec.name(), self.head, describe(&e))))?;
            self.rows = 0;
        }
        Ok(())
    }
}

/// Street 1, street 2, city, state, zip as SQL literals.
fn address(r: &mut TRand) -> String {
    format!(
        "'{}','{}','{}','{}','{}'",
        r.astring(10, 20),
        r.astring(10, 20),
        r.astring(10, 20),
        r.astring(2, 2).to_ascii_uppercase(),
        r.zip()
    )
}

fn load_unit(b: &mut Batch<'_>, unit: Unit, s: &Scale, r: &mut TRand) -> Result<()> {
    match unit {
        Unit::Items { from, to } => {
            b.start("INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES")?;
            for i in from..=to {
                let v = format!(
                    "({i},{},'{}',{},'{}')",
                    r.uniform(1, 10_000),
                    r.astring(14, 24),
                    r.cents(100, 10_000),
                    r.data()
                );
                b.row(&v)?;
            }
        }
        Unit::Warehouse { w } => {
            // W_YTD 300 000.00 and D_YTD 30 000.00 at the standard scale:
            // the sums of the history rows' 10.00, as conditions 8 and 9
            // want at any scale.
            let d_ytd = u64::from(s.customers) * 10;
            b.start("INSERT INTO warehouse VALUES")?;
            let v = format!(
                "({w},'{}',{},{},{}.00)",
                r.astring(6, 10),
                address(r),
                r.cents(0, 20),
                d_ytd * u64::from(DISTRICTS)
            );
            b.row(&v)?;
            b.start("INSERT INTO district VALUES")?;
            for d in 1..=DISTRICTS {
                let v = format!(
                    "({d},{w},'{}',{},{},{d_ytd}.00,{})",
                    r.astring(6, 10),
                    address(r),
                    r.cents(0, 20),
                    s.orders() + 1
                );
                b.row(&v)?;
            }
        }
        Unit::Stock { w, from, to } => {
            b.start("INSERT INTO stock VALUES")?;
            for i in from..=to {
                let mut v = format!("({i},{w},{}", r.uniform(10, 100));
                for _ in 0..10 {
                    v.push_str(&format!(",'{}'", r.astring(24, 24)));
                }
                v.push_str(&format!(",0,0,0,'{}')", r.data()));
                b.row(&v)?;
            }
        }
        Unit::Customers { w, d } => {
            b.start("INSERT INTO customer VALUES")?;
            let named = s.customers.min(1000);
            for c in 1..=s.customers {
                let last = if c <= named { c - 1 } else { r.nurand(255, 0, named - 1, C_LAST_LOAD) };
                let credit = if r.percent(10) { "BC" } else { "GC" };
                let v = format!(
                    "({c},{d},{w},'{}','OE','{}',{},'{}',NOW(),'{credit}',50000,{},-10.00,10.00,1,0,'{}')",
                    r.astring(8, 16),
                    last_name(last),
                    address(r),
                    r.nstring(16, 16),
                    r.cents(0, 50),
                    r.astring(300, 500)
                );
                b.row(&v)?;
            }
            b.start("INSERT INTO history VALUES")?;
            for c in 1..=s.customers {
                b.row(&format!("({c},{d},{w},{d},{w},NOW(),10.00,'{}')", r.astring(12, 24)))?;
            }
        }
        Unit::Orders { w, d } => {
            let first_new = s.first_new_order();
            // O_C_ID: a random permutation of the customer ids.
            let mut perm: Vec<u32> = (1..=s.customers).collect();
            for i in (1..perm.len()).rev() {
                let j = r.uniform(0, i as u32) as usize;
                perm.swap(i, j);
            }
            let counts: Vec<u32> = (0..s.orders()).map(|_| r.uniform(5, 15)).collect();
            b.start("INSERT INTO orders VALUES")?;
            for o in 1..=s.orders() {
                let carrier = if o < first_new { r.uniform(1, 10).to_string() } else { "NULL".into() };
                let v = format!("({o},{d},{w},{},NOW(),{carrier},{},1)", perm[o as usize - 1], counts[o as usize - 1]);
                b.row(&v)?;
            }
            b.start("INSERT INTO order_line VALUES")?;
            for o in 1..=s.orders() {
                let delivered = o < first_new;
                for n in 1..=counts[o as usize - 1] {
                    let (when, amount) =
                        if delivered { ("NOW()", "0.00".to_string()) } else { ("NULL", r.cents(1, 999_999)) };
                    let v = format!(
                        "({o},{d},{w},{n},{},{w},{when},5,{amount},'{}')",
                        r.uniform(1, s.items),
                        r.astring(24, 24)
                    );
                    b.row(&v)?;
                }
            }
            b.start("INSERT INTO new_orders VALUES")?;
            for o in first_new..=s.orders() {
                b.row(&format!("({o},{d},{w})"))?;
            }
        }
    }
    b.flush()
}
