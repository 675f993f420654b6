#!/usr/bin/env bash
# Peak server memory and wall time of whole-table queries (aggregates,
# GROUP BY, top-N, a full sort) on two quire builds, one after the other,
# over the same sysbench table: what a query holds while it runs.
#
# Usage: scripts/query-memory.sh OLD_BINARY NEW_BINARY
# Env:   ROWS=500000 BP=256M PORT=3331
# Prints one line per (build, query): wall seconds and the peak growth
# of the server's VmRSS over its size before the query (sampled every
# 20 ms).
set -euo pipefail
ROWS=${ROWS:-500000} BP=${BP:-256M} PORT=${PORT:-3331}
QUERIES=(
  "SELECT COUNT(*), MAX(c), SUM(k) FROM sbtest1"
  "SELECT k % 100, COUNT(*), MIN(pad) FROM sbtest1 GROUP BY k % 100"
  "SELECT id, c FROM sbtest1 ORDER BY c DESC LIMIT 10"
  "SELECT DISTINCT k % 1000 FROM sbtest1"
  "SELECT id, c, pad FROM sbtest1 ORDER BY c"
)
run_build() {
  local name=$1 bin=$2 dir
  dir=$(mktemp -d /tmp/qmem.XXXX)
  "$bin" serve --datadir="$dir" --port="$PORT" --root-password= \
    --innodb-buffer-pool-size="$BP" --innodb-flush-log-at-trx-commit=2 >"$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do mariadb -h127.0.0.1 -P"$PORT" -uroot -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
  mariadb -h127.0.0.1 -P"$PORT" -uroot -e "CREATE DATABASE sbtest"
  sysbench oltp_read_only --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root \
    --tables=1 --table-size="$ROWS" prepare >/dev/null
  # Warm the buffer pool and the allocator once.
  mariadb -h127.0.0.1 -P"$PORT" -uroot sbtest -e "SELECT COUNT(*) FROM sbtest1 WHERE c <> ''" >/dev/null
  for q in "${QUERIES[@]}"; do
    local base peak start end
    base=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
    peak=$base
    start=$(date +%s.%N)
    mariadb -h127.0.0.1 -P"$PORT" -uroot sbtest --quick -e "$q" >/dev/null &
    local qpid=$!
    while kill -0 $qpid 2>/dev/null; do
      local now; now=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
      [ "$now" -gt "$peak" ] && peak=$now
      sleep 0.02
    done
    wait $qpid
    end=$(date +%s.%N)
    printf '%-5s %7.2f s  peak +%5d MiB  %s\n' "$name" "$(echo "$end - $start" | bc)" $(((peak - base) / 1024)) "$q"
  done
  kill $pid; wait $pid 2>/dev/null || true
  rm -rf "$dir"
}
run_build old "$1"
run_build new "$2"
