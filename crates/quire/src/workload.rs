//! `quire kill-workload`: a write workload for crash tests. It opens (and
//! recovers) an engine in a data directory, then inserts, updates and
//! deletes rows from several threads; after each acknowledged commit it
//! prints one line to stdout, flushed:
//!
//! ```text
//! I <id> <value>     row id now holds value (insert or update)
//! D <id>             row id deleted
//! ```
//!
//! A harness SIGKILLs the process at a random moment and checks, after
//! recovery, that every acknowledged change is there. Threads own disjoint
//! ids, so the last line about an id is its acknowledged state; a change
//! under way when the process died may be either way.
//!
//! With `--bank`, threads instead move money between accounts (table
//! `bank`, created with every account in one transaction) in transactions
//! that also log the transfer (table `transfers`), printing `T <log id>`
//! after each commit; the harness checks the total, each balance against
//! the logged transfers, and that every acknowledged transfer is logged.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use quire_engine::config::FlushMethod;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::{Engine, EngineConfig};
use quire_io::{OsVfs, Vfs};
use rand::{Rng, SeedableRng};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Data directory.
    #[arg(long)]
    datadir: PathBuf,
    /// Writer threads (each owns the ids congruent to its number).
    #[arg(long, default_value_t = 4)]
    threads: u64,
    /// Distinct row ids.
    #[arg(long, default_value_t = 5000)]
    ids: u64,
    /// Seed for the operation mix.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Redo log file size (small sizes make the log wrap).
    #[arg(long, default_value_t = 4 << 20)]
    log_file_size: u64,
    /// Run bank transfers in transactions instead.
    #[arg(long)]
    bank: bool,
}

/// Accounts of the bank workload, and what each starts with.
pub const ACCOUNTS: i64 = 50;
pub const START: i64 = 10_000;

fn bank_schemas() -> (TableSchema, TableSchema) {
    let accounts = TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("balance", ColumnType::BigInt { unsigned: false }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "by_balance".into(), columns: vec![1], unique: false, prefix: vec![] }],
        ..Default::default()
    };
    let transfers = TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("src", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("dst", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("amount", ColumnType::BigInt { unsigned: false }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![],
        ..Default::default()
    };
    (accounts, transfers)
}

fn run_bank(engine: &Arc<Engine>, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    use quire_engine::txn::Isolation;
    let (accounts, transfers) = match (engine.table("bank"), engine.table("transfers")) {
        (Ok(a), Ok(t)) => (a, t),
        _ => {
            let (sa, st) = bank_schemas();
            let a = engine.create_table("bank", sa)?;
            let t = engine.create_table("transfers", st)?;
            let mut trx = engine.begin(Isolation::RepeatableRead);
            for i in 0..ACCOUNTS {
                a.insert_tx(&mut trx, vec![Value::Int(i), Value::Int(START)])?;
            }
            trx.commit()?;
            (a, t)
        }
    };
    println!("READY");
    std::io::stdout().flush()?;
    let out = Arc::new(std::sync::Mutex::new(std::io::stdout()));
    std::thread::scope(|s| {
        for w in 0..args.threads {
            let (accounts, transfers, out, engine) = (accounts.clone(), transfers.clone(), out.clone(), engine.clone());
            let seed = args.seed;
            s.spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(seed * 1000 + w);
                let mut step = 0i64;
                loop {
                    step += 1;
                    let (src, dst) = (rng.gen_range(0..ACCOUNTS), rng.gen_range(0..ACCOUNTS));
                    if src == dst {
                        continue;
                    }
                    let amount = rng.gen_range(1..500);
                    let log_id = (seed as i64) << 40 | (w as i64) << 32 | step;
                    let mut trx = engine.begin(Isolation::RepeatableRead);
                    let mv = |trx: &mut quire_engine::table::Trx, id: i64, d: i64| {
                        accounts.update_tx(trx, &[Value::Int(id)], |o| match o[1] {
                            Value::Int(b) => Ok(vec![o[0].clone(), Value::Int(b + d)]),
                            _ => Err(quire_engine::Error::InvalidSchema("balance".into())),
                        })
                    };
                    let done = (|| {
                        mv(&mut trx, src, -amount)?;
                        mv(&mut trx, dst, amount)?;
                        transfers.insert_tx(
                            &mut trx,
                            vec![Value::Int(log_id), Value::Int(src), Value::Int(dst), Value::Int(amount)],
                        )?;
                        trx.commit()
                    })();
                    if done.is_ok() {
                        let mut o = out.lock().expect("stdout");
                        let _ = o.write_all(format!("T {log_id}\n").as_bytes());
                        let _ = o.flush();
                    }
                }
            });
        }
    });
    Ok(())
}

pub fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("v", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("pad", ColumnType::Varchar { len: 200 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "v".into(), columns: vec![1], unique: false, prefix: vec![] }],
        ..Default::default()
    }
}

pub fn row(id: i64, v: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(v), Value::Str(format!("{v:x}").repeat(8))]
}

pub fn open(datadir: &std::path::Path, log_file_size: u64) -> quire_engine::Result<Arc<Engine>> {
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let cfg = EngineConfig::new(datadir)
        .page_size(4096)
        .buffer_pool_size(2 << 20)
        .flush_method(FlushMethod::ODirect)
        .log_file_size(log_file_size);
    Engine::open(cfg, vfs)
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let engine = open(&args.datadir, args.log_file_size)?;
    if args.bank {
        return run_bank(&engine, &args);
    }
    let table = match engine.table("t") {
        Ok(t) => t,
        Err(_) => engine.create_table("t", schema())?,
    };
    println!("READY");
    std::io::stdout().flush()?;
    let out = Arc::new(std::sync::Mutex::new(std::io::stdout()));
    std::thread::scope(|s| {
        for w in 0..args.threads {
            let (table, out) = (table.clone(), out.clone());
            let (threads, ids, seed) = (args.threads, args.ids, args.seed);
            s.spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(seed * 1000 + w);
                let mut step = 0i64;
                loop {
                    step += 1;
                    let id = (rng.gen_range(0..ids / threads) * threads + w) as i64;
                    // Increasing across runs (seed) and per writer (step).
                    let v = (seed as i64) << 44 | (w as i64) << 40 | step;
                    let line = match rng.gen_range(0..10) {
                        0..=6 => {
                            let done = match table.update(&[Value::Int(id)], row(id, v)) {
                                Ok(true) => true,
                                Ok(false) => table.insert(row(id, v)).is_ok(),
                                Err(_) => false,
                            };
                            done.then(|| format!("I {id} {v}\n"))
                        }
                        _ => matches!(table.delete(&[Value::Int(id)]), Ok(true)).then(|| format!("D {id}\n")),
                    };
                    if let Some(line) = line {
                        let mut o = out.lock().expect("stdout");
                        let _ = o.write_all(line.as_bytes());
                        let _ = o.flush();
                    }
                }
            });
        }
    });
    Ok(())
}
