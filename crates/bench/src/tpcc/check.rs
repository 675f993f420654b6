//! The consistency conditions of TPC-C clause 3.3.2, as SQL over the
//! whole database (every warehouse and district at once), run on a quiet
//! database (after a run, or after a crash and restart).
//!
//! Conditions 1 to 9 are each one query counting the warehouses,
//! districts, orders or order lines that break them. Conditions 10 and 12
//! compare per-customer sums; the sums are SQL aggregates (GROUP BY) and
//! the comparison is made here, so that no server needs a good plan for a
//! join of derived tables. Condition 11 holds only before the first
//! Delivery and is not checked.

use std::collections::HashMap;

use mysql::prelude::Queryable;
use mysql::Conn;

use super::rand::parse_cents;
use crate::error::{describe, Error, Result};

/// One condition's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `3.3.2.1`.
    pub clause: &'static str,
    pub what: &'static str,
    /// Rows (warehouses, districts, orders, customers) that break it.
    pub violations: u64,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.violations == 0
    }
}

/// `(clause, what, query counting violations)`.
const SQL_CHECKS: [(&str, &str, &str); 9] = [
    (
        "3.3.2.1",
        "W_YTD = sum(D_YTD)",
        "SELECT COUNT(*) FROM warehouse, (SELECT d_w_id, SUM(d_ytd) s FROM district GROUP BY d_w_id) d \
         WHERE d.d_w_id = w_id AND w_ytd <> d.s",
    ),
    (
        "3.3.2.2",
        "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        "SELECT COUNT(*) FROM district \
         JOIN (SELECT o_w_id, o_d_id, MAX(o_id) mo FROM orders GROUP BY o_w_id, o_d_id) o \
           ON o.o_w_id = d_w_id AND o.o_d_id = d_id \
         LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) mno FROM new_orders GROUP BY no_w_id, no_d_id) n \
           ON n.no_w_id = d_w_id AND n.no_d_id = d_id \
         WHERE d_next_o_id - 1 <> o.mo OR (n.mno IS NOT NULL AND d_next_o_id - 1 <> n.mno)",
    ),
    (
        "3.3.2.3",
        "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER) per district",
        "SELECT COUNT(*) FROM (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 span, COUNT(*) n FROM new_orders \
         GROUP BY no_w_id, no_d_id) t WHERE span <> n",
    ),
    (
        "3.3.2.4",
        "sum(O_OL_CNT) = count(ORDER-LINE) per district",
        "SELECT COUNT(*) FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM orders GROUP BY o_w_id, o_d_id) o \
         LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) n FROM order_line GROUP BY ol_w_id, ol_d_id) l \
           ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id \
         WHERE l.n IS NULL OR o.s <> l.n",
    ),
    (
        "3.3.2.5",
        "O_CARRIER_ID is NULL exactly for the orders in NEW-ORDER",
        "SELECT COUNT(*) FROM orders LEFT JOIN new_orders \
           ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id \
         WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL)",
    ),
    (
        "3.3.2.6",
        "O_OL_CNT = the order's ORDER-LINE rows",
        "SELECT COUNT(*) FROM (SELECT MAX(o_ol_cnt) c, COUNT(ol_number) n FROM orders LEFT JOIN order_line \
           ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
         GROUP BY o_w_id, o_d_id, o_id) t WHERE c <> n",
    ),
    (
        "3.3.2.7",
        "OL_DELIVERY_D is NULL exactly when O_CARRIER_ID is",
        "SELECT COUNT(*) FROM orders, order_line \
         WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
           AND ((ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) \
             OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL))",
    ),
    (
        "3.3.2.8",
        "W_YTD = sum(H_AMOUNT) per warehouse",
        "SELECT COUNT(*) FROM warehouse LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM history GROUP BY h_w_id) h \
           ON h.h_w_id = w_id WHERE h.s IS NULL OR w_ytd <> h.s",
    ),
    (
        "3.3.2.9",
        "D_YTD = sum(H_AMOUNT) per district",
        "SELECT COUNT(*) FROM district \
         LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM history GROUP BY h_w_id, h_d_id) h \
           ON h.h_w_id = d_w_id AND h.h_d_id = d_id WHERE h.s IS NULL OR d_ytd <> h.s",
    ),
];

type Key = (u32, u32, u32);

/// `(w, d, c) -> cents` from a query returning those four columns.
fn sums(conn: &mut Conn, sql: &str) -> Result<HashMap<Key, i64>> {
    let rows: Vec<(u32, u32, u32, Option<String>)> =
        conn.query(sql).map_err(|e| Error::new(format!("{sql}: {}", describe(&e))))?;
    rows.into_iter()
        .map(|(w, d, c, v)| {
            let cents = v.as_deref().map_or(Some(0), parse_cents);
            cents.map(|v| ((w, d, c), v)).ok_or_else(|| Error::new(format!("{sql}: not a decimal")))
        })
        .collect()
}

/// Runs every condition; the caller decides what a violation means.
pub fn run(conn: &mut Conn) -> Result<Vec<Outcome>> {
    let mut out = Vec::new();
    for (clause, what, sql) in SQL_CHECKS {
        let n: Option<u64> = conn.query_first(sql).map_err(|e| Error::new(format!("{clause}: {}", describe(&e))))?;
        out.push(Outcome { clause, what, violations: n.unwrap_or(0) });
    }
    // 3.3.2.10 and 3.3.2.12: per customer.
    let delivered = sums(
        conn,
        "SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) FROM orders, order_line \
         WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL \
         GROUP BY o_w_id, o_d_id, o_c_id",
    )?;
    let paid = sums(
        conn,
        "SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id",
    )?;
    let balance = sums(conn, "SELECT c_w_id, c_d_id, c_id, c_balance FROM customer")?;
    let ytd = sums(conn, "SELECT c_w_id, c_d_id, c_id, c_ytd_payment FROM customer")?;
    let get = |m: &HashMap<Key, i64>, k: &Key| m.get(k).copied().unwrap_or(0);
    let (mut v10, mut v12) = (0, 0);
    for (k, b) in &balance {
        if *b != get(&delivered, k) - get(&paid, k) {
            v10 += 1;
        }
        if *b + get(&ytd, k) != get(&delivered, k) {
            v12 += 1;
        }
    }
    out.push(Outcome {
        clause: "3.3.2.10",
        what: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) per customer",
        violations: v10,
    });
    out.push(Outcome {
        clause: "3.3.2.12",
        what: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer",
        violations: v12,
    });
    Ok(out)
}

/// The outcomes as lines: `3.3.2.1 PASSED W_YTD = sum(D_YTD)`.
pub fn render(outcomes: &[Outcome]) -> String {
    outcomes
        .iter()
        .map(|o| {
            let verdict = if o.passed() { "PASSED".to_string() } else { format!("FAILED ({} rows)", o.violations) };
            format!("{:<9} {verdict:<8} {}\n", o.clause, o.what)
        })
        .collect()
}
