#!/usr/bin/sysbench
-- Seed 002's kind of join workload over sysbench's tables (load them with
-- oltp_read_write's `prepare`, --tables >= 2). Each event runs two joins
-- as prepared statements:
--   by primary key:   ten rows of sbtest1 with the sbtest2 row of the same id
--   by secondary key: one row of sbtest1 with the sbtest2 rows of the same k
--                     (sbtest2's index k_2)
-- Usage: sysbench scripts/sysbench/oltp_join.lua --tables=2 ... run

require("oltp_common")

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   by_pk = con:prepare([[
      SELECT a.id, b.c FROM sbtest1 a JOIN sbtest2 b ON b.id = a.id
       WHERE a.id BETWEEN ? AND ?]])
   pk_lo = by_pk:bind_create(sysbench.sql.type.INT)
   pk_hi = by_pk:bind_create(sysbench.sql.type.INT)
   by_pk:bind_param(pk_lo, pk_hi)
   by_k = con:prepare([[
      SELECT a.id, b.id, b.pad FROM sbtest1 a JOIN sbtest2 b ON b.k = a.k
       WHERE a.id = ?]])
   k_id = by_k:bind_create(sysbench.sql.type.INT)
   by_k:bind_param(k_id)
end

function thread_done()
   by_pk:close()
   by_k:close()
   con:disconnect()
end

function event()
   local id = sysbench.rand.default(1, sysbench.opt.table_size - 9)
   pk_lo:set(id)
   pk_hi:set(id + 9)
   by_pk:execute()
   k_id:set(sysbench.rand.default(1, sysbench.opt.table_size))
   by_k:execute()
end
