#!/usr/bin/env bash
# Many connections (issue 18): the real sysbench at up to thousands of
# connections against quire one-thread-per-connection, quire with its
# thread pool, quire with innodb_thread_concurrency=64, and MariaDB with
# and without its thread pool. Same durable settings for all
# (scripts/lib/server.sh, ../shared/anchors/mariadb.cnf).
#
# Usage: scripts/many-connections.sh OUTDIR
# Env:   TABLES=4 ROWS=100000 BP=1G TIME=10
#        THREADS="16 256 1024 4096"
#        TESTS="oltp_point_select oltp_read_write"
#        SERVERS="quire quire-pool quire-tc64 mariadb mariadb-pool"
#        QUIRE=target/release/quire
#        REPORT_ONLY=1 prints the table from OUTDIR's files without running
#                      (e.g. after running some SERVERS into OUTDIR later)
# The servers run one after the other, each alone: start, load, every
# point, stop. Per point: throughput (QPS for point_select, else TPS), its
# fraction of the server's best at any connection count, p95 latency,
# seconds with no transaction at all ("stalled") and the server's highest
# RSS. Every sysbench output stays under OUTDIR.
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: many-connections.sh OUTDIR}")
here=$(dirname "$(realpath "$0")")
root=$(dirname "$here")
anchors=${ANCHORS:-$root/../shared/anchors}
TABLES=${TABLES:-4} ROWS=${ROWS:-100000} BP=${BP:-1G} TIME=${TIME:-10}
THREADS=${THREADS:-"16 256 1024 4096"}
TESTS=${TESTS:-"oltp_point_select oltp_read_write"}
SERVERS=${SERVERS:-"quire quire-pool quire-tc64 mariadb mariadb-pool"}
QUIRE=${QUIRE:-$root/target/release/quire}
mkdir -p "$out"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

port=3310
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# start NAME: the server NAME on $port, with sbtest ready.
start() {
  local dir="$out/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  case $1 in
    quire*)
      quire_cnf "$dir.cnf" "$dir/data" "$port" "$BP"
      mariadb_matched_flushing "$dir.cnf"
      case $1 in
        quire-pool) echo "thread_handling=pool-of-threads" >>"$dir.cnf" ;;
        quire-tc64) echo "innodb_thread_concurrency=64" >>"$dir.cnf" ;;
      esac
      "$QUIRE" serve --root-password=root --defaults-file="$dir.cnf" >"$dir.log" 2>&1 &
      pid=$!
      wait_sql "$port" root
      sbtest_user "$port" ;;
    mariadb*)
      sed -e "s#@DATADIR@#$dir/data#g" -e "s#@PORT@#$port#g" -e "s#@BP@#$BP#g" "$anchors/mariadb.cnf" >"$dir.cnf"
      [ "$1" = mariadb-pool ] && echo "thread_handling=pool-of-threads" >>"$dir.cnf"
      mariadb-install-db --defaults-file="$dir.cnf" --auth-root-authentication-method=normal >"$dir.install" 2>&1
      mariadbd --defaults-file="$dir.cnf" >"$dir.log" 2>&1 &
      pid=$!
      for _ in $(seq 60); do
        mariadb -S "$dir/data/mysqld.sock" -uroot -e 'select 1' >/dev/null 2>&1 && break
        sleep 1
      done
      # As start-mariadb.sh: at 127.0.0.1, or the anonymous localhost
      # account would match first.
      mariadb -S "$dir/data/mysqld.sock" -uroot -e "CREATE DATABASE sbtest;
        CREATE USER 'sbtest'@'127.0.0.1' IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO 'sbtest'@'127.0.0.1'" ;;
  esac
}

stop() {
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=
  rm -rf "${out:?}/$1/data"
}

sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=sbtest \
  --mysql-password=sbtest --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" "$@"; }

for s in $SERVERS; do
  [ -n "${REPORT_ONLY:-}" ] && break
  start "$s"
  sb --threads=4 oltp_read_write prepare >"$out/prepare.$s" 2>&1
  for t in $TESTS; do
    for n in $THREADS; do
      ( peak=0; while kill -0 "$pid" 2>/dev/null; do
          r=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
          [ "${r:-0}" -gt "$peak" ] && peak=$r && echo $(( peak / 1024 )) >"$out/$t.$n.$s.rss"
          sleep 1; done ) &
      sampler=$!
      sb --threads="$n" --time="$TIME" --report-interval=1 "$t" run >"$out/$t.$n.$s" 2>&1 || true
      kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
      echo "$s $t $n done" >&2
    done
  done
  stop "$s"
done

echo "Throughput (fraction of the server's best), p95 ms, stalled seconds, RSS MB; $TABLES x $ROWS rows, buffer pool $BP, $TIME s per point"
for t in $TESTS; do
  echo
  echo "### $t"
  echo
  printf "| connections |"; for s in $SERVERS; do printf " %s |" "$s"; done; echo
  printf "|---:|"; for _ in $SERVERS; do printf -- "---:|"; done; echo
  declare -A best=()
  for s in $SERVERS; do
    best[$s]=1
    for n in $THREADS; do
      read -r v _ _ _ < <(sysbench_summary "$out/$t.$n.$s" "$t")
      best[$s]=$(awk -v a="$v" -v b="${best[$s]}" 'BEGIN { print (a > b) ? a : b }')
    done
  done
  for n in $THREADS; do
    printf "| %s |" "$n"
    for s in $SERVERS; do
      read -r v z _ p < <(sysbench_summary "$out/$t.$n.$s" "$t")
      v=$(printf "%.0f" "$v")
      rss=$(cat "$out/$t.$n.$s.rss" 2>/dev/null || echo -)
      frac=$(awk -v a="$v" -v b="${best[$s]}" 'BEGIN { printf "%.2f", a / b }')
      printf " %s (%s), %s ms, %s s, %s MB |" "$v" "$frac" "$p" "$z" "$rss"
    done
    echo
  done
done
