#!/usr/bin/env bash
# quire and MariaDB side by side under the real sysbench, same settings:
# buffer pool, redo synced at every commit, doublewrite on, O_DIRECT.
#
# Usage: scripts/sysbench-vs-mariadb.sh OUTDIR
# Env:   TABLES=4 ROWS=100000 BP=512M TIME=10 THREADS="1 16 64 256"
#        TESTS="oltp_point_select oltp_read_only oltp_read_write"
#                      (a path to a Lua script works too, e.g.
#                      scripts/sysbench/oltp_join.lua with TABLES>=2)
#        WARMUP=0      seconds of oltp_read_write (16 threads) on each
#                      server after the load, before the first point
#        MEM_BP=       when set (e.g. 4G), a second quire with this buffer
#                      pool (larger than the data: memory-resident) runs
#                      every point too, and the table shows quire's
#                      I/O-bound / memory-resident ratio
#        NULLSRV=1     the null server (../shared/anchors/nullsrv, built
#                      here if needed) runs every point too: the ceiling of
#                      the machine (sysbench, its client library, loopback)
#        QUIRE=target/release/quire
#        QUIRE_CNF=    more lines for quire's my.cnf (printf %b: "a=1\nb=2"),
#                      after the matched settings (a later line wins)
#        SERVERS=      the servers to run, by port (default: all of the
#                      above; e.g. SERVERS=3308 for quire alone)
# The servers run one after the other, each alone on the machine. Every
# run reports once a second (--report-interval=1); the table shows
# TPS (QPS for point_select), the ratio quire / MariaDB, and per server the
# seconds with no transaction at all ("stalled") and the lowest one-second
# throughput, the 95th percentile latency, and each server's resident
# memory (the highest VmRSS sampled once a second during the point).
# Every sysbench output stays under OUTDIR.
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: sysbench-vs-mariadb.sh OUTDIR}")
here=$(dirname "$(realpath "$0")")
root=$(dirname "$here")
anchors=${ANCHORS:-$root/../shared/anchors}
TABLES=${TABLES:-4} ROWS=${ROWS:-100000} BP=${BP:-512M} TIME=${TIME:-10}
THREADS=${THREADS:-"1 16 64 256"}
TESTS=${TESTS:-"oltp_point_select oltp_read_only oltp_read_write"}
WARMUP=${WARMUP:-0} MEM_BP=${MEM_BP:-} NULLSRV=${NULLSRV:-}
QUIRE=${QUIRE:-$root/target/release/quire}
mkdir -p "$out"
command -v sysbench >/dev/null || { apt-get update -qq && apt-get install -y -qq sysbench mariadb-client mariadb-server >/dev/null; }

ports="3307 3308"
[ -n "$MEM_BP" ] && ports="$ports 3309"
[ -n "$NULLSRV" ] && ports="3399 $ports"
ports=${SERVERS:-$ports}
QUIRE_CNF=${QUIRE_CNF:-}
if [ -n "$NULLSRV" ] && [ ! -x "$out/nullsrv-build/target/release/nullsrv" ]; then
  rm -rf "$out/nullsrv-build"; mkdir -p "$out/nullsrv-build"
  cp -r "$anchors/nullsrv/Cargo.toml" "$anchors/nullsrv/Cargo.lock" "$anchors/nullsrv/src" "$out/nullsrv-build/"
  (cd "$out/nullsrv-build" && cargo build --release -q)
