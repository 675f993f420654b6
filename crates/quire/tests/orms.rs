//! Real ORMs against a `quire serve` child with a fresh data directory,
//! each driven by a Python program under `tests/orms/` that asserts the
//! ORM's own results and exits non-zero (with the failing SQL) on the
//! first wrong one:
//!
//! - Django (`orms/django/run.py`, app `shop`): `migrate` of the contrib
//!   apps and of an app whose second migration adds, alters, renames and
//!   removes fields and adds an index; CRUD through the ORM (lookups,
//!   joins, aggregates, F / Q / Exists, transactions and savepoints,
//!   select_for_update, cascades); every migration reversed.
//! - SQLAlchemy 2 and Alembic (`orms/sqlalchemy/run.py`): create_all,
//!   reflection compared with the declared metadata, autogenerate (empty
//!   after create_all, exactly the changes after the models change),
//!   upgrade and downgrade, Session CRUD with joins and eager loading.
//!
//! - knex (`orms/knex/run.js`): its migrations (create tables with keys,
//!   then add / rename / drop / alter columns and add an index) up to the
//!   latest and rolled back to none, and CRUD through the query builder.
//! - Sequelize (`orms/sequelize/run.js`): sync() of models with
//!   associations, sync({ alter: true }) after they change, the
//!   QueryInterface's migrations and their reverse, CRUD through models.
//!
//! The Python is `QUIRE_TEST_PYTHON` (`.ci/run` makes a venv with the
//! pinned packages) or `python3`; knex, Sequelize and mysql2 are found in
//! `QUIRE_TEST_NODE_MODULES` (`.ci/run` installs them with npm). Without
//! the packages the tests say they skipped.

mod child;

use std::path::Path;
use std::process::Command;

use child::Server;

const PW: &str = "orms-pw";

/// The Python that can import `modules`, if any.
fn python_with(modules: &str) -> Option<String> {
    let py = std::env::var("QUIRE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py).args(["-c", &format!("import {modules}")]).output().is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

/// The `node_modules` folder (`QUIRE_TEST_NODE_MODULES`) if it holds
/// `packages`.
fn node_modules_with(packages: &[&str]) -> Option<String> {
    let dir = std::env::var("QUIRE_TEST_NODE_MODULES").ok()?;
    let ok = packages.iter().all(|m| Path::new(&dir).join(m).join("package.json").is_file());
    ok.then_some(dir)
}

/// Runs `tests/orms/<program>` with `interpreter` against a fresh server;
/// fails the test with the program's output when it fails.
fn run_program(interpreter: &str, program: &str, env: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&dir.path().join("data"), &dir.path().join("quire.err"), PW, &child::DURABLE_16M, &|_| {});
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/orms").join(program);
    let out = Command::new(interpreter)
        .arg(&path)
        .arg(s.port.to_string())
        .arg(PW)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{program} failed:\n{stdout}\n{}\nquire's log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(dir.path().join("quire.err")).unwrap_or_default()
    );
    assert!(stdout.contains("all checks passed"), "{program} ended early:\n{stdout}");
}

#[test]
fn django_migrations_crud_and_reverse_migrations() {
    let Some(py) = python_with("django, pymysql") else {
        eprintln!("django and pymysql are not importable (set QUIRE_TEST_PYTHON): skipped");
        return;
    };
    run_program(&py, "django/run.py", &[("PYTHONDONTWRITEBYTECODE", "1")]);
}

#[test]
fn sqlalchemy_reflection_alembic_autogenerate_and_crud() {
    let Some(py) = python_with("sqlalchemy, alembic, pymysql") else {
        eprintln!("sqlalchemy, alembic and pymysql are not importable (set QUIRE_TEST_PYTHON): skipped");
        return;
    };
    run_program(&py, "sqlalchemy/run.py", &[("PYTHONDONTWRITEBYTECODE", "1")]);
}

#[test]
fn knex_migrations_latest_rollback_and_crud() {
    let Some(modules) = node_modules_with(&["knex", "mysql2"]) else {
        eprintln!("knex and mysql2 are not installed (set QUIRE_TEST_NODE_MODULES): skipped");
        return;
    };
    run_program("node", "knex/run.js", &[("NODE_PATH", &modules)]);
}

#[test]
fn sequelize_sync_alter_query_interface_migrations_and_crud() {
    let Some(modules) = node_modules_with(&["sequelize", "mysql2"]) else {
        eprintln!("sequelize and mysql2 are not installed (set QUIRE_TEST_NODE_MODULES): skipped");
        return;
    };
    run_program("node", "sequelize/run.js", &[("NODE_PATH", &modules)]);
}
