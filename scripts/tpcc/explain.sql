-- TPC-C's statements as Percona-Lab/sysbench-tpcc's tpcc_run.lua sends them
-- (table set 1, warehouse 1, district 3, fixed ids), for EXPLAIN.
-- scripts/tpcc/explain.sh runs each with EXPLAIN and EXPLAIN FORMAT=TREE.
SELECT c_discount, c_last, c_credit, w_tax FROM customer1, warehouse1 WHERE w_id = 1 AND c_w_id = w_id AND c_d_id = 3 AND c_id = 1234;
SELECT d_next_o_id, d_tax FROM district1 WHERE d_w_id = 1 AND d_id = 3 FOR UPDATE;
UPDATE district1 SET d_next_o_id = 3002 WHERE d_id = 3 AND d_w_id = 1;
SELECT i_price, i_name, i_data FROM item1 WHERE i_id = 4711;
SELECT s_quantity, s_data, s_dist_03 s_dist FROM stock1 WHERE s_i_id = 4711 AND s_w_id = 1 FOR UPDATE;
UPDATE stock1 SET s_quantity = 40 WHERE s_i_id = 4711 AND s_w_id = 1;
UPDATE warehouse1 SET w_ytd = w_ytd + 10.5 WHERE w_id = 1;
SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse1 WHERE w_id = 1;
UPDATE district1 SET d_ytd = d_ytd + 10.5 WHERE d_w_id = 1 AND d_id = 3;
SELECT count(c_id) namecnt FROM customer1 WHERE c_w_id = 1 AND c_d_id = 3 AND c_last = 'BARBARBAR';
SELECT c_id FROM customer1 WHERE c_w_id = 1 AND c_d_id = 3 AND c_last = 'BARBARBAR' ORDER BY c_first;
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_since FROM customer1 WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 1234 FOR UPDATE;
SELECT c_balance, c_first, c_middle, c_id FROM customer1 WHERE c_w_id = 1 AND c_d_id = 3 AND c_last = 'BARBARBAR' ORDER BY c_first;
SELECT o_id, o_entry_d, COALESCE(o_carrier_id,0) FROM orders1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_c_id = 1234 AND o_id = (SELECT MAX(o_id) FROM orders1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_c_id = 1234);
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line1 WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = 2500;
SELECT no_o_id FROM new_orders1 WHERE no_d_id = 3 AND no_w_id = 1 ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE;
DELETE FROM new_orders1 WHERE no_o_id = 2101 AND no_d_id = 3 AND no_w_id = 1;
SELECT o_c_id FROM orders1 WHERE o_id = 2101 AND o_d_id = 3 AND o_w_id = 1;
UPDATE orders1 SET o_carrier_id = 7 WHERE o_id = 2101 AND o_d_id = 3 AND o_w_id = 1;
UPDATE order_line1 SET ol_delivery_d = NOW() WHERE ol_o_id = 2101 AND ol_d_id = 3 AND ol_w_id = 1;
SELECT SUM(ol_amount) sm FROM order_line1 WHERE ol_o_id = 2101 AND ol_d_id = 3 AND ol_w_id = 1;
UPDATE customer1 SET c_balance = c_balance + 10.5, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_id = 1234 AND c_d_id = 3 AND c_w_id = 1;
SELECT d_next_o_id FROM district1 WHERE d_id = 3 AND d_w_id = 1;
SELECT COUNT(DISTINCT (s_i_id)) FROM order_line1, stock1 WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id < 3001 AND ol_o_id >= 2981 AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 15;
SELECT DISTINCT ol_i_id FROM order_line1 WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id < 3001 AND ol_o_id >= 2981;
SELECT count(*) FROM stock1 WHERE s_w_id = 1 AND s_i_id = 4711 AND s_quantity < 15;