fi
qpid= npid=
cleanup() {
  mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown 2>/dev/null || true
  if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; fi
  if [ -n "$npid" ]; then kill "$npid" 2>/dev/null || true; wait "$npid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# start_quire NAME PORT BUFFER_POOL
start_quire() {
  quire_cnf "$out/$1.cnf" "$out/$1/data" "$2" "$3"
  mariadb_matched_flushing "$out/$1.cnf"
  if [ -n "$QUIRE_CNF" ]; then printf '%b\n' "$QUIRE_CNF" >>"$out/$1.cnf"; fi
  rm -rf "${out:?}/$1"
  "$QUIRE" serve --root-password=root --defaults-file="$out/$1.cnf" >"$out/$1.log" 2>&1 &
  qpid=$!
  wait_sql "$2" root
  sbtest_user "$2"
}

# One server at a time, alone on the machine (an idle server's background
# flushing and purge would otherwise run under the other's measurement):
# start, load, warm up, every point, stop.
start_server() {
  case $1 in
    3307) rm -rf "${out:?}/mariadb"; BP=$BP "$anchors/start-mariadb.sh" "$out/mariadb" 3307 >"$out/mariadb.start" 2>&1 ;;
    3308) start_quire quire 3308 "$BP" ;;
    3309) start_quire quire-mem 3309 "$MEM_BP" ;;
    3399)
      "$out/nullsrv-build/target/release/nullsrv" --listen 127.0.0.1:3399 >"$out/nullsrv.log" 2>&1 &
      npid=$!
      sleep 1 ;;
  esac
}
# The server's process id, for its memory.
server_pid() {
  case $1 in
    3307) pgrep -f "mariadbd --defaults-file=$out/mariadb/my.cnf" | head -1 ;;
    3399) echo "$npid" ;;
    *) echo "$qpid" ;;
  esac
}
stop_server() {
  case $1 in
    3307) mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown 2>/dev/null || true; rm -rf "${out:?}/mariadb/data" ;;
    3399) kill "$npid" 2>/dev/null || true; wait "$npid" 2>/dev/null || true; npid= ;;
    *) kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; qpid=; rm -rf "${out:?}/quire" "${out:?}/quire-mem" ;;
  esac
}

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "${@:2}"; }
# The device's sync rate drifts on a shared machine, and a durable commit
# at 1-4 threads costs about one sync: measured before each server's
# series (4 KiB O_DIRECT + O_DSYNC writes, one at a time) and printed.
device_syncs() {
  local f="$out/ddtest"
  dd if=/dev/zero of="$f" bs=1M count=8 status=none
  local t0 t1
  t0=$(date +%s%N)
  dd if=/dev/zero of="$f" bs=4k count=300 oflag=direct,dsync conv=notrunc status=none
  t1=$(date +%s%N)
  rm -f "$f"
  echo $(( 300 * 1000000000 / (t1 - t0) ))
}
# The server's page reads and writes and its CPU time (clock ticks), taken
# before and after each point: per transaction in the second table.
counters() {
  mariadb -h127.0.0.1 -P"$1" -usbtest -psbtest -N -e "SHOW GLOBAL STATUS WHERE Variable_name IN
    ('Innodb_buffer_pool_reads', 'Innodb_buffer_pool_pages_flushed')" 2>/dev/null | sort || true
  awk '{ print "cpu_ticks", $14 + $15 }' "/proc/$2/stat" 2>/dev/null || true
}
declare -A syncs
for port in $ports; do
  syncs[$port]=$(device_syncs)
  start_server "$port"
  start=$(date +%s)
  if [ "$port" != 3399 ]; then
    sb "$port" --threads=4 oltp_read_write prepare >"$out/prepare.$port" 2>&1
  fi
  echo "load $(( $(date +%s) - start )) s" >"$out/prepare.time.$port"
  echo "prepare on $port: $(( $(date +%s) - start )) s" >&2
  if [ "$WARMUP" -gt 0 ] && [ "$port" != 3399 ]; then
    sb "$port" --threads=16 --time="$WARMUP" oltp_read_write run >"$out/warmup.$port" 2>&1 || true
  fi
  for t in $TESTS; do
    for n in $THREADS; do
      spid=$(server_pid "$port")
      ( peak=0; while kill -0 "$spid" 2>/dev/null; do
          r=$(awk '/VmRSS/ {print $2}' "/proc/$spid/status" 2>/dev/null || echo 0)
          [ "${r:-0}" -gt "$peak" ] && peak=$r && echo $(( peak / 1024 )) >"$out/$(basename "$t" .lua).$n.$port.rss"
          sleep 1; done ) &
      rss_sampler=$!
      point="$out/$(basename "$t" .lua).$n.$port"
      [ "$port" != 3399 ] && counters "$port" "$spid" >"$point.before"
      sb "$port" --threads="$n" --time="$TIME" --report-interval=1 "$t" run >"$point" 2>&1 || true
      [ "$port" != 3399 ] && counters "$port" "$spid" >"$point.after"
      kill "$rss_sampler" 2>/dev/null || true; wait "$rss_sampler" 2>/dev/null || true
    done
  done
  stop_server "$port"
