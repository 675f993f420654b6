//! The five TPC-C transactions (clauses 2.4 to 2.8) as one terminal runs
//! them over a `mysql` connection with server-side prepared statements.
//!
//! A terminal has a home warehouse and, for Stock-Level, a district of
//! its own (clause 2.8.1). Each transaction's input is drawn first
//! (`super::input`), then executed between BEGIN and COMMIT; a deadlock (1213)
//! or lock wait timeout (1205) rolls it back and the caller runs the same
//! input again. Money travels as whole cents and is divided by 100 in SQL,
//! so that every sum stays exact DECIMAL arithmetic.
//!
//! Choices the specification leaves open: the order lines of a New-Order
//! are processed by (supply warehouse, item) so that two New-Orders lock
//! stock rows in one order; a Delivery is one transaction over the ten
//! districts; when a district's oldest new order is already gone (the
//! DELETE finds nothing) that district is skipped, as for no new order.

use mysql::prelude::Queryable;
use mysql::{Conn, Row};

use super::input::{CustomerRef, Input, Line};
use super::rand::{money, parse_cents, TRand};
use super::schema::{Scale, DISTRICTS};
use crate::driver::workload::{Kind, StmtCounts};

/// One terminal: a connection, its warehouse and district, its random
/// numbers and the statements it sent.
pub struct Terminal {
    pub conn: Conn,
    pub w: u32,
    /// The district of its Stock-Level transactions.
    pub d: u32,
    pub scale: Scale,
    pub rand: TRand,
    /// Statements sent since the caller last took them.
    pub sent: StmtCounts,
}

/// How a transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Committed,
    /// A New-Order with the unused item (clause 2.4.2.3).
    RolledBack,
}

type R<T> = std::result::Result<T, mysql::Error>;

/// A statement that must return a row did not.
fn missing(what: &str) -> mysql::Error {
    mysql::Error::from(std::io::Error::other(format!("TPC-C: {what} not found")))
}

fn cents(row: &Row, i: usize) -> R<i64> {
    let text: Option<String> = row.get::<Option<String>, _>(i).flatten();
    text.as_deref().and_then(parse_cents).ok_or_else(|| missing("a decimal value"))
}

impl Terminal {
    /// Draws the next transaction's input.
    pub fn next_input(&mut self) -> Input {
        super::input::draw(&mut self.rand, self.w, &self.scale)
    }

    fn count(&mut self, k: Kind) {
        self.sent.add(k, 1);
    }

    fn first(&mut self, k: Kind, sql: &str, p: impl Into<mysql::Params>) -> R<Option<Row>> {
        self.count(k);
        self.conn.exec_first(sql, p)
    }

    fn all(&mut self, sql: &str, p: impl Into<mysql::Params>) -> R<Vec<Row>> {
        self.count(Kind::Select);
        self.conn.exec(sql, p)
    }

    /// Runs `sql` and returns the rows it changed.
    fn change(&mut self, k: Kind, sql: &str, p: impl Into<mysql::Params>) -> R<u64> {
        self.count(k);
        self.conn.exec_drop(sql, p)?;
        Ok(self.conn.affected_rows())
    }

    fn text(&mut self, k: Kind, sql: &str) -> R<()> {
        self.count(k);
        self.conn.query_drop(sql)
    }

    /// Runs `input` as one transaction. On an error the transaction is
    /// rolled back (best effort) before the error is returned.
    pub fn execute(&mut self, input: &Input) -> R<Ended> {
        self.text(Kind::Begin, "BEGIN")?;
        let res = match input {
            Input::NewOrder { d, c, lines } => self.new_order(*d, *c, lines),
            Input::Payment { d, c_w, c_d, customer, cents } => self.payment(*d, *c_w, *c_d, customer, *cents),
            Input::OrderStatus { d, customer } => self.order_status(*d, customer),
            Input::Delivery { carrier } => self.delivery(*carrier),
            Input::StockLevel { threshold } => self.stock_level(*threshold),
        };
        match res {
            Ok(Ended::Committed) => {
                self.text(Kind::Commit, "COMMIT")?;
                Ok(Ended::Committed)
            }
            Ok(Ended::RolledBack) => {
                self.text(Kind::Rollback, "ROLLBACK")?;
                Ok(Ended::RolledBack)
            }
            Err(e) => {
                let _ = self.text(Kind::Rollback, "ROLLBACK");
                Err(e)
            }
        }
    }

