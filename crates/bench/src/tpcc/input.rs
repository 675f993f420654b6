//! What a terminal asks for: the transaction type drawn from the
//! standard mix (clause 5.2.3) and its input (clauses 2.4.1, 2.5.1,
//! 2.6.1, 2.7.1, 2.8.1), drawn before the transaction runs so that a
//! retry after a deadlock runs the same input.

use super::rand::TRand;
use super::schema::{Scale, DISTRICTS};

/// The transaction types, in the order of the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnType {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

impl TxnType {
    pub const ALL: [TxnType; 5] =
        [TxnType::NewOrder, TxnType::Payment, TxnType::OrderStatus, TxnType::Delivery, TxnType::StockLevel];

    pub fn name(self) -> &'static str {
        match self {
            TxnType::NewOrder => "new_order",
            TxnType::Payment => "payment",
            TxnType::OrderStatus => "order_status",
            TxnType::Delivery => "delivery",
            TxnType::StockLevel => "stock_level",
        }
    }

    /// The standard mix (clause 5.2.3): 45 / 43 / 4 / 4 / 4 percent.
    pub fn pick(r: &mut TRand) -> TxnType {
        match r.uniform(1, 100) {
            1..=45 => TxnType::NewOrder,
            46..=88 => TxnType::Payment,
            89..=92 => TxnType::OrderStatus,
            93..=96 => TxnType::Delivery,
            _ => TxnType::StockLevel,
        }
    }
}

/// How a customer is named: by id or (60%) by last name.
#[derive(Debug, Clone)]
pub enum CustomerRef {
    Id(u32),
    Last(String),
}

/// One order line of a New-Order: item, supply warehouse, quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Line {
    pub supply_w: u32,
    pub item: u32,
    pub quantity: u32,
}

/// A transaction's input, drawn before it runs.
#[derive(Debug, Clone)]
pub enum Input {
    NewOrder { d: u32, c: u32, lines: Vec<Line> },
    Payment { d: u32, c_w: u32, c_d: u32, customer: CustomerRef, cents: i64 },
    OrderStatus { d: u32, customer: CustomerRef },
    Delivery { carrier: u32 },
    StockLevel { threshold: u32 },
}

impl Input {
    pub fn kind(&self) -> TxnType {
        match self {
            Input::NewOrder { .. } => TxnType::NewOrder,
            Input::Payment { .. } => TxnType::Payment,
            Input::OrderStatus { .. } => TxnType::OrderStatus,
            Input::Delivery { .. } => TxnType::Delivery,
            Input::StockLevel { .. } => TxnType::StockLevel,
        }
    }
}

