#!/usr/bin/env bash
# A quire replica's lag behind a quire source under sysbench oltp_write_only
# (issue 17 item 5): the source with log_bin, sync_binlog=1 and durable
# commits; the replica applying with WORKERS parallel workers
# (replica_parallel_workers; 0: one applier thread). Prints
# Seconds_Behind_Source and the unapplied bytes once a second, then how
# long the replica takes to catch up after the load ends.
#
#   QUIRE=target/release/quire TIME=60 THREADS=8 WORKERS=4 scripts/replica-lag.sh
#
# DELAY sets the source's binlog_group_commit_sync_delay (µs, default 0).
# Ports SPORT / RPORT (3941 / 3942), data under BASE (/tmp/replica-lag).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/server.sh
. scripts/lib/replica.sh

QUIRE=${QUIRE:-target/release/quire}
TIME=${TIME:-60}
THREADS=${THREADS:-8}
TABLES=${TABLES:-4}
ROWS=${ROWS:-10000}
SPORT=${SPORT:-3941}
RPORT=${RPORT:-3942}
BASE=${BASE:-/tmp/replica-lag}
POOL=${POOL:-512M}
# The replica's buffer pool (smaller than the data: an I/O-bound replica).
RPOOL=${RPOOL:-$POOL}
WORKERS=${WORKERS:-4}
DELAY=${DELAY:-0}

rm -rf "$BASE"
mkdir -p "$BASE"
start_replica_pair "$BASE/source" "$POOL" "$RPOOL" "$WORKERS" "$DELAY"

rsql() { mariadb -h127.0.0.1 -P"$RPORT" -uroot -proot "$@"; }

rsql -e "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=$SPORT, SOURCE_USER='root',
         SOURCE_PASSWORD='root', SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4, SOURCE_CONNECT_RETRY=1;
         START REPLICA"
sbtest_user "$SPORT"
SB=(sysbench oltp_write_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$SPORT"
    --mysql-user=sbtest --mysql-password=sbtest --tables="$TABLES" --table-size="$ROWS")
"${SB[@]}" prepare >"$BASE/prepare.log"

caught_up() {
  local f p
  read -r f p < <(mariadb -h127.0.0.1 -P"$SPORT" -uroot -proot -N -e 'SHOW MASTER STATUS' | awk '{print $1, $2}')
  [[ "$(replica_status Relay_Source_Log_File)" == "$f" && "$(replica_status Exec_Source_Log_Pos)" == "$p" ]]
}
until caught_up; do sleep 1; done
echo "prepared and replicated; running oltp_write_only for ${TIME}s with $THREADS threads; replica workers: $WORKERS"

"${SB[@]}" --threads="$THREADS" --time="$TIME" --report-interval=10 run >"$BASE/run.log" &
SB_PID=$!
echo "second seconds_behind unapplied_bytes"
t=0
while kill -0 "$SB_PID" 2>/dev/null; do
  sleep 1
  t=$((t + 1))
  read_pos=$(replica_status Read_Source_Log_Pos)
  exec_pos=$(replica_status Exec_Source_Log_Pos)
  same=$([[ "$(replica_status Source_Log_File)" == "$(replica_status Relay_Source_Log_File)" ]] && echo 1 || echo 0)
  behind=$(replica_status Seconds_Behind_Source)
  if [[ $same == 1 ]]; then echo "$t $behind $((read_pos - exec_pos))"; else echo "$t $behind (rotated)"; fi
done
grep -E 'transactions:|queries:' "$BASE/run.log"
start=$(date +%s.%N)
until caught_up; do sleep 0.2; done
echo "caught up $(echo "$(date +%s.%N) - $start" | bc) s after the load ended"
rsql -e 'SHOW REPLICA STATUS\G' | grep -E 'Running|Errno|Behind'
