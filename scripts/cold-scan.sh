#!/usr/bin/env bash
# Cold full scans of sysbench's tables on a quire data directory: the
# server is started on DATADIR's config (a cold buffer pool), scans
# sbtest1..sbtestN with SELECT SUM(k), then the last table twice more,
# and prints the wall time and the server's CPU time of each series.
# Load the data first (sysbench prepare; scripts/sysbench-quire-vs-quire.sh
# leaves its data directories and .cnf files in its OUTDIR).
#
# Usage: scripts/cold-scan.sh QUIRE_BINARY MY_CNF PORT [TABLES=4]
# The server must accept user sbtest / password sbtest on 127.0.0.1:PORT.
set -euo pipefail
bin=${1:?binary} cnf=${2:?my.cnf} port=${3:?port} tables=${4:-4}
"$bin" serve --defaults-file="$cnf" >"/tmp/cold-scan.$port.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
q() { mariadb -h127.0.0.1 -P"$port" -usbtest -psbtest -N -e "$1" sbtest; }
for _ in $(seq 120); do q "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
series() {
  local c0 s e c1
  c0=$(cpu); s=$(date +%s.%N)
  for t in "$@"; do q "SELECT SUM(k) FROM sbtest$t" >/dev/null; done
  e=$(date +%s.%N); c1=$(cpu)
  awk -v w="$(echo "$e - $s" | bc)" -v c="$c0" -v d="$c1" 'BEGIN { printf "%.2f s wall, %.2f s server CPU", w, (d - c) / 100 }'
}
echo "cold scans of $tables tables: $(series $(seq "$tables")); sbtest$tables twice more: $(series "$tables" "$tables")"
q "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read%'" | tr '\n\t' '  '
echo