    /// Clause 2.4.2.
    fn new_order(&mut self, d: u32, c: u32, lines: &[Line]) -> R<Ended> {
        let w = self.w;
        let row = self
            .first(
                Kind::Select,
                "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse \
                 WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?",
                (w, d, c),
            )?
            .ok_or_else(|| missing("customer"))?;
        let (discount, w_tax) = (cents(&row, 0)?, cents(&row, 3)?);
        let row = self
            .first(
                Kind::Select,
                "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE",
                (w, d),
            )?
            .ok_or_else(|| missing("district"))?;
        let o_id: u32 = row.get(0).ok_or_else(|| missing("d_next_o_id"))?;
        let d_tax = cents(&row, 1)?;
        self.change(
            Kind::Update,
            "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?",
            (w, d),
        )?;
        let all_local = u32::from(lines.iter().all(|l| l.supply_w == w));
        self.change(
            Kind::Insert,
            "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) \
             VALUES (?, ?, ?, ?, NOW(), ?, ?)",
            (o_id, d, w, c, lines.len() as u32, all_local),
        )?;
        self.change(Kind::Insert, "INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)", (o_id, d, w))?;
        let stock_sql =
            format!("SELECT s_quantity, s_data, s_dist_{d:02} FROM stock WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE");
        let mut total = 0i64;
        for (n, l) in lines.iter().enumerate() {
            let Some(item) =
                self.first(Kind::Select, "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?", (l.item,))?
            else {
                // The unused item: the whole order is rolled back.
                return Ok(Ended::RolledBack);
            };
            let price = cents(&item, 0)?;
            let stock = self.first(Kind::Select, &stock_sql, (l.item, l.supply_w))?.ok_or_else(|| missing("stock"))?;
            let qty: i64 = stock.get(0).ok_or_else(|| missing("s_quantity"))?;
            let dist: String = stock.get(2).ok_or_else(|| missing("s_dist"))?;
            let q = i64::from(l.quantity);
            let new_qty = if qty >= q + 10 { qty - q } else { qty - q + 91 };
            self.change(
                Kind::Update,
                "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, \
                 s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?",
                (new_qty, q, u32::from(l.supply_w != w), l.item, l.supply_w),
            )?;
            let amount = q * price;
            total += amount;
            self.change(
                Kind::Insert,
                "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, \
                 ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ? / 100, ?)",
                (o_id, d, w, n as u32 + 1, l.item, l.supply_w, l.quantity, amount, dist),
            )?;
        }
        // The total the terminal would show (clause 2.4.3.3), computed
        // as specified though nobody reads it.
        let _shown = total * (100 - discount) * (100 + w_tax + d_tax) / 10_000;
        Ok(Ended::Committed)
    }

    /// The customer's id: directly, or the one in the middle (n/2
    /// rounded up) of those with the last name, sorted by C_FIRST
    /// (clause 2.5.2.2).
    fn customer_id(&mut self, c_w: u32, c_d: u32, who: &CustomerRef) -> R<u32> {
        match who {
            CustomerRef::Id(c) => Ok(*c),
            CustomerRef::Last(last) => {
                let rows = self.all(
                    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
                    (c_w, c_d, last.as_str()),
                )?;
                let n = rows.len();
                let row = rows.get(n.div_ceil(2).saturating_sub(1)).ok_or_else(|| missing("customer by name"))?;
                row.get(0).ok_or_else(|| missing("c_id"))
            }
        }
    }

