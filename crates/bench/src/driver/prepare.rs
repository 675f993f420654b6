//! The data, as sysbench's `prepare` makes it (oltp_common.lua
//! `create_table`): per table, `CREATE TABLE sbtestN` (id INTEGER
//! AUTO_INCREMENT primary key, k INTEGER, c CHAR(120), pad CHAR(60)),
//! multi-row INSERTs of (k, c, pad) with k from the special distribution,
//! then `CREATE INDEX k_N ON sbtestN(k)`. Tables load in parallel, one per
//! thread, with a progress bar on the terminal.
//!
//! `prewarm` reads every row once through the primary key so that a run
//! right after a (re)start does not measure an empty buffer pool.

use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mysql::prelude::Queryable;
use mysql::Conn;

use super::rand::{SbRand, C_TEMPLATE, PAD_TEMPLATE};
use crate::error::{describe, Context, Error, Result};
use crate::target::TargetSpec;

/// Rows per multi-row INSERT (about 190 KB of SQL).
const ROWS_PER_INSERT: u32 = 1000;

/// The tables to make.
#[derive(Debug, Clone, Copy)]
pub struct DataSpec {
    pub tables: u32,
    pub table_size: u32,
}

/// sysbench's `CREATE TABLE` for table `n`.
pub fn create_table_sql(n: u32) -> String {
    format!(
        "CREATE TABLE sbtest{n}(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
         c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) \
         /*! ENGINE = innodb */ "
    )
}

/// Drops and makes `sbtest1..=tables` in the target's database (creating
/// the database if it is missing), `threads` tables at a time.
pub fn prepare(spec: &TargetSpec, data: DataSpec, threads: u32, progress: bool) -> Result<()> {
    let mut admin = spec.connect(false, 4)?;
    let db = &spec.database;
    if let Err(e) = admin.query_drop(format!("CREATE DATABASE IF NOT EXISTS `{db}`")) {
        // A user without CREATE may still own an existing database.
        admin.query_drop(format!("USE `{db}`")).map_err(|_| {
            Error::new(format!("{}: cannot create or use database '{db}': {}", spec.name(), describe(&e)))
        })?;
    }
    drop(admin);
    let total = u64::from(data.tables) * u64::from(data.table_size);
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if progress { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() },
    );
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} rows ({per_sec}, {eta} left) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("loading {}", spec.name()));
    let bar = Arc::new(bar);
    let workers = threads.clamp(1, data.tables.max(1));
    let mut handles = Vec::new();
    for w in 0..workers {
        let (spec, bar) = (spec.clone(), bar.clone());
        handles.push(std::thread::spawn(move || -> Result<()> {
            let mut conn = spec.connect(true, 4)?;
            let mut rng = SbRand::new(0x5eed_0000 + u64::from(w));
            let mut n = w + 1;
            while n <= data.tables {
                load_table(&mut conn, &spec, n, data.table_size, &mut rng, &bar)?;
                n += workers;
            }
            Ok(())
        }));
    }
    let mut first_err = None;
    for h in handles {
        let r = h.join().unwrap_or_else(|_| Err(Error::new("a loading thread panicked")));
        if let Err(e) = r {
            first_err.get_or_insert(e);
        }
    }
    bar.finish_and_clear();
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn load_table(
    conn: &mut Conn,
    spec: &TargetSpec,
    n: u32,
    rows: u32,
    rng: &mut SbRand,
    bar: &ProgressBar,
) -> Result<()> {
    let name = spec.name();
    conn.query_drop(format!("DROP TABLE IF EXISTS sbtest{n}")).context(|| format!("{name}: DROP TABLE sbtest{n}"))?;
    conn.query_drop(create_table_sql(n)).context(|| format!("{name}: CREATE TABLE sbtest{n}"))?;
    let mut done = 0;
    let mut sql = String::with_capacity(ROWS_PER_INSERT as usize * 200);
    while done < rows {
        let batch = ROWS_PER_INSERT.min(rows - done);
        sql.clear();
        sql.push_str(&format!("INSERT INTO sbtest{n}(k, c, pad) VALUES"));
        for i in 0..batch {
            let k = rng.special(1, rows);
            let c = rng.string(C_TEMPLATE);
            let pad = rng.string(PAD_TEMPLATE);
            if i > 0 {
                sql.push(',');
            }
            sql.push_str(&format!("({k}, '{c}', '{pad}')"));
        }
        conn.query_drop(&sql).context(|| format!("{name}: loading sbtest{n}"))?;
        done += batch;
        bar.inc(u64::from(batch));
    }
    bar.set_message(format!("CREATE INDEX k_{n}"));
    conn.query_drop(format!("CREATE INDEX k_{n} ON sbtest{n}(k)"))
        .context(|| format!("{name}: CREATE INDEX k_{n} ON sbtest{n}(k)"))?;
    Ok(())
}

/// Checks that `sbtest1..=tables` exist (for `--skip-prepare`).
pub fn check_tables(spec: &TargetSpec, tables: u32) -> Result<()> {
    let mut conn = spec.connect(true, 4)?;
    for n in 1..=tables {
        conn.query_drop(format!("SELECT id FROM sbtest{n} WHERE id = 1")).map_err(|e| {
            let e = describe(&e);
            Error::new(format!("{}: table sbtest{n} is not usable ({e}); run without --skip-prepare", spec.name()))
        })?;
    }
    Ok(())
}

/// Reads every table once through its primary key.
pub fn prewarm(spec: &TargetSpec, tables: u32) -> Result<()> {
    let mut conn = spec.connect(true, 4)?;
    for n in 1..=tables {
        conn.query_drop(format!("SELECT SUM(k) FROM sbtest{n}"))
            .context(|| format!("{}: prewarm sbtest{n}", spec.name()))?;
    }
    Ok(())
}
