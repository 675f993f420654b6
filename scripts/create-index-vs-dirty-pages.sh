#!/usr/bin/env bash
# Seed 003's experiment: the time to CREATE INDEX on an empty table, with
# few and with many dirty pages of *other* tables in the buffer pool. A
# server that flushes by scanning every dirty page of every instance takes
# longer the more dirty pages there are; one that visits only the table's
# own pages does not. quire and MariaDB, one after the other, same settings.
#
# Usage: scripts/create-index-vs-dirty-pages.sh OUTDIR
# Env:   TABLES=4 ROWS=100000 BP=1G DIRTY_TIME=20 REPEAT=5
#        QUIRE=target/release/quire
# Prints a markdown table: dirty pages before the statement and the
# median time of REPEAT CREATE INDEX statements (each on a new empty table).
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: create-index-vs-dirty-pages.sh OUTDIR}")
here=$(dirname "$(realpath "$0")")
root=$(dirname "$here")
anchors=${ANCHORS:-$root/../shared/anchors}
TABLES=${TABLES:-4} ROWS=${ROWS:-100000} BP=${BP:-1G} DIRTY_TIME=${DIRTY_TIME:-20} REPEAT=${REPEAT:-5}
QUIRE=${QUIRE:-$root/target/release/quire}
mkdir -p "$out"
qpid=
cleanup() {
  mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown 2>/dev/null || true
  if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; fi
}
trap cleanup EXIT

sql() { mariadb -h127.0.0.1 -P"$1" -usbtest -psbtest sbtest -N -e "$2"; }
dirty() { sql "$1" "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | awk '{print $2}'; }
# create_index_ms PORT TAG -> median milliseconds of REPEAT statements
create_index_ms() {
  local times=()
  for i in $(seq "$REPEAT"); do
    sql "$1" "CREATE TABLE e_$2_$i (id INT PRIMARY KEY, k INT)"
    local t0 t1
    t0=$(date +%s%N)
    sql "$1" "CREATE INDEX k_$i ON e_$2_$i (k)"
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }

declare -A res
for port in 3307 3308; do
  if [ "$port" = 3307 ]; then
    rm -rf "${out:?}/mariadb"
    BP=$BP "$anchors/start-mariadb.sh" "$out/mariadb" 3307 >"$out/mariadb.start" 2>&1
  else
    rm -rf "${out:?}/quire"
    quire_cnf "$out/quire.cnf" "$out/quire/data" 3308 "$BP"
    "$QUIRE" serve --root-password=root --defaults-file="$out/quire.cnf" >"$out/quire.log" 2>&1 &
    qpid=$!
    wait_sql 3308 root
    sbtest_user 3308
  fi
  sb "$port" --threads=4 oltp_read_write prepare >"$out/prepare.$port" 2>&1
  # Few dirty pages: flush everything first (the pacing at full speed).
  sql "$port" "SET GLOBAL innodb_max_dirty_pages_pct=0" || true
  for _ in $(seq 60); do [ "$(dirty "$port")" -lt 50 ] && break; sleep 1; done
  res[$port.clean.dirty]=$(dirty "$port")
  res[$port.clean.ms]=$(create_index_ms "$port" clean)
  # Many dirty pages: slow the pacing down and dirty the sysbench tables.
  sql "$port" "SET GLOBAL innodb_max_dirty_pages_pct=90"
  sql "$port" "SET GLOBAL innodb_io_capacity=100"
  sql "$port" "SET GLOBAL innodb_max_dirty_pages_pct_lwm=90" || true
  sql "$port" "SET GLOBAL innodb_adaptive_flushing=OFF" || true
  sb "$port" --threads=8 --time="$DIRTY_TIME" oltp_update_non_index run >"$out/dirty.$port" 2>&1
  res[$port.dirty.dirty]=$(dirty "$port")
  res[$port.dirty.ms]=$(create_index_ms "$port" dirty)
  if [ "$port" = 3307 ]; then
    mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown 2>/dev/null || true
  else
    kill "$qpid"; wait "$qpid" 2>/dev/null || true; qpid=
  fi
done

echo "| server | dirty pages (other tables) | CREATE INDEX on an empty table, median of $REPEAT (ms) |"
echo "|---|---:|---:|"
for port in 3307 3308; do
  name=$([ "$port" = 3307 ] && echo MariaDB || echo quire)
  for s in clean dirty; do
    echo "| $name | ${res[$port.$s.dirty]} | ${res[$port.$s.ms]} |"
  done
done
