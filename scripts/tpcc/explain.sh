#!/usr/bin/env bash
# EXPLAIN and EXPLAIN FORMAT=TREE of TPC-C's statements (scripts/tpcc/explain.sql)
# against a server holding sysbench-tpcc's tables (database tpcc, table set 1).
# Usage: scripts/tpcc/explain.sh PORT [USER] [PASSWORD] > out.md
set -euo pipefail
port=${1:?port}; user=${2:-root}; pass=${3:-}
here=$(dirname "$0")
q() { mariadb -h127.0.0.1 -P"$port" -u"$user" ${pass:+-p"$pass"} tpcc "$@"; }
grep -v '^--' "$here/explain.sql" | while IFS= read -r stmt; do
  [ -z "$stmt" ] && continue
  printf '```sql\n%s\n```\n\n```\n' "$stmt"
  q -t -e "EXPLAIN $stmt" 2>&1
  q -N -r -e "EXPLAIN FORMAT=TREE $stmt" 2>&1
  printf '```\n\n'
done
