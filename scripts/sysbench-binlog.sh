#!/usr/bin/env bash
# What the binary log costs: one quire binary, three servers side by side
# under the real sysbench, durable (innodb_flush_log_at_trx_commit=1):
# log_bin off, log_bin with sync_binlog=1, log_bin with sync_binlog=0.
#
# Usage: scripts/sysbench-binlog.sh OUTDIR BINARY
# Env:   TABLES=4 ROWS=20000 BP=256M TIME=10 THREADS="1 16 64"
#        TESTS="oltp_write_only oltp_update_non_index"
#        PORT_BASE=3680 (three ports from it)
# Every point runs on the three servers one after the other, the order
# rotating from point to point so that a drift of the shared machine's
# load falls on all alike. The table shows TPS and each ratio to
# binlog-off.
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: sysbench-binlog.sh OUTDIR BINARY}")
bin=$(realpath "${2:?binary}")
TABLES=${TABLES:-4} ROWS=${ROWS:-20000} BP=${BP:-256M} TIME=${TIME:-10}
THREADS=${THREADS:-"1 16 64"}
TESTS=${TESTS:-"oltp_write_only oltp_update_non_index"}
PB=${PORT_BASE:-3680}
names=(off sync1 sync0)
extra=("" $'log_bin=ON\nsync_binlog=1' $'log_bin=ON\nsync_binlog=0')
mkdir -p "$out"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }

for i in 0 1 2; do
  port=$((PB + i))
  rm -rf "${out:?}/${names[$i]}"
  quire_cnf "$out/${names[$i]}.cnf" "$out/${names[$i]}/data" "$port" "$BP" 1
  [ -n "${extra[$i]}" ] && echo "${extra[$i]}" >>"$out/${names[$i]}.cnf"
  "$bin" serve --root-password=root --defaults-file="$out/${names[$i]}.cnf" >"$out/${names[$i]}.log" 2>&1 &
  pids+=($!)
  wait_sql "$port" root
  sbtest_user "$port"
  sb "$port" --threads=4 oltp_read_write prepare >"$out/prepare.$port" 2>&1
done

tps() { awk '/transactions:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$1"; }

echo "| test | threads | binlog off | sync_binlog=1 | ratio | sync_binlog=0 | ratio |" >"$out/README.md"
echo "|---|---:|---:|---:|---:|---:|---:|" >>"$out/README.md"
rot=0
for t in $TESTS; do
  for n in $THREADS; do
    for k in 0 1 2; do
      i=$(((k + rot) % 3))
      port=$((PB + i))
      sb "$port" --threads="$n" --time="$TIME" "$t" run >"$out/$t.$n.${names[$i]}" 2>&1 || true
    done
    rot=$((rot + 1))
    o=$(tps "$out/$t.$n.off"); s1=$(tps "$out/$t.$n.sync1"); s0=$(tps "$out/$t.$n.sync0")
    r1=$(awk -v a="$s1" -v b="$o" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    r0=$(awk -v a="$s0" -v b="$o" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $t | $n | $o | $s1 | $r1 | $s0 | $r0 |" | tee -a "$out/README.md"
  done
done
ls -l "$out"/sync1/data/binlog.* >>"$out/files.txt" 2>&1 || true
echo "report: $out/README.md"