    /// Clause 2.5.2.
    fn payment(&mut self, d: u32, c_w: u32, c_d: u32, who: &CustomerRef, amount: i64) -> R<Ended> {
        let w = self.w;
        self.change(Kind::Update, "UPDATE warehouse SET w_ytd = w_ytd + ? / 100 WHERE w_id = ?", (amount, w))?;
        let wh = self
            .first(
                Kind::Select,
                "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?",
                (w,),
            )?
            .ok_or_else(|| missing("warehouse"))?;
        let w_name: String = wh.get(5).ok_or_else(|| missing("w_name"))?;
        self.change(
            Kind::Update,
            "UPDATE district SET d_ytd = d_ytd + ? / 100 WHERE d_w_id = ? AND d_id = ?",
            (amount, w, d),
        )?;
        let di = self
            .first(
                Kind::Select,
                "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district \
                 WHERE d_w_id = ? AND d_id = ?",
                (w, d),
            )?
            .ok_or_else(|| missing("district"))?;
        let d_name: String = di.get(5).ok_or_else(|| missing("d_name"))?;
        let c = self.customer_id(c_w, c_d, who)?;
        let cu = self
            .first(
                Kind::Select,
                "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, \
                 c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_since FROM customer \
                 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE",
                (c_w, c_d, c),
            )?
            .ok_or_else(|| missing("customer"))?;
        let credit: String = cu.get(9).ok_or_else(|| missing("c_credit"))?;
        if credit == "BC" {
            let data = self
                .first(
                    Kind::Select,
                    "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
                    (c_w, c_d, c),
                )?
                .and_then(|r| r.get::<Option<String>, _>(0))
                .flatten()
                .unwrap_or_default();
            let mut new = format!("{c} {c_d} {c_w} {d} {w} {} | {data}", money(amount));
            new.truncate(500);
            self.change(
                Kind::Update,
                "UPDATE customer SET c_balance = c_balance - ? / 100, c_ytd_payment = c_ytd_payment + ? / 100, \
                 c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
                (amount, amount, new, c_w, c_d, c),
            )?;
        } else {
            self.change(
                Kind::Update,
                "UPDATE customer SET c_balance = c_balance - ? / 100, c_ytd_payment = c_ytd_payment + ? / 100, \
                 c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
                (amount, amount, c_w, c_d, c),
            )?;
        }
        let h_data = format!("{w_name}    {d_name}");
        self.change(
            Kind::Insert,
            "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
             VALUES (?, ?, ?, ?, ?, NOW(), ? / 100, ?)",
            (c_d, c_w, c, d, w, amount, h_data),
        )?;
        Ok(Ended::Committed)
    }

    /// Clause 2.6.2.
    fn order_status(&mut self, d: u32, who: &CustomerRef) -> R<Ended> {
        let w = self.w;
        let c = self.customer_id(w, d, who)?;
        self.first(
            Kind::Select,
            "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            (w, d, c),
        )?
        .ok_or_else(|| missing("customer"))?;
        let order = self.first(
            Kind::Select,
            "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? \
             ORDER BY o_id DESC LIMIT 1",
            (w, d, c),
        )?;
        if let Some(o) = order {
            let o_id: u32 = o.get(0).ok_or_else(|| missing("o_id"))?;
            self.all(
                "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line \
                 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
                (w, d, o_id),
            )?;
        }
        Ok(Ended::Committed)
    }

    /// Clause 2.7.4, the ten districts in one transaction.
    fn delivery(&mut self, carrier: u32) -> R<Ended> {
        let w = self.w;
        for d in 1..=DISTRICTS {
            let Some(no) = self.first(
                Kind::Select,
                "SELECT no_o_id FROM new_orders WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 \
                 FOR UPDATE",
                (w, d),
            )?
            else {
                continue;
            };
            let o_id: u32 = no.get(0).ok_or_else(|| missing("no_o_id"))?;
            let gone = self.change(
                Kind::Delete,
                "DELETE FROM new_orders WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
                (w, d, o_id),
            )?;
            if gone == 0 {
                continue;
            }
            let o = self
                .first(
                    Kind::Select,
                    "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
                    (w, d, o_id),
                )?
                .ok_or_else(|| missing("order"))?;
            let c: u32 = o.get(0).ok_or_else(|| missing("o_c_id"))?;
            self.change(
                Kind::Update,
                "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
                (carrier, w, d, o_id),
            )?;
            self.change(
                Kind::Update,
                "UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
                (w, d, o_id),
            )?;
            let sum = self
                .first(
                    Kind::Select,
                    "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
                    (w, d, o_id),
                )?
                .ok_or_else(|| missing("order lines"))?;
            let total = cents(&sum, 0)?;
            self.change(
                Kind::Update,
                "UPDATE customer SET c_balance = c_balance + ? / 100, c_delivery_cnt = c_delivery_cnt + 1 \
                 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
                (total, w, d, c),
            )?;
        }
        Ok(Ended::Committed)
    }

    /// Clause 2.8.2: stock below the threshold among the items of the
    /// district's last 20 orders.
    fn stock_level(&mut self, threshold: u32) -> R<Ended> {
        let (w, d) = (self.w, self.d);
        let row = self
            .first(Kind::Select, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?", (w, d))?
            .ok_or_else(|| missing("district"))?;
        let next: u32 = row.get(0).ok_or_else(|| missing("d_next_o_id"))?;
        self.first(
            Kind::Select,
            "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? \
             AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
            (w, d, next, next.saturating_sub(20), w, threshold),
        )?;
        Ok(Ended::Committed)
    }
}
