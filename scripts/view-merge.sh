#!/usr/bin/env bash
# Queries through a view and a derived table (issue 15, items 3 and 6):
# two quire builds and MariaDB, one after the other, over one sysbench
# table of ROWS rows with `CREATE VIEW v AS SELECT * FROM sbtest1`.
#
# Usage: scripts/view-merge.sh OLD_QUIRE NEW_QUIRE
# Env:   ROWS=200000 N=200 PORT=3660 MPORT=3661
#        START_MARIADB=/work/shared/anchors/start-mariadb.sh
# Each query kind runs N times (N/10 for ranges and joins) with varying
# constants through one client connection; prints the mean ms per query.
#   point:   SELECT * FROM v WHERE id = ?
#   range:   SELECT COUNT(*), SUM(k) FROM v WHERE id BETWEEN ? AND ? + 99
#   join:    SELECT COUNT(*) FROM sbtest1 s JOIN v ON v.id = s.k WHERE s.id BETWEEN ? AND ? + 99
#   derived: SELECT c FROM (SELECT id, c FROM sbtest1) d WHERE d.id = ?
set -euo pipefail
ROWS=${ROWS:-200000} N=${N:-200} PORT=${PORT:-3660} MPORT=${MPORT:-3661}
NR=$((N / 10))
START_MARIADB=${START_MARIADB:-/work/shared/anchors/start-mariadb.sh}

queries() { # KIND COUNT
  local kind=$1 n=$2 i x
  for i in $(seq "$n"); do
    x=$(( (i * 7919) % (ROWS - 200) + 1 ))
    case $kind in
      point) echo "SELECT * FROM v WHERE id = $x;" ;;
      range) echo "SELECT COUNT(*), SUM(k) FROM v WHERE id BETWEEN $x AND $x + 99;" ;;
      join) echo "SELECT COUNT(*) FROM sbtest1 s JOIN v ON v.id = s.k WHERE s.id BETWEEN $x AND $x + 99;" ;;
      derived) echo "SELECT c FROM (SELECT id, c FROM sbtest1) d WHERE d.id = $x;" ;;
    esac
  done
}

measure() { # NAME CLIENT_ARGS...
  local name=$1; shift
  local kind n start end
  for kind in point range join derived; do
    n=$N; [ "$kind" = range ] || [ "$kind" = join ] && n=$NR
    queries "$kind" "$n" >/tmp/view-merge.sql
    start=$(date +%s%N)
    mariadb "$@" sbtest </tmp/view-merge.sql >/dev/null
    end=$(date +%s%N)
    printf '%-8s %-8s %10.3f ms/query  (%d queries)\n' "$name" "$kind" \
      "$(echo "($end - $start) / 1000000 / $n" | bc -l)" "$n"
  done
}

prepare() { # CLIENT_ARGS...
  sysbench oltp_read_only "$@" --tables=1 --table-size="$ROWS" prepare >/dev/null
}

run_quire() { # NAME BINARY
  local name=$1 bin=$2 dir
  dir=$(mktemp -d /tmp/dmerge-bench.XXXX)
  "$bin" serve --datadir="$dir" --port="$PORT" --root-password= \
    --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2 >"$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do mariadb -h127.0.0.1 -P"$PORT" -uroot -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
  mariadb -h127.0.0.1 -P"$PORT" -uroot -e "CREATE DATABASE sbtest"
  prepare --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root
  mariadb -h127.0.0.1 -P"$PORT" -uroot sbtest -e "CREATE VIEW v AS SELECT * FROM sbtest1; SELECT COUNT(*) FROM sbtest1" >/dev/null
  measure "$name" -h127.0.0.1 -P"$PORT" -uroot
  kill $pid; wait $pid 2>/dev/null || true
  rm -rf "$dir"
}

run_mariadb() {
  local dir
  dir=$(mktemp -d /tmp/dmerge-maria.XXXX)
  BP=512M bash "$START_MARIADB" "$dir" "$MPORT" >/dev/null
  local sock="$dir/data/mysqld.sock"
  prepare --mysql-socket="$sock" --mysql-user=root
  mariadb -S "$sock" -uroot sbtest -e "CREATE VIEW v AS SELECT * FROM sbtest1; SELECT COUNT(*) FROM sbtest1" >/dev/null
  measure mariadb -S "$sock" -uroot
  mariadb-admin -S "$sock" -uroot shutdown
  rm -rf "$dir"
}

run_quire old "$1"
run_quire new "$2"
run_mariadb
