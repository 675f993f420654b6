#!/usr/bin/env bash
# quire and MariaDB side by side under the real sysbench, same settings:
# buffer pool, redo synced at every commit, doublewrite on, O_DIRECT.
#
# Usage: scripts/sysbench-vs-mariadb.sh OUTDIR
# Env:   TABLES=4 ROWS=100000 BP=512M TIME=10 THREADS="1 16 64 256"
#        TESTS="oltp_point_select oltp_read_only oltp_read_write"
#        QUIRE=target/release/quire
# Prints a markdown table (TPS, or QPS for point_select) with the ratio
# quire / MariaDB, and keeps every sysbench output under OUTDIR.
set -euo pipefail
out=$(realpath -m "${1:?usage: sysbench-vs-mariadb.sh OUTDIR}")
here=$(dirname "$(realpath "$0")")
root=$(dirname "$here")
anchors=${ANCHORS:-$root/../shared/anchors}
TABLES=${TABLES:-4} ROWS=${ROWS:-100000} BP=${BP:-512M} TIME=${TIME:-10}
THREADS=${THREADS:-"1 16 64 256"}
TESTS=${TESTS:-"oltp_point_select oltp_read_only oltp_read_write"}
QUIRE=${QUIRE:-$root/target/release/quire}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench mariadb-client mariadb-server >/dev/null; }

BP=$BP "$anchors/start-mariadb.sh" "$out/mariadb" 3307 >"$out/mariadb.start" 2>&1
trap 'mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown 2>/dev/null || true; kill $qpid 2>/dev/null || true' EXIT

cat >"$out/quire.cnf" <<CNF
[mysqld]
datadir=$out/quire/data
port=3308
bind-address=127.0.0.1
max_connections=5000
max_prepared_stmt_count=512000
innodb_buffer_pool_size=$BP
innodb_redo_log_capacity=1G
innodb_doublewrite=1
innodb_flush_log_at_trx_commit=1
innodb_flush_method=O_DIRECT
innodb_io_capacity=10000
innodb_io_capacity_max=20000
innodb_flush_neighbors=0
innodb_adaptive_hash_index=0
performance_schema=OFF
CNF
rm -rf "$out/quire"
"$QUIRE" serve --root-password=root --defaults-file="$out/quire.cnf" >"$out/quire.log" 2>&1 &
qpid=$!
for _ in $(seq 60); do mariadb -h127.0.0.1 -P3308 -uroot -proot -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
mariadb -h127.0.0.1 -P3308 -uroot -proot -e "CREATE DATABASE sbtest; CREATE USER sbtest IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO sbtest"

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }
for port in 3307 3308; do
  start=$(date +%s)
  sb $port --threads=4 oltp_read_write prepare >"$out/prepare.$port" 2>&1
  echo "prepare on $port: $(( $(date +%s) - start )) s" >&2
done

echo "| test | threads | MariaDB | quire | quire / MariaDB |"
echo "|---|---:|---:|---:|---:|"
for t in $TESTS; do
  for n in $THREADS; do
    declare -A r=()
    for port in 3307 3308; do
      f="$out/$t.$n.$port"
      sb $port --threads="$n" --time="$TIME" "$t" run >"$f" 2>&1 || true
      if [ "$t" = oltp_point_select ]; then
        r[$port]=$(awk '/queries:/ {gsub(/\(/,"",$3); print $3}' "$f")
      else
        r[$port]=$(awk '/transactions:/ {gsub(/\(/,"",$3); print $3}' "$f")
      fi
      r[$port]=${r[$port]:-0}
    done
    ratio=$(awk -v a="${r[3308]}" -v b="${r[3307]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $t | $n | ${r[3307]} | ${r[3308]} | $ratio |"
  done
done
