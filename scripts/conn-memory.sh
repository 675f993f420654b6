#!/usr/bin/env bash
# Resident memory per idle connection, and whether it comes back when the
# connections close (issue 14, item 3): several quire builds or allocator
# settings, and MariaDB, in one run, each with the same buffer pool.
#
# Usage: scripts/conn-memory.sh OUTDIR CLIENT VARIANT...
#   CLIENT   a quire binary (its `conn-memory` subcommand opens the
#            connections and reads the server's VmRSS from /proc)
#   VARIANT  LABEL=BINARY[:ENV=VALUE[:ENV=VALUE...]], e.g.
#            "mimalloc-defaults=/tmp/q.bin:MIMALLOC_ARENA_EAGER_COMMIT=2"
# Env: BP=128M CONNS=1024,2000 SETTLE_MS=3000 MARIADB=1 (add MariaDB's row)
#      PORT=3423 (every server in turn listens there)
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: conn-memory.sh OUTDIR CLIENT VARIANT...}")
client=$(realpath "${2:?client binary}")
shift 2
BP=${BP:-128M} CONNS=${CONNS:-1024,2000} SETTLE_MS=${SETTLE_MS:-3000} MARIADB=${MARIADB:-1}
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
port=${PORT:-3423}
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; true; }
trap cleanup EXIT

report="$out/README.md"
header=--header
: >"$report"
measure() { # LABEL PID PORT USER PASSWORD
  "$client" conn-memory $header --label "$1" --pid "$2" --port "$3" --user "$4" --password "$5" \
    --connections "$CONNS" --settle-ms "$SETTLE_MS" | tee -a "$report"
  header=
}

for v in "$@"; do
  label=${v%%=*}
  IFS=: read -r -a parts <<<"${v#*=}"
  bin=$(realpath "${parts[0]}")
  envs=("${parts[@]:1}")
  dir="$out/$label"
  rm -rf "$dir" && mkdir -p "$dir/data"
  cat >"$dir/my.cnf" <<CNF
[mysqld]
datadir=$dir/data
port=$port
bind-address=127.0.0.1
max_connections=5000
innodb_buffer_pool_size=$BP
CNF
  env "${envs[@]}" "$bin" serve --root-password=root --defaults-file="$dir/my.cnf" >"$dir/server.log" 2>&1 &
  server=$!
  wait_sql "$port" root || { echo "quire $label did not start: $dir/server.log" >&2; exit 1; }
  measure "quire $label" "$server" $port root root
  kill "$server"; wait "$server" 2>/dev/null || true
  server=
  rm -rf "$dir/data"
done

if [ "$MARIADB" = 1 ]; then
  BP=$BP /work/shared/anchors/start-mariadb.sh "$out/mariadb" $port >/dev/null
  pid=$(cat "$out"/mariadb/data/*.pid)
  measure "MariaDB $(mariadbd --version | awk '{print $3}')" "$pid" $port sbtest sbtest
  mariadb-admin -S "$out/mariadb/data/mysqld.sock" -uroot shutdown
  rm -rf "$out/mariadb"
fi
echo "report: $report"
