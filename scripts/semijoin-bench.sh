#!/usr/bin/env bash
# IN / EXISTS / NOT EXISTS subqueries over two tables on two quire builds
# (before and after semi-joins) and on MariaDB, in one run: wall time of
# each query, best of RUNS, on the same data.
#
# Usage: scripts/semijoin-bench.sh OLD_QUIRE NEW_QUIRE
# Env:   OUTER=100000 INNER=20000 RUNS=3 PORT=3640 (MariaDB: PORT+1, new
#        quire: PORT+2) TIMEOUT=60 (seconds a run may take; one that
#        takes longer counts as TIMEOUT, and the query's other runs on
#        that server are skipped: the build without semi-joins scans h
#        once per outer row on the last query)
# Tables: o (OUTER rows: id PK, k = id*7 % OUTER, g = id % 10) and
#         i (INNER rows: id PK, k = id*13 % (2*INNER) with an index on k,
#         c = id % 100), h = i without the index.
# Prints one line per (query, server): best wall seconds, and the ratios
# old / new and MariaDB / new.
set -euo pipefail
OLD=$1 NEW=$2
OUTER=${OUTER:-100000} INNER=${INNER:-20000} RUNS=${RUNS:-3} PORT=${PORT:-3640} TIMEOUT=${TIMEOUT:-60}
WORK=$(mktemp -d /tmp/semijoin-bench.XXXX)
QUERIES=(
  "SELECT COUNT(*) FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND i.c < 50)"
  "SELECT COUNT(*) FROM o WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k = o.k)"
  "SELECT COUNT(*) FROM o WHERE o.k IN (SELECT k FROM i WHERE i.c = o.g)"
  "SELECT COUNT(*) FROM o WHERE o.k IN (SELECT k FROM i WHERE c < 10)"
  "SELECT COUNT(*) FROM o WHERE EXISTS (SELECT 1 FROM h WHERE h.k = o.k AND h.c < 50)"
)

gen() {
  python3 - "$OUTER" "$INNER" >"$WORK/data.sql" <<'EOF'
import sys
outer, inner = int(sys.argv[1]), int(sys.argv[2])
print("CREATE TABLE o (id INT PRIMARY KEY, k INT, g INT);")
print("CREATE TABLE i (id INT PRIMARY KEY, k INT, c INT, KEY ik (k));")
print("CREATE TABLE h (id INT PRIMARY KEY, k INT, c INT);")
def rows(table, n, f):
    for s in range(1, n + 1, 1000):
        vals = ",".join(f(x) for x in range(s, min(s + 1000, n + 1)))
        print(f"INSERT INTO {table} VALUES {vals};")
rows("o", outer, lambda x: f"({x},{x * 7 % outer},{x % 10})")
rows("i", inner, lambda x: f"({x},{x * 13 % (2 * inner)},{x % 100})")
print("INSERT INTO h SELECT * FROM i;")
print("ANALYZE TABLE o, i, h;")
EOF
}

# How the client reaches each server: quire by TCP, MariaDB by its
# socket (its root is root@localhost).
conn() { # port
  if [ "$1" = "$((PORT + 1))" ]; then echo "-S $WORK/maria/data/mysqld.sock -uroot"; else echo "-h127.0.0.1 -P$1 -uroot"; fi
}

wait_up() {
  # shellcheck disable=SC2046
  for _ in $(seq 300); do mariadb $(conn "$1") -e "SELECT 1" >/dev/null 2>&1 && return; sleep 0.2; done
  echo "server on $1 did not start" >&2
  exit 1
}

start_quire() { # name binary port
  mkdir -p "$WORK/$1"
  "$2" serve --datadir="$WORK/$1" --port="$3" --root-password= \
    --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2 >"$WORK/$1.log" 2>&1 &
  echo $! >"$WORK/$1.pid"
  wait_up "$3"
}

# shellcheck disable=SC2046
load() { # port
  mariadb $(conn "$1") -e "CREATE DATABASE sj"
  mariadb $(conn "$1") sj <"$WORK/data.sql" >/dev/null
}

best() { # port query
  local b=999999 s e t
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N)
    # shellcheck disable=SC2046
    if ! timeout "$TIMEOUT" mariadb $(conn "$1") sj -e "$2" >/dev/null; then
      # Cut short: the statement is killed so the next query runs alone.
      # shellcheck disable=SC2046
      mariadb $(conn "$1") -N -e "SHOW FULL PROCESSLIST" | awk -F'\t' '$8 ~ /^SELECT COUNT/ {print $1}' |
        while read -r id; do mariadb $(conn "$1") -e "KILL $id" >/dev/null 2>&1 || true; done
      echo "$TIMEOUT"
      return
    fi
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    b=$(echo "if ($t < $b) $t else $b" | bc)
  done
  echo "$b"
}

gen
start_quire old "$OLD" "$PORT"
start_quire new "$NEW" "$((PORT + 2))"
bash /work/shared/anchors/start-mariadb.sh "$WORK/maria" "$((PORT + 1))" >"$WORK/maria.log" 2>&1
wait_up "$((PORT + 1))"
for p in "$PORT" "$((PORT + 1))" "$((PORT + 2))"; do load "$p"; done
printf '%-8s %-8s %-8s %-9s %-9s %s\n' old new mariadb old/new maria/new query
for q in "${QUERIES[@]}"; do
  o=$(best "$PORT" "$q")
  m=$(best "$((PORT + 1))" "$q")
  n=$(best "$((PORT + 2))" "$q")
  printf '%-8.3f %-8.3f %-8.3f %-9.1f %-9.2f %s\n' "$o" "$n" "$m" "$(echo "$o / $n" | bc -l)" \
    "$(echo "$m / $n" | bc -l)" "$q"
done
kill "$(cat "$WORK/old.pid")" "$(cat "$WORK/new.pid")"
mariadb-admin -S "$WORK/maria/data/mysqld.sock" -uroot shutdown || true
wait 2>/dev/null || true
rm -rf "$WORK"
