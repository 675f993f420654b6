//! The nine TPC-C tables (clause 1.3) with sysbench-tpcc's column types
//! and secondary indexes, and its foreign keys (on by default), under the
//! standard names (`warehouse`, `district`, ...: they do not collide with
//! sysbench-tpcc's `warehouse1` ...).
//!
//! The foreign keys are declared in CREATE TABLE and the loader runs with
//! `foreign_key_checks=0` (as mysqldump loads); [`Scale`] is the size of
//! the initial population (clause 4.3.3.1) and may be shrunk below the
//! standard for quick tests.

/// The size of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    pub warehouses: u32,
    /// Rows of `item` (standard: 100 000).
    pub items: u32,
    /// Customers per district, and orders per district (standard: 3 000;
    /// the last 30% of the orders are undelivered new orders).
    pub customers: u32,
}

/// Districts per warehouse.
pub const DISTRICTS: u32 = 10;

impl Scale {
    /// The standard population of `warehouses` warehouses.
    pub fn standard(warehouses: u32) -> Scale {
        Scale { warehouses, items: 100_000, customers: 3_000 }
    }

    /// Orders per district at load.
    pub fn orders(&self) -> u32 {
        self.customers
    }

    /// The first undelivered order of a district at load (2101).
    pub fn first_new_order(&self) -> u32 {
        self.orders() - self.orders() * 3 / 10 + 1
    }

    /// Why this population cannot be loaded, if it cannot.
    pub fn invalid(&self) -> Option<&'static str> {
        (self.warehouses == 0 || self.items < 100 || self.customers < 10)
            .then_some("TPC-C needs at least 1 warehouse, 100 items and 10 customers per district")
    }

    /// Whether this is the specification's population.
    pub fn is_standard(&self) -> bool {
        self.items == 100_000 && self.customers == 3_000
    }
}

/// Tables in the order they are created (parents first) and dropped in
/// reverse.
pub const TABLES: [&str; 9] =
    ["warehouse", "district", "customer", "history", "orders", "new_orders", "item", "stock", "order_line"];

/// The CREATE TABLE statements, `fk` adding the foreign keys.
pub fn create_statements(fk: bool) -> Vec<String> {
    let f = |s: &str| if fk { format!(",\n  {s}") } else { String::new() };
    vec![
        "CREATE TABLE warehouse (\n  w_id SMALLINT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), \
         w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,2), \
         w_ytd DECIMAL(12,2),\n  PRIMARY KEY (w_id)\n) ENGINE=InnoDB"
            .to_string(),
        format!(
            "CREATE TABLE district (\n  d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, d_name VARCHAR(10), \
             d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), \
             d_tax DECIMAL(4,2), d_ytd DECIMAL(12,2), d_next_o_id INT,\n  PRIMARY KEY (d_w_id, d_id){}\n) \
             ENGINE=InnoDB",
            f("CONSTRAINT fk_district_1 FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id)")
        ),
        format!(
            "CREATE TABLE customer (\n  c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id SMALLINT NOT NULL, \
             c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), \
             c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), \
             c_since DATETIME, c_credit CHAR(2), c_credit_lim BIGINT, c_discount DECIMAL(4,2), \
             c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt SMALLINT, \
             c_delivery_cnt SMALLINT, c_data TEXT,\n  PRIMARY KEY (c_w_id, c_d_id, c_id),\n  \
             KEY idx_customer (c_w_id, c_d_id, c_last, c_first){}\n) ENGINE=InnoDB",
            f("CONSTRAINT fk_customer_1 FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id)")
        ),
        format!(
            "CREATE TABLE history (\n  h_c_id INT, h_c_d_id TINYINT, h_c_w_id SMALLINT, h_d_id TINYINT, \
             h_w_id SMALLINT, h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24),\n  \
             KEY fkey_history_1 (h_c_w_id, h_c_d_id, h_c_id),\n  KEY fkey_history_2 (h_w_id, h_d_id){}{}\n) \
             ENGINE=InnoDB",
            f("CONSTRAINT fk_history_1 FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) \
               REFERENCES customer (c_w_id, c_d_id, c_id)"),
            f("CONSTRAINT fk_history_2 FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id)")
        ),
        format!(
            "CREATE TABLE orders (\n  o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id SMALLINT NOT NULL, \
             o_c_id INT, o_entry_d DATETIME, o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT,\n  \
             PRIMARY KEY (o_w_id, o_d_id, o_id),\n  KEY idx_orders (o_w_id, o_d_id, o_c_id, o_id){}\n) \
             ENGINE=InnoDB",
            f("CONSTRAINT fk_orders_1 FOREIGN KEY (o_w_id, o_d_id, o_c_id) \
               REFERENCES customer (c_w_id, c_d_id, c_id)")
        ),
        format!(
            "CREATE TABLE new_orders (\n  no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, \
             no_w_id SMALLINT NOT NULL,\n  PRIMARY KEY (no_w_id, no_d_id, no_o_id){}\n) ENGINE=InnoDB",
            f("CONSTRAINT fk_new_orders_1 FOREIGN KEY (no_w_id, no_d_id, no_o_id) \
               REFERENCES orders (o_w_id, o_d_id, o_id)")
        ),
        "CREATE TABLE item (\n  i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), \
         i_data VARCHAR(50),\n  PRIMARY KEY (i_id)\n) ENGINE=InnoDB"
            .to_string(),
        format!(
            "CREATE TABLE stock (\n  s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, s_quantity SMALLINT, \
             s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), \
             s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), \
             s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0), s_order_cnt SMALLINT, \
             s_remote_cnt SMALLINT, s_data VARCHAR(50),\n  PRIMARY KEY (s_w_id, s_i_id),\n  \
             KEY fkey_stock_2 (s_i_id){}{}\n) ENGINE=InnoDB",
            f("CONSTRAINT fk_stock_1 FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id)"),
            f("CONSTRAINT fk_stock_2 FOREIGN KEY (s_i_id) REFERENCES item (i_id)")
        ),
        format!(
            "CREATE TABLE order_line (\n  ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, \
             ol_w_id SMALLINT NOT NULL, ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id SMALLINT, \
             ol_delivery_d DATETIME, ol_quantity TINYINT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),\n  \
             PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number),\n  \
             KEY fkey_order_line_2 (ol_supply_w_id, ol_i_id){}{}\n) ENGINE=InnoDB",
            f("CONSTRAINT fk_order_line_1 FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) \
               REFERENCES orders (o_w_id, o_d_id, o_id)"),
            f("CONSTRAINT fk_order_line_2 FOREIGN KEY (ol_supply_w_id, ol_i_id) \
               REFERENCES stock (s_w_id, s_i_id)")
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_its_statement_in_order() {
        let s = create_statements(true);
        assert_eq!(s.len(), TABLES.len());
        for (sql, t) in s.iter().zip(TABLES) {
            assert!(sql.starts_with(&format!("CREATE TABLE {t} (")), "{sql}");
        }
        assert!(!create_statements(false).iter().any(|s| s.contains("FOREIGN KEY")));
        assert_eq!(Scale::standard(1).first_new_order(), 2101);
    }
}
