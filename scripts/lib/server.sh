# Shared by the benchmark scripts (source it): the durable quire
# configuration every side-by-side run uses, and waiting for a server.

# quire_cnf FILE DATADIR PORT BUFFER_POOL [FLUSH_LOG_AT_TRX_COMMIT]
# Writes a my.cnf with the settings the comparisons hold equal: redo synced
# at every commit (unless told otherwise), doublewrite on, O_DIRECT, a 1 GiB
# redo log, room for 5000 connections. Callers append their own lines.
quire_cnf() {
  cat >"$1" <<CNF
[mysqld]
datadir=$2
port=$3
bind-address=127.0.0.1
max_connections=5000
max_prepared_stmt_count=512000
innodb_buffer_pool_size=$4
innodb_redo_log_capacity=1G
innodb_doublewrite=1
innodb_flush_log_at_trx_commit=${5:-1}
innodb_flush_method=O_DIRECT
CNF
}

# The settings that make quire's background flushing comparable with the
# MariaDB that ../shared/anchors/start-mariadb.sh starts: append to a cnf.
mariadb_matched_flushing() {
  cat >>"$1" <<CNF
innodb_io_capacity=10000
innodb_io_capacity_max=20000
innodb_max_dirty_pages_pct_lwm=0
innodb_flush_neighbors=0
innodb_adaptive_hash_index=0
performance_schema=OFF
CNF
}

# wait_sql PORT PASSWORD [SECONDS]: until the server answers a query;
# fails after SECONDS (60).
wait_sql() {
  for _ in $(seq "${3:-60}"); do
    mariadb -h127.0.0.1 -P"$1" -uroot -p"$2" -e 'select 1' >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "the server on port $1 did not answer in ${3:-60} s" >&2
  return 1
}

# sbtest_user PORT: the database and user sysbench connects with.
sbtest_user() {
  mariadb -h127.0.0.1 -P"$1" -uroot -proot \
    -e "CREATE DATABASE sbtest; CREATE USER sbtest IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO sbtest"
}

# sysbench_summary FILE TEST: "throughput stalled_seconds lowest_second p95"
# of a sysbench run made with --report-interval=1 (QPS for
# oltp_point_select, TPS otherwise; stalled: one-second reports with none).
sysbench_summary() {
  awk -v qps="$([ "$2" = oltp_point_select ] && echo 1 || echo 0)" '
    /^\[ *[0-9]+s \]/ {
      for (i = 1; i <= NF; i++) {
        if ($i == "tps:") t = $(i + 1) + 0
        if ($i == "qps:") q = $(i + 1) + 0
      }
      v = qps ? q : t; n++
      if (v == 0) z++
      if (n == 1 || v < lo) lo = v
    }
    /95th percentile:/ { p95 = $3 }
    /transactions:/ { gsub(/\(/, "", $3); tps = $3 }
    /queries:/ { gsub(/\(/, "", $3); qs = $3 }
    END { printf "%s %d %d %s\n", (qps ? qs : tps) + 0, z + 0, lo + 0, p95 + 0 }' "$1"
}
