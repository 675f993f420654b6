#!/usr/bin/env bash
# Change buffering (issue 18 item 6) on an I/O-bound insert / secondary-key
# update workload: quire with innodb_change_buffering none, then all, at
# each point (throughput, pages read, secondary leaves read only to apply a
# change, change-buffer merges); and MariaDB the same way on the same data
# and machine.
#
# Usage: scripts/change-buffering.sh OUTDIR QUIRE_BINARY
# Env:   TABLES=4 ROWS=500000 BP=64M (1/8 of the data) TIME=30
#        THREADS="16 64" TESTS="oltp_insert oltp_update_index"
#        MARIADB=1 (0: quire only) PORT_Q=3341 PORT_M=3342
# quire's counters are INNODB_METRICS deltas over each run plus 5 s after
# it (purge's reads of the old entries come late): all pages read
# (buffer_pool_reads), secondary leaves read for a change that was not
# buffered (change_buffer_leaf_reads), change-buffer merges (ibuf_merges).
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: change-buffering.sh OUTDIR QUIRE_BINARY}")
quire=$(realpath "${2:?quire binary}")
TABLES=${TABLES:-4} ROWS=${ROWS:-500000} BP=${BP:-64M} TIME=${TIME:-30}
THREADS=${THREADS:-"16 64"} TESTS=${TESTS:-"oltp_insert oltp_update_index"}
PQ=${PORT_Q:-3341} PM=${PORT_M:-3342}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench mariadb-client >/dev/null; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }
q() { mariadb -h127.0.0.1 -P"$1" -uroot -proot -N -B -e "$2"; }
tps() { awk '/transactions:/ { gsub(/\(/, "", $3); print $3 + 0 }' "$1"; }

# quire: metrics NAME... -> their COUNTs, space-separated, in that order.
metrics() {
  local port=$1; shift
  local list; list=$(printf "'%s'," "$@"); list=${list%,}
  q "$port" "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ($list)" |
    awk -v names="$*" 'BEGIN { n = split(names, want, " ") } { v[$1] = $2 }
      END { for (i = 1; i <= n; i++) printf "%s%s", v[want[i]] + 0, (i < n ? " " : "\n") }'
}
M="buffer_pool_reads buffer_page_read_index_leaf change_buffer_leaf_reads change_buffer_non_leaf_reads buffer_pages_written"

quire_cnf "$out/quire.cnf" "$out/quire/data" "$PQ" "$BP"
rm -rf "${out:?}/quire"
"$quire" serve --root-password=root --defaults-file="$out/quire.cnf" >"$out/quire.log" 2>&1 &
pids+=($!)
wait_sql "$PQ" root
sbtest_user "$PQ"
sb "$PQ" --threads=4 oltp_read_write prepare >"$out/prepare.quire" 2>&1
echo "quire tables: $(du -scm "$out"/quire/data/sbtest/*.qbd | tail -1 | cut -f1) MB, buffer pool $BP" | tee "$out/README.md"
{
  echo
  echo "quire, each point with innodb_change_buffering none, then all (set at run time):"
  echo
  echo "| test | threads | TPS none | TPS all | all / none | pages read none | all | secondary leaves read for a change none | all | ibuf merges (all) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >>"$out/README.md"
for t in $TESTS; do
  for n in $THREADS; do
    declare -A res=()
    for mode in none all; do
      q "$PQ" "SET GLOBAL innodb_change_buffering = $mode"
      read -r r0 l0 c0 cn0 w0 m0 < <(metrics "$PQ" $M ibuf_merges)
      sb "$PQ" --threads="$n" --time="$TIME" "$t" run >"$out/quire.$mode.$t.$n" 2>&1 || true
      sleep 5
      read -r r1 l1 c1 cn1 w1 m1 < <(metrics "$PQ" $M ibuf_merges)
      res[$mode]="$(tps "$out/quire.$mode.$t.$n") $((r1 - r0)) $((c1 - c0)) $((m1 - m0))"
    done
    read -r tn rn cn _ <<<"${res[none]}"
    read -r ta ra ca ma <<<"${res[all]}"
    awk -v t="$t" -v n="$n" -v tn="$tn" -v ta="$ta" -v rn="$rn" -v ra="$ra" -v cn="$cn" -v ca="$ca" -v ma="$ma" 'BEGIN {
      printf "| %s | %d | %s | %s | %.2f | %d | %d | %d | %d | %d |\n", t, n, tn, ta, (tn > 0 ? ta / tn : 0), rn, ra, cn, ca, ma }' |
      tee -a "$out/README.md"
  done
done
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()
rm -rf "${out:?}/quire"

[ "${MARIADB:-1}" = 1 ] || exit 0
anchors=$(realpath "$(dirname "$(realpath "$0")")/../../shared/anchors")
rm -rf "${out:?}/maria"
BP=$BP "$anchors/start-mariadb.sh" "$out/maria" "$PM" >"$out/maria.start" 2>&1
sock="$out/maria/data/mysqld.sock"
trap 'mariadb-admin -S "$sock" -uroot shutdown 2>/dev/null || true' EXIT
sb "$PM" --threads=4 oltp_read_write prepare >"$out/prepare.maria" 2>&1
mq() { mariadb -S "$sock" -uroot -N -B -e "$1"; }
st() { mq "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_reads', 'Innodb_ibuf_merges')" |
  awk '{ v[$1] = $2 } END { print v["Innodb_buffer_pool_reads"] + 0, v["Innodb_ibuf_merges"] + 0 }'; }
{
  echo
  echo "MariaDB $(mq 'SELECT VERSION()'), the same data and buffer pool; each point with change buffering none, then all:"
  echo
  echo "| test | threads | TPS none | TPS all | all / none | pages read none | all | ibuf merges (all) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} >>"$out/README.md"
for t in $TESTS; do
  for n in $THREADS; do
    declare -A res=()
    for mode in none all; do
      mq "SET GLOBAL innodb_change_buffering = $mode"
      read -r r0 m0 < <(st)
      sb "$PM" --threads="$n" --time="$TIME" "$t" run >"$out/maria.$mode.$t.$n" 2>&1 || true
      sleep 5
      read -r r1 m1 < <(st)
      res[$mode]="$(tps "$out/maria.$mode.$t.$n") $((r1 - r0)) $((m1 - m0))"
    done
    read -r tn rn _ <<<"${res[none]}"
    read -r ta ra ma <<<"${res[all]}"
    awk -v t="$t" -v n="$n" -v tn="$tn" -v ta="$ta" -v rn="$rn" -v ra="$ra" -v ma="$ma" 'BEGIN {
      printf "| %s | %d | %s | %s | %.2f | %d | %d | %d |\n", t, n, tn, ta, (tn > 0 ? ta / tn : 0), rn, ra, ma }' |
      tee -a "$out/README.md"
  done
done
echo "report: $out/README.md"
rm -rf "${out:?}/maria/data" "${out:?}/quire"
