#!/usr/bin/env bash
# A burst of N simultaneous logins against two quire builds and, if a
# MariaDB port is given, MariaDB beside them; same settings
# (max_connections=2000). Rounds alternate between the servers so that a
# drift in the shared machine's load falls on all alike.
#
# Usage: scripts/connect-burst-vs.sh OUTDIR OLD_BINARY NEW_BINARY [MARIADB_PORT MARIADB_PID]
# Env:   N=1000 ROUNDS=3
# MariaDB needs a user burst@127.0.0.1 with password 'burst' (mysql_native_password).
set -euo pipefail
source "$(dirname "$(realpath "$0")")/lib/server.sh"
out=$(realpath -m "${1:?usage: connect-burst-vs.sh OUTDIR OLD NEW [MARIADB_PORT MARIADB_PID]}")
old=$(realpath "${2:?old binary}")
new=$(realpath "${3:?new binary}")
mport=${4:-} mpid=${5:-}
N=${N:-1000} ROUNDS=${ROUNDS:-3}
here=$(dirname "$(realpath "$0")")
mkdir -p "$out"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
declare -A pid_of

# start NAME BINARY PORT
start() {
  printf '[mysqld]\ndatadir=%s\nport=%s\nbind-address=127.0.0.1\nmax_connections=2000\ninnodb_buffer_pool_size=64M\n' \
    "$out/$1/data" "$3" >"$out/$1.cnf"
  rm -rf "${out:?}/$1"
  "$2" serve --root-password=burst --defaults-file="$out/$1.cnf" >"$out/$1.log" 2>&1 &
  pids+=($!)
  pid_of[$1]=$!
  wait_sql "$3" burst 120
  echo "$1: back_log $(mariadb -N -h127.0.0.1 -P"$3" -uroot -pburst -e 'select @@back_log'), listen queue $(ss -ltnH "sport = :$3" | awk '{print $3}')"
}
start old "$old" 3435
start new "$new" 3437
[ -n "$mport" ] && echo "mariadb: back_log $(mariadb -N -h127.0.0.1 -P"$mport" -uburst -pburst -e 'select @@back_log'), listen queue $(ss -ltnH "sport = :$mport" | awk '{print $3}')"
echo "somaxconn $(cat /proc/sys/net/core/somaxconn), tcp_max_syn_backlog $(cat /proc/sys/net/ipv4/tcp_max_syn_backlog)"
for r in $(seq "$ROUNDS"); do
  python3 "$here/connect-burst.py" --port 3435 --password burst -n "$N" --rounds 1 --pid "${pid_of[old]}" --label "old r$r"
  python3 "$here/connect-burst.py" --port 3437 --password burst -n "$N" --rounds 1 --pid "${pid_of[new]}" --label "new r$r"
  if [ -n "$mport" ]; then
    python3 "$here/connect-burst.py" --port "$mport" --user burst --password burst -n "$N" --rounds 1 \
      ${mpid:+--pid "$mpid"} --label "mariadb r$r"
  fi
  sleep 2
done 2>&1 | tee "$out/report.txt"
