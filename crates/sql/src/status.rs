//! Engine counters for SHOW STATUS, under InnoDB's names where the concept
//! is the same.

use quire_engine::Engine;

pub fn engine_status(e: &Engine) -> Vec<(String, String)> {
    let pool = e.pool();
    let mut v = vec![("Innodb_page_size".to_string(), pool.page_size().to_string())];
    let log = e.log();
    v.push(("Innodb_lsn_current".into(), log.current_lsn().to_string()));
    v
}
