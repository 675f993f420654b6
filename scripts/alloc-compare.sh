#!/usr/bin/env bash
# Several quire builds (allocators, allocator settings) side by side under
# the real sysbench, busy: throughput, server CPU per event, and resident
# memory while the connections work (issue 14, item 3: "the allocator's
# choice and settings measured in one run"). scripts/conn-memory.sh covers
# idle connections; this covers busy ones.
#
# Usage: scripts/alloc-compare.sh OUTDIR VARIANT...
#   VARIANT  LABEL=BINARY[:ENV=VALUE...], e.g. "mi=/tmp/q-mi" "je=/tmp/q-je"
# Env:   TABLES=4 ROWS=100000 BP=128M TIME=10 THREADS="16 256 1024"
#        TESTS="oltp_read_write oltp_point_select" DURABLE=1 PORT0=3331
# Every server is loaded once and stays up (ports PORT0, PORT0+1, ...);
# each point runs on every server in turn, the order rotating from point
# to point so a drift in the machine's load falls on all alike. RSS is
# sampled every 0.5 s during the run (peak of the samples) and read again
# 3 s after sysbench has disconnected.
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: alloc-compare.sh OUTDIR VARIANT...}")
shift
TABLES=${TABLES:-4} ROWS=${ROWS:-100000} BP=${BP:-128M} TIME=${TIME:-10}
THREADS=${THREADS:-"16 256 1024"}
TESTS=${TESTS:-"oltp_read_write oltp_point_select"}
DURABLE=${DURABLE:-1}
port0=${PORT0:-3331}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench mariadb-client >/dev/null; }

labels=() ports=() pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

i=0
for v in "$@"; do
  label=${v%%=*}
  IFS=: read -r -a parts <<<"${v#*=}"
  bin=$(realpath "${parts[0]}")
  envs=("${parts[@]:1}")
  port=$((port0 + i))
  i=$((i + 1))
  quire_cnf "$out/$label.cnf" "$out/$label/data" "$port" "$BP" "$DURABLE"
  echo "max_prepared_stmt_count=1000000" >>"$out/$label.cnf"
  rm -rf "${out:?}/$label"
  env "${envs[@]}" "$bin" serve --root-password=root --defaults-file="$out/$label.cnf" >"$out/$label.log" 2>&1 &
  pids+=($!)
  labels+=("$label")
  ports+=("$port")
  wait_sql "$port" root 180 || { echo "$label did not start: $out/$label.log" >&2; exit 1; }
  sbtest_user "$port"
done

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }
for port in "${ports[@]}"; do sb "$port" --threads=4 oltp_read_write prepare >"$out/prepare.$port" 2>&1; done

throughput() {
  if [ "$2" = oltp_point_select ]; then
    awk '/queries:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$1"
  else
    awk '/transactions:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$1"
  fi
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_mib() { awk '/VmRSS/ { printf "%d", $2 / 1024 }' "/proc/$1/status"; }
tick_us=$((1000000 / $(getconf CLK_TCK)))

echo "| test | threads | server | TPS / QPS | CPU µs per event | RSS MiB idle before | peak RSS MiB during | RSS MiB 3 s after |" >"$out/README.md"
echo "|---|---:|---|---:|---:|---:|---:|---:|" >>"$out/README.md"
rot=0
n_var=${#labels[@]}
for t in $TESTS; do
  for n in $THREADS; do
    for k in $(seq 0 $((n_var - 1))); do
      j=$(((k + rot) % n_var))
      port=${ports[$j]} pid=${pids[$j]} label=${labels[$j]}
      before=$(rss_mib "$pid")
      c0=$(cpu_ticks "$pid")
      sb "$port" --threads="$n" --time="$TIME" "$t" run >"$out/$t.$n.$label" 2>&1 &
      sbp=$!
      peak=0
      while kill -0 $sbp 2>/dev/null; do
        r=$(rss_mib "$pid")
        [ "$r" -gt "$peak" ] && peak=$r
        sleep 0.5
      done
      wait $sbp || true
      c1=$(cpu_ticks "$pid")
      sleep 3
      after=$(rss_mib "$pid")
      tp=$(throughput "$out/$t.$n.$label" "$t")
      cpu=$(awk -v c=$((c1 - c0)) -v u="$tick_us" -v tp="$tp" -v s="$TIME" \
        'BEGIN { e = tp * s; if (e > 0) printf "%.1f", c * u / e; else print 0 }')
      echo "| $t | $n | $label | $tp | $cpu | $before | $peak | $after |" | tee -a "$out/README.md"
    done
    rot=$((rot + 1))
  done
done
echo "report: $out/README.md"
