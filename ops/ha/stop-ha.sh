#!/usr/bin/env bash
# Stops what ops/ha/start-ha.sh DIR started (HAProxy, both Patronis with their PostgreSQL, etcd),
# by the pids it wrote, and removes DIR with --remove.
set -uo pipefail
DIR=${1:?usage: stop-ha.sh DIR [--remove]}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}

stop_pid() { # pid file, seconds to wait before SIGKILL
  local file=$1 seconds=$2 pid
  [ -f "$file" ] || return 0
  pid=$(head -n 1 "$file")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 $((seconds * 10))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

stop_pid "$DIR/haproxy.pid" 5
# Patroni stops its PostgreSQL on SIGTERM (fast shutdown).
stop_pid "$DIR/node1.pid" 20 &
stop_pid "$DIR/node2.pid" 20 &
wait
# A PostgreSQL left behind (its Patroni was killed): stop it by its own postmaster.pid.
for node in node1 node2; do
  pidfile="$DIR/$node/data/postmaster.pid"
  [ -f "$pidfile" ] || continue
  pid=$(head -n 1 "$pidfile")
  kill -QUIT "$pid" 2>/dev/null || true
done
stop_pid "$DIR/etcd.pid" 5
if [ "${2:-}" = "--remove" ]; then rm -rf "$DIR"; fi
