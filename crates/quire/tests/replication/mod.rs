//! What the replication tests compare: every table's rows on two
//! servers, as text, and the first row that differs.

use mysql::prelude::Queryable;
use mysql::Conn;

pub type Rows = Vec<Vec<Option<Vec<u8>>>>;

/// Every table of `db` and its rows in full-row order, as text.
pub fn contents(c: &mut Conn, db: &str) -> Vec<(String, Rows)> {
    let mut tables: Vec<String> = c.query(format!("SHOW TABLES FROM {db}")).unwrap();
    tables.sort();
    tables
        .into_iter()
        .map(|t| {
            let ncols: Vec<String> = c
                .query(format!(
                    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='{t}'"
                ))
                .unwrap();
            let order = (1..=ncols.len().max(1)).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
            let rows: Vec<mysql::Row> = c.query(format!("SELECT * FROM {db}.{t} ORDER BY {order}")).unwrap();
            let rows = rows
                .into_iter()
                .map(|r| {
                    r.unwrap()
                        .into_iter()
                        .map(|v| match v {
                            mysql::Value::NULL => None,
                            mysql::Value::Bytes(b) => Some(b),
                            v => Some(v.as_sql(true).into_bytes()),
                        })
                        .collect()
                })
                .collect();
            (t, rows)
        })
        .collect()
}

/// The first row that differs, for the failure message.
pub fn first_difference(a: &[(String, Rows)], b: &[(String, Rows)]) -> String {
    let text = |r: &[Option<Vec<u8>>]| {
        r.iter()
            .map(|v| v.as_ref().map_or("NULL".into(), |b| String::from_utf8_lossy(b).into_owned()))
            .collect::<Vec<_>>()
    };
    for ((t, ra), (_, rb)) in a.iter().zip(b) {
        for (x, y) in ra.iter().zip(rb) {
            if x != y {
                return format!("table {t}: source {:?} replica {:?}", text(x), text(y));
            }
        }
    }
    String::new()
}