done

head="| test | threads | MariaDB | quire | quire / MariaDB | stalled s (M / q) | lowest 1 s (M / q) | p95 ms (M / q) | RSS MB (M / q) |"
sep="|---|---:|---:|---:|---:|---:|---:|---:|---:|"
if [ -n "$MEM_BP" ]; then
  head="$head quire mem-resident | I/O-bound / mem |"
  sep="$sep---:|---:|"
fi
if [ -n "$NULLSRV" ]; then
  head="$head null server | quire / null |"
  sep="$sep---:|---:|"
fi
names=([3307]=MariaDB [3308]=quire [3309]="quire memory-resident" [3399]="null server")
for port in $ports; do
  echo "${names[$port]}: device ${syncs[$port]} syncs/s before its series; $(cat "$out/prepare.time.$port" 2>/dev/null)"
done
echo
echo "$head"
echo "$sep"
for t in $TESTS; do
  for n in $THREADS; do
    declare -A r=() z=() lo=() p95=() rss=()
    for port in $ports; do
      tn=$(basename "$t" .lua)
      read -r r[$port] z[$port] lo[$port] p95[$port] < <(sysbench_summary "$out/$tn.$n.$port" "$tn")
      rss[$port]=$(cat "$out/$tn.$n.$port.rss" 2>/dev/null || echo -)
    done
    for port in 3307 3308 3309 3399; do
      r[$port]=${r[$port]:--} z[$port]=${z[$port]:--} lo[$port]=${lo[$port]:--} p95[$port]=${p95[$port]:--} rss[$port]=${rss[$port]:--}
    done
    ratio=$(awk -v a="${r[3308]}" -v b="${r[3307]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    row="| $t | $n | ${r[3307]} | ${r[3308]} | $ratio | ${z[3307]} / ${z[3308]} | ${lo[3307]} / ${lo[3308]} | ${p95[3307]} / ${p95[3308]} | ${rss[3307]} / ${rss[3308]} |"
    if [ -n "$MEM_BP" ]; then
      mr=$(awk -v a="${r[3308]}" -v b="${r[3309]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
      row="$row ${r[3309]} | $mr |"
    fi
    if [ -n "$NULLSRV" ]; then
      nr=$(awk -v a="${r[3308]}" -v b="${r[3399]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
      row="$row ${r[3399]} | $nr |"
    fi
    echo "$row"
  done
done
echo
echo "Per transaction (per query for point_select): pages read, pages flushed, server CPU µs"
echo
echo "| test | threads | server | pages read | pages flushed | CPU µs |"
echo "|---|---:|---|---:|---:|---:|"
hz=$(getconf CLK_TCK)
for t in $TESTS; do
  for n in $THREADS; do
    for port in $ports; do
      [ "$port" = 3399 ] && continue
      point="$out/$(basename "$t" .lua).$n.$port"
      [ -f "$point.before" ] && [ -f "$point.after" ] || continue
      ev=$(awk '/transactions:/ { print $2 }' "$point")
      case $t in *point_select*) ev=$(awk '/queries:/ { print $2 }' "$point") ;; esac
      join <(sort "$point.before") <(sort "$point.after") | awk -v ev="${ev:-0}" -v hz="$hz" \
        -v t="$(basename "$t" .lua)" -v n="$n" -v name="${names[$port]}" '
        { d[$1] = $3 - $2 }
        END { if (ev > 0) printf "| %s | %s | %s | %.2f | %.2f | %.0f |\n", t, n, name,
          d["Innodb_buffer_pool_reads"] / ev, d["Innodb_buffer_pool_pages_flushed"] / ev,
          d["cpu_ticks"] * 1000000 / hz / ev }'
    done
  done
done