/// The input of a transaction of a terminal of warehouse `w` (clauses
/// 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1).
pub fn draw(r: &mut TRand, w: u32, s: &Scale) -> Input {
    let other_w = |r: &mut TRand| {
        let o = r.uniform(1, s.warehouses - 1);
        if o >= w {
            o + 1
        } else {
            o
        }
    };
    let customer = |r: &mut TRand| {
        if r.percent(60) {
            CustomerRef::Last(r.run_last_name(s.customers))
        } else {
            CustomerRef::Id(r.customer_id(s.customers))
        }
    };
    match TxnType::pick(r) {
        TxnType::NewOrder => {
            let d = r.uniform(1, DISTRICTS);
            let c = r.customer_id(s.customers);
            let n = r.uniform(5, 15);
            let rollback = r.percent(1);
            let mut lines: Vec<Line> = (0..n)
                .map(|i| {
                    let item = if rollback && i == n - 1 { s.items + 1 } else { r.item_id(s.items) };
                    let supply_w = if s.warehouses > 1 && r.percent(1) { other_w(r) } else { w };
                    Line { supply_w, item, quantity: r.uniform(1, 10) }
                })
                .collect();
            lines.sort();
            Input::NewOrder { d, c, lines }
        }
        TxnType::Payment => {
            let d = r.uniform(1, DISTRICTS);
            let (c_w, c_d) =
                if s.warehouses == 1 || r.percent(85) { (w, d) } else { (other_w(r), r.uniform(1, DISTRICTS)) };
            let customer = customer(r);
            Input::Payment { d, c_w, c_d, customer, cents: i64::from(r.uniform(100, 500_000)) }
        }
        TxnType::OrderStatus => {
            let d = r.uniform(1, DISTRICTS);
            Input::OrderStatus { d, customer: customer(r) }
        }
        TxnType::Delivery => Input::Delivery { carrier: r.uniform(1, 10) },
        TxnType::StockLevel => Input::StockLevel { threshold: r.uniform(10, 20) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(w: u32, s: &Scale, n: usize) -> Vec<Input> {
        let mut r = TRand::new(9);
        (0..n).map(|_| draw(&mut r, w, s)).collect()
    }

    #[test]
    fn the_mix_and_its_percentages_follow_the_specification() {
        let n = 100_000;
        let one = draws(1, &Scale::standard(1), n);
        let share = |t: TxnType| one.iter().filter(|i| i.kind() == t).count() as f64 * 100.0 / n as f64;
        for (t, want) in TxnType::ALL.into_iter().zip([45.0, 43.0, 4.0, 4.0, 4.0]) {
            assert!((share(t) - want).abs() < 0.7, "{t:?}: {} %", share(t));
        }
        let mut orders = 0;
        let mut rolled_back = 0;
        let (mut payments, mut by_name) = (0, 0);
        for i in &one {
            match i {
                Input::NewOrder { lines, .. } => {
                    orders += 1;
                    assert!((5..=15).contains(&lines.len()));
                    assert!(lines.iter().all(|l| l.supply_w == 1 && (1..=10).contains(&l.quantity)));
                    let unused = lines.iter().filter(|l| l.item > 100_000).count();
                    assert!(unused <= 1 && (unused == 0 || lines.last().is_some_and(|l| l.item == 100_001)));
                    rolled_back += unused;
                }
                Input::Payment { c_w, customer, cents, .. } => {
                    payments += 1;
                    assert_eq!(*c_w, 1, "one warehouse: every payment is local");
                    assert!((100..=500_000).contains(cents));
                    by_name += usize::from(matches!(customer, CustomerRef::Last(_)));
                }
                _ => {}
            }
        }
        let pct = |a: usize, b: usize| a as f64 * 100.0 / b as f64;
        assert!((pct(rolled_back, orders) - 1.0).abs() < 0.3, "rollbacks {}", pct(rolled_back, orders));
        assert!((pct(by_name, payments) - 60.0).abs() < 1.5, "by name {}", pct(by_name, payments));
    }

    #[test]
    fn remote_warehouses_appear_only_with_several_warehouses() {
        let n = 50_000;
        let (mut lines, mut remote_lines, mut payments, mut remote_payments) = (0, 0, 0, 0);
        for i in draws(2, &Scale::standard(3), n) {
            match i {
                Input::NewOrder { lines: ls, .. } => {
                    lines += ls.len();
                    remote_lines += ls.iter().filter(|l| l.supply_w != 2).count();
                    assert!(ls.iter().all(|l| (1..=3).contains(&l.supply_w)));
                }
                Input::Payment { c_w, .. } => {
                    payments += 1;
                    remote_payments += usize::from(c_w != 2);
                    assert!((1..=3).contains(&c_w));
                }
                _ => {}
            }
        }
        let pct = |a: usize, b: usize| a as f64 * 100.0 / b as f64;
        assert!((pct(remote_lines, lines) - 1.0).abs() < 0.3, "remote lines {}", pct(remote_lines, lines));
        assert!(
            (pct(remote_payments, payments) - 15.0).abs() < 1.5,
            "remote payments {}",
            pct(remote_payments, payments)
        );
    }
}
