#!/usr/bin/env bash
# Two quire builds side by side under the real sysbench, same settings:
# does a change slow the old paths? (The rule: measure before and after.)
#
# Usage: scripts/sysbench-quire-vs-quire.sh OUTDIR OLD_BINARY NEW_BINARY
# Env:   TABLES=4 ROWS=100000 BP=512M TIME=10 THREADS="1 16 64"
#        TESTS="oltp_point_select oltp_read_only oltp_read_write"
#        SB_ARGS=      extra sysbench run options (e.g. --db-ps-mode=disable:
#                      text protocol, the COM_QUERY path)
#        DURABLE=1     innodb_flush_log_at_trx_commit (1: synced per commit)
#        PORT_OLD=3321 PORT_NEW=3322
#        CNF_OLD= CNF_NEW=  my.cnf lines for one server only (e.g. the same
#                      binary twice, CNF_NEW=innodb_thread_concurrency=64)
# Both servers are loaded once and stay up; every point runs on the old
# build, then on the new, then the order flips for the next point, so a
# drift in the machine's load falls on both alike. The table shows TPS
# (QPS for point_select), new / old, and each server's CPU time per event
# (per query for point_select) from /proc — the steadier figure on a
# shared machine, where throughput drifts with the neighbours' load.
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: sysbench-quire-vs-quire.sh OUTDIR OLD NEW}")
old=$(realpath "${2:?old binary}")
new=$(realpath "${3:?new binary}")
TABLES=${TABLES:-4} ROWS=${ROWS:-100000} BP=${BP:-512M} TIME=${TIME:-10}
THREADS=${THREADS:-"1 16 64"}
TESTS=${TESTS:-"oltp_point_select oltp_read_only oltp_read_write"}
DURABLE=${DURABLE:-1}
# Ports of the old and new server (change them when another run uses these).
PO=${PORT_OLD:-3321} PN=${PORT_NEW:-3322}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench mariadb-client >/dev/null; }

pids=()
declare -A pid_of
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# start NAME BINARY PORT
start() {
  quire_cnf "$out/$1.cnf" "$out/$1/data" "$3" "$BP" "$DURABLE"
  if [ "$1" = old ]; then extra=${CNF_OLD:-}; else extra=${CNF_NEW:-}; fi
  if [ -n "$extra" ]; then printf '%s\n' $extra >>"$out/$1.cnf"; fi
  rm -rf "${out:?}/$1"
  "$2" serve --root-password=root --defaults-file="$out/$1.cnf" >"$out/$1.log" 2>&1 &
  pids+=($!)
  pid_of[$3]=$!
  wait_sql "$3" root
  sbtest_user "$3"
}

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }

start old "$old" $PO
start new "$new" $PN
for port in $PO $PN; do sb "$port" --threads=4 oltp_read_write prepare >"$out/prepare.$port" 2>&1; done

# throughput FILE TEST
throughput() {
  if [ "$2" = oltp_point_select ]; then
    awk '/queries:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$1"
  else
    awk '/transactions:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$1"
  fi
}

# CPU clock ticks (user + system) the server on PORT has used.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/${pid_of[$1]}/stat"; }
tick_us=$((1000000 / $(getconf CLK_TCK)))
declare -A cpu_us

echo "| test | threads | old | new | new / old | CPU µs per event old | new | new / old |" >"$out/README.md"
echo "|---|---:|---:|---:|---:|---:|---:|---:|" >>"$out/README.md"
flip=0
for t in $TESTS; do
  for n in $THREADS; do
    order="$PO $PN"
    [ $flip = 1 ] && order="$PN $PO"
    flip=$((1 - flip))
    for port in $order; do
      c0=$(cpu_ticks "$port")
      sb "$port" --threads="$n" --time="$TIME" ${SB_ARGS:-} "$t" run >"$out/$t.$n.$port" 2>&1 || true
      c1=$(cpu_ticks "$port")
      events=$(throughput "$out/$t.$n.$port" "$t" | awk -v s="$TIME" '{ printf "%d", $1 * s }')
      cpu_us[$port]=$(awk -v c=$((c1 - c0)) -v u="$tick_us" -v e="$events" 'BEGIN { if (e > 0) printf "%.1f", c * u / e; else print 0 }')
    done
    o=$(throughput "$out/$t.$n.$PO" "$t")
    w=$(throughput "$out/$t.$n.$PN" "$t")
    r=$(awk -v o="$o" -v w="$w" 'BEGIN { if (o > 0) printf "%.2f", w / o; else print "-" }')
    rc=$(awk -v o="${cpu_us[$PO]}" -v w="${cpu_us[$PN]}" 'BEGIN { if (o > 0) printf "%.2f", w / o; else print "-" }')
    echo "| $t | $n | $o | $w | $r | ${cpu_us[$PO]} | ${cpu_us[$PN]} | $rc |" | tee -a "$out/README.md"
  done
done
echo "report: $out/README.md"
