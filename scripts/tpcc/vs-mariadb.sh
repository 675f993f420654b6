#!/usr/bin/env bash
# sysbench-tpcc against quire and MariaDB side by side, same settings:
# doublewrite on, redo synced at every commit, O_DIRECT, foreign keys on
# (sysbench-tpcc's default), one buffer pool larger than the data and one
# a quarter of it.
#
# Usage: scripts/tpcc/vs-mariadb.sh OUTDIR
# Env:   TPCC=/path/to/sysbench-tpcc (a checkout of Percona-Lab/sysbench-tpcc;
#             never committed here; `fetch` it or clone it)
#        SCALE=4 (warehouses)  TIME=60  THREADS="4 16 64"
#        BIG_BP=2G  SMALL_BP=   (default: a quarter of quire's data size
#                                after the load, rounded up to 8 MiB)
#        QUIRE=target/release/quire
#        REUSE=1     keep the data a previous run left in OUTDIR (no prepare;
#                    the tables carry that run's orders, so not a fresh load)
# Both servers are loaded once (prepare --threads=SCALE), then for each
# buffer pool size both are restarted with it and every point runs on
# quire, then on MariaDB, one after the other (the idle one does nothing:
# each is given 20 s after its restart and load before the first point).
# The table shows TPS, p95 latency (ms) and errors sysbench-tpcc ignored
# and retried (deadlocks 1213, lock wait timeouts 1205) per server.
# Every sysbench output stays under OUTDIR.
set -euo pipefail
source "$(dirname "$(realpath "$0")")/../lib/server.sh"
out=$(realpath -m "${1:?usage: vs-mariadb.sh OUTDIR}")
here=$(dirname "$(realpath "$0")")
root=$(dirname "$(dirname "$here")")
anchors=${ANCHORS:-$root/../shared/anchors}
TPCC=${TPCC:?set TPCC to a checkout of Percona-Lab/sysbench-tpcc}
SCALE=${SCALE:-4} TIME=${TIME:-60} THREADS=${THREADS:-"4 16 64"}
BIG_BP=${BIG_BP:-2G} SMALL_BP=${SMALL_BP:-}
QUIRE=${QUIRE:-$root/target/release/quire}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench mariadb-client mariadb-server >/dev/null; }

qpid=
cleanup() {
  mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown 2>/dev/null || true
  if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; fi
}
trap cleanup EXIT

start_quire() { # BUFFER_POOL
  quire_cnf "$out/quire.cnf" "$out/quire/data" 3308 "$1"
  mariadb_matched_flushing "$out/quire.cnf"
  "$QUIRE" serve --root-password=root --defaults-file="$out/quire.cnf" >>"$out/quire.log" 2>&1 &
  qpid=$!
  wait_sql 3308 root 120 || exit 1
}
stop_quire() { kill "$qpid"; wait "$qpid" 2>/dev/null || true; qpid=; }
start_mariadb() { # BUFFER_POOL
  BP=$1 "$anchors/start-mariadb.sh" "$out/mariadb" 3307 >>"$out/mariadb.start" 2>&1
}
stop_mariadb() {
  mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown
  while pgrep -f "mariadbd --defaults-file=$out/mariadb/my.cnf" >/dev/null; do sleep 1; done
}

tp() { # PORT THREADS COMMAND [ARGS]
  (cd "$TPCC" && sysbench ./tpcc.lua --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" \
    --mysql-user=sbtest --mysql-password=sbtest --mysql-db=tpcc --scale="$SCALE" --tables=1 \
    --threads="$2" "${@:3}")
}

if [ "${REUSE:-0}" = 1 ] && [ -d "$out/quire/data" ] && [ -d "$out/mariadb/data" ]; then
  : >"$out/summary.txt"
  start_quire "$BIG_BP"
  start_mariadb "$BIG_BP"
else
  rm -rf "${out:?}/quire" "${out:?}/mariadb" "$out/summary.txt"
  start_quire "$BIG_BP"
  mariadb -h127.0.0.1 -P3308 -uroot -proot -e "CREATE DATABASE tpcc; CREATE USER sbtest IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO sbtest"
  start_mariadb "$BIG_BP"
  mariadb -S "$out/mariadb/data/mysqld.sock" -uroot -e "CREATE DATABASE tpcc"
  for port in 3308 3307; do
    s=$(date +%s)
    tp $port "$SCALE" prepare >"$out/prepare-$port.txt" 2>&1
    echo "prepare on port $port: $(($(date +%s) - s)) s" | tee -a "$out/summary.txt"
  done
fi
qbytes=$(du -sb "$out/quire/data" | cut -f1)
mbytes=$(du -sb "$out/mariadb/data" | cut -f1)
echo "data on disk after the load: quire $((qbytes >> 20)) MiB, MariaDB $((mbytes >> 20)) MiB" | tee -a "$out/summary.txt"
[ -n "$SMALL_BP" ] || SMALL_BP=$(( ((qbytes / 4) >> 23 << 3) + 8 ))M

printf '| buffer pool | threads | quire TPS | MariaDB TPS | ratio | quire p95 ms | MariaDB p95 ms | quire errors/s | MariaDB errors/s |\n|---|---|---|---|---|---|---|---|---|\n' >"$out/table.md"
first=1
for bp in "$BIG_BP" "$SMALL_BP"; do
  if [ $first = 0 ]; then
    stop_quire; start_quire "$bp"
    stop_mariadb; start_mariadb "$bp"
  fi
  first=0
  sleep 20
  for t in $THREADS; do
    for port in 3308 3307; do
      tp $port "$t" --time="$TIME" --report-interval=10 run >"$out/run-$bp-$t-$port.txt" 2>&1 || true
    done
    tps() { grep -oP 'transactions:.*\(\K[0-9.]+' "$out/run-$bp-$t-$1.txt" || echo 0; }
    p95() { grep -oP '95th percentile:\s+\K[0-9.]+' "$out/run-$bp-$t-$1.txt" || echo -; }
    errs() { grep -oP 'ignored errors:.*\(\K[0-9.]+' "$out/run-$bp-$t-$1.txt" || echo -; }
    q=$(tps 3308) m=$(tps 3307)
    ratio=$(awk -v q="$q" -v m="$m" 'BEGIN { if (m > 0) printf "%.2f", q / m; else print "-" }')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$bp" "$t" "$q" "$m" "$ratio" \
      "$(p95 3308)" "$(p95 3307)" "$(errs 3308)" "$(errs 3307)" | tee -a "$out/table.md"
  done
done
for port in 3308 3307; do tp $port 1 check >"$out/check-$port.txt" 2>&1 || true; done
echo "checks: quire $(grep -c PASSED "$out/check-3308.txt" || true) passed, $(grep -c FAILED "$out/check-3308.txt" || true) failed;" \
  "MariaDB $(grep -c PASSED "$out/check-3307.txt" || true) passed, $(grep -c FAILED "$out/check-3307.txt" || true) failed" | tee -a "$out/summary.txt"
cat "$out/summary.txt" "$out/table.md"
