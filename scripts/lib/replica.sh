# Shared by the replication scripts (source it after server.sh): a durable
# quire source with its binary log and a quire replica, each on its own
# datadir and port, stopped when the script exits.

# start_replica_pair SOURCE_DATADIR SOURCE_POOL REPLICA_POOL WORKERS [DELAY]
# Uses QUIRE, BASE, SPORT, RPORT; sets SPID and RPID. The source logs with
# sync_binlog=1 and binlog_group_commit_sync_delay=DELAY (µs, default 0);
# the replica applies with replica_parallel_workers=WORKERS.
start_replica_pair() {
  quire_cnf "$BASE/source.cnf" "$1" "$SPORT" "$2"
  printf 'log_bin=ON\nsync_binlog=1\nserver_id=1\nbinlog_group_commit_sync_delay=%s\n' "${5:-0}" >>"$BASE/source.cnf"
  quire_cnf "$BASE/replica.cnf" "$BASE/replica" "$RPORT" "$3"
  printf 'server_id=2\nreplica_parallel_workers=%s\n' "$4" >>"$BASE/replica.cnf"
  "$QUIRE" serve --defaults-file="$BASE/source.cnf" --root-password=root >"$BASE/source.err" 2>&1 &
  SPID=$!
  "$QUIRE" serve --defaults-file="$BASE/replica.cnf" --root-password=root >"$BASE/replica.err" 2>&1 &
  RPID=$!
  trap 'kill $SPID $RPID 2>/dev/null || true' EXIT
  wait_sql "$SPORT" root
  wait_sql "$RPORT" root
}

# replica_status FIELD: one field of the replica's SHOW REPLICA STATUS.
replica_status() {
  mariadb -h127.0.0.1 -P"$RPORT" -uroot -proot -e 'SHOW REPLICA STATUS\G' | awk -F': ' -v k="$1" '$1 ~ "^ *"k"$" {print $2}'
}
