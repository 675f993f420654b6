#!/usr/bin/env bash
# quire bench's built-in driver against the real sysbench, as load
# generators: is the driver at least as fast? Each point runs sysbench,
# then the driver (the order flips from point to point, so a drift in the
# machine's load falls on both alike), against
#   1. the null server (shared/anchors/nullsrv: canned answers, no work),
#      where the client is the bottleneck, and
#   2. a quire server in its own process (when QUIRE is given).
#
# Usage: scripts/driver-vs-sysbench.sh OUTDIR QUIRE_BINARY NULLSRV_BINARY
# Env:   TIME=10 THREADS="1 4 16 64 256" TESTS="oltp_point_select oltp_read_write"
#        TABLES=4 ROWS=20000 PORT_NULL=3499 PORT_QUIRE=3510
#        SERVERS="null quire"   which servers to measure
#        DRIVER_THREADS=0       the driver's worker threads (0: four per CPU)
# The binaries: cargo build --release (quire), and in a copy of
# shared/anchors/nullsrv, cargo build --release (nullsrv).
# The table (OUTDIR/README.md) gives TPS of each client, driver / sysbench,
# each client's CPU seconds (user + system) over the point (the driver's
# include quire bench's start and its report files), and the machine's
# 1-minute load average before the point (other work on a shared machine).
set -euo pipefail
out=$(realpath -m "${1:?usage: driver-vs-sysbench.sh OUTDIR QUIRE NULLSRV}")
quire=$(realpath "${2:?quire binary}")
nullsrv=$(realpath "${3:?nullsrv binary}")
TIME=${TIME:-10} THREADS=${THREADS:-"1 4 16 64 256"}
TESTS=${TESTS:-"oltp_point_select oltp_read_write"}
TABLES=${TABLES:-4} ROWS=${ROWS:-20000}
PNULL=${PORT_NULL:-3499} PQ=${PORT_QUIRE:-3510}
SERVERS=${SERVERS:-"null quire"}
DRIVER_THREADS=${DRIVER_THREADS:-0}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench >/dev/null; }
ulimit -n "$(ulimit -Hn)" || true

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

start_null() {
  "$nullsrv" --listen "127.0.0.1:$PNULL" >"$out/nullsrv.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do grep -q listening "$out/nullsrv.log" && break; sleep 0.1; done
}

start_quire() {
  cat >"$out/quire.cnf" <<CNF
[mysqld]
datadir=$out/quire/data
port=$PQ
bind-address=127.0.0.1
max_connections=5000
max_prepared_stmt_count=512000
innodb_buffer_pool_size=512M
innodb_flush_log_at_trx_commit=2
CNF
  rm -rf "${out:?}/quire"
  "$quire" serve --root-password=root --defaults-file="$out/quire.cnf" >"$out/quire.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 60); do (exec 3<>"/dev/tcp/127.0.0.1/$PQ") 2>/dev/null && break; sleep 1; done
  # Load once, as sysbench's prepare does; every point then reuses it.
  "$quire" bench --no-embedded --target "quire=mysql://root:root@127.0.0.1:$PQ/sbtest" \
    --tables "$TABLES" --table-size "$ROWS" --scenario concurrency --threads 1 --time 1 \
    --workload point_select --out "$out/load" >"$out/load.log" 2>&1
}

# sysbench PORT USER TEST THREADS FILE
run_sysbench() {
  /usr/bin/time -f '%U %S' -o "$5.time" sysbench "$3" --db-driver=mysql --mysql-host=127.0.0.1 \
    --mysql-port="$1" --mysql-user="$2" --mysql-password="$2" --mysql-db=sbtest \
    --mysql-ignore-errors=1213,1205 --tables="$TABLES" --table-size="$ROWS" \
    --threads="$4" --time="$TIME" --report-interval=0 run >"$5" 2>&1 || true
  awk '/transactions:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$5"
}

# driver PORT USER TEST THREADS DIR
run_driver() {
  /usr/bin/time -f '%U %S' -o "$5.time" "$quire" bench --no-embedded --skip-prepare \
    --target "s=mysql://$2:$2@127.0.0.1:$1/sbtest" --tables "$TABLES" --table-size "$ROWS" \
    --scenario concurrency --workload "${3#oltp_}" --threads "$4" --time "$TIME" \
    --driver-threads "$DRIVER_THREADS" --out "$5" >"$5.log" 2>&1 || true
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "tps") c = i } NR == 2 { print $c + 0 }' "$5/summary.csv"
}

cpu() { awk '{ printf "%.1f", $1 + $2 }' "$1.time"; }

echo "| server | test | threads | sysbench TPS | driver TPS | driver / sysbench | sysbench CPU s | driver CPU s | load |" >"$out/README.md"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|" >>"$out/README.md"
flip=0
for server in $SERVERS; do
  case $server in
    null) start_null; port=$PNULL user=x ;;
    quire) start_quire; port=$PQ user=root ;;
    *) echo "unknown server $server" >&2; exit 2 ;;
  esac
  for t in $TESTS; do
    for n in $THREADS; do
      f="$out/$server.$t.$n"
      load=$(cut -d' ' -f1 /proc/loadavg)
      if [ $flip = 0 ]; then
        s=$(run_sysbench $port $user "$t" "$n" "$f.sysbench"); d=$(run_driver $port $user "$t" "$n" "$f.driver")
      else
        d=$(run_driver $port $user "$t" "$n" "$f.driver"); s=$(run_sysbench $port $user "$t" "$n" "$f.sysbench")
      fi
      flip=$((1 - flip))
      r=$(awk -v s="$s" -v d="$d" 'BEGIN { if (s > 0) printf "%.2f", d / s; else print "-" }')
      echo "| $server | $t | $n | $s | $d | $r | $(cpu "$f.sysbench") | $(cpu "$f.driver") | $load |" | tee -a "$out/README.md"
    done
  done
  cleanup; pids=()
done
echo "report: $out/README.md"
