#!/usr/bin/env bash
# How long a fresh quire replica takes to apply a quire source's whole
# binary log (issue 17 item 5): the source is started on an existing
# datadir SRC (for example the source of a scripts/replica-lag.sh run,
# /tmp/replica-lag/source), idle; a new replica with
# replica_parallel_workers=WORKERS and buffer pool RPOOL replicates from
# binlog.000001:4 until it reaches the source's SHOW MASTER STATUS.
# Prints the time and the replica's CPU time.
#
#   QUIRE=target/release/quire SRC=/tmp/replica-lag/source WORKERS=4 RPOOL=16M scripts/replica-catchup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/server.sh
. scripts/lib/replica.sh

QUIRE=${QUIRE:-target/release/quire}
SRC=${SRC:?the source datadir}
WORKERS=${WORKERS:-4}
RPOOL=${RPOOL:-16M}
SPORT=${SPORT:-3951}
RPORT=${RPORT:-3952}
BASE=${BASE:-/tmp/replica-catchup}

rm -rf "$BASE"
mkdir -p "$BASE"
start_replica_pair "$SRC" 512M "$RPOOL" "$WORKERS"

read -r f p < <(mariadb -h127.0.0.1 -P"$SPORT" -uroot -proot -N -e 'SHOW MASTER STATUS' | awk '{print $1, $2}')
t0=$(date +%s.%N)
mariadb -h127.0.0.1 -P"$RPORT" -uroot -proot -e "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1',
  SOURCE_PORT=$SPORT, SOURCE_USER='root', SOURCE_PASSWORD='root', SOURCE_LOG_FILE='binlog.000001',
  SOURCE_LOG_POS=4; START REPLICA"
until [[ "$(replica_status Relay_Source_Log_File)" == "$f" && "$(replica_status Exec_Source_Log_Pos)" -ge "$p" ]]; do
  sleep 0.5
  [[ "$(replica_status Last_SQL_Errno)" == 0 ]] || { replica_status Last_SQL_Error; exit 1; }
done
t1=$(date +%s.%N)
cpu=$(awk '{print ($14 + $15) / 100}' "/proc/$RPID/stat")
echo "workers=$WORKERS rpool=$RPOOL caught up in $(echo "$t1 - $t0" | bc) s; replica CPU ${cpu} s"
