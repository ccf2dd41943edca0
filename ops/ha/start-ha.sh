#!/usr/bin/env bash
# Starts a two-node PostgreSQL cluster under Patroni on loopback, for trying failover on one machine
# and for test/failover/: one etcd member (Patroni's lock), a primary and a synchronous standby each
# run by its own Patroni, and HAProxy sending clients to whichever node Patroni's REST API calls the
# primary. Debian's packages: patroni, etcd-server, haproxy, postgresql-15 (docs/operations.md,
# "Database failover"). Production runs three etcd members and each node on its own machine.
#
#   ops/ha/start-ha.sh DIR [BASE_PORT]     (BASE_PORT defaults to 9600)
#
# Ports, from BASE_PORT: +0 etcd clients, +1 etcd peers, +10/+11 PostgreSQL of node1/node2,
# +20/+21 Patroni REST API of node1/node2, +30 HAProxy to the primary (DATABASE_URL points here),
# +31 HAProxy's statistics page. Everything lives in DIR (configs, data, logs, pid files); stop it
# all with ops/ha/stop-ha.sh DIR. node1 starts first and becomes the primary.
set -euo pipefail

DIR=${1:?usage: start-ha.sh DIR [BASE_PORT]}
BASE=${2:-9600}
HERE=$(cd "$(dirname "$0")" && pwd)
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
# Patroni's timing: the loop runs every LOOP_WAIT seconds, the leader lock lives TTL seconds.
LOOP_WAIT=${HA_LOOP_WAIT:-1}
TTL=${HA_TTL:-20}

for tool in etcd patroni haproxy curl pg_isready "$PG_BIN/postgres" "$PG_BIN/pg_rewind"; do
  command -v "$tool" >/dev/null || { echo "start-ha: $tool is missing (apt-get install patroni etcd-server haproxy curl)" >&2; exit 2; }
done

# A cluster left running (a test that was killed) would hold the ports: say so rather than half-start.
for port in $BASE $((BASE + 1)) $((BASE + 10)) $((BASE + 11)) $((BASE + 20)) $((BASE + 21)) $((BASE + 30)) $((BASE + 31)); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "start-ha: 127.0.0.1:$port is in use (an earlier cluster? ops/ha/stop-ha.sh its DIR)" >&2
    exit 3
  fi
done

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
# initdb refuses root: as root, PostgreSQL and Patroni run as the postgres user.
if [ "$(id -u)" = 0 ]; then
  PG_USER=postgres
  as_pg() { runuser -u postgres -- "$@"; }
else
  PG_USER=$(id -un)
  as_pg() { "$@"; }
fi

wait_http() { # url, expected status, seconds
  local url=$1 want=$2 seconds=$3
  for _ in $(seq 1 $((seconds * 10))); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)" = "$want" ] && return 0
    sleep 0.1
  done
  echo "start-ha: $url did not answer $want within ${seconds}s (logs in $DIR)" >&2
  return 1
}

# --- etcd: the distributed configuration store holding Patroni's leader lock -------------------
mkdir -p "$DIR/etcd"
nohup etcd --name ha --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$BASE" --advertise-client-urls "http://127.0.0.1:$BASE" \
  --listen-peer-urls "http://127.0.0.1:$((BASE + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((BASE + 1))" \
  --initial-cluster "ha=http://127.0.0.1:$((BASE + 1))" --initial-cluster-state new \
  </dev/null >"$DIR/etcd.log" 2>&1 &
echo $! >"$DIR/etcd.pid"
wait_http "http://127.0.0.1:$BASE/health" 200 20

# --- Patroni, one per node ------------------------------------------------------------------
node_config() { # name, index
  local name=$1 i=$2
  sed -e "s|@NAME@|$name|g" -e "s|@DIR@|$DIR|g" -e "s|@PG_BIN@|$PG_BIN|g" \
    -e "s|@ETCD_PORT@|$BASE|g" -e "s|@PG_PORT@|$((BASE + 10 + i))|g" -e "s|@REST_PORT@|$((BASE + 20 + i))|g" \
    -e "s|@LOOP_WAIT@|$LOOP_WAIT|g" -e "s|@TTL@|$TTL|g" \
    "$HERE/patroni.yml.in" >"$DIR/$name.yml"
}
start_node() { # name
  local name=$1
  mkdir -p "$DIR/$name"
  chmod 700 "$DIR/$name"
  chown -R "$PG_USER" "$DIR/$name" "$DIR/$name.yml"
  # The pid file holds Patroni's own pid (exec), so stop-ha.sh and the test signal Patroni itself.
  as_pg sh -c 'echo $$ > "$1/$2.pid"; exec patroni "$1/$2.yml" >> "$1/$2.log" 2>&1' sh "$DIR" "$name" </dev/null >/dev/null 2>&1 &
}
chown "$PG_USER" "$DIR"
node_config node1 0
node_config node2 1
start_node node1
wait_http "http://127.0.0.1:$((BASE + 20))/primary" 200 60
start_node node2
# The standby is streaming and Patroni has made it the synchronous one.
wait_http "http://127.0.0.1:$((BASE + 21))/sync" 200 90

# --- HAProxy: clients reach the node whose Patroni answers /primary with 200 -----------------
sed -e "s|@DIR@|$DIR|g" -e "s|@BASE@|$BASE|g" \
  -e "s|@PG1@|$((BASE + 10))|g" -e "s|@PG2@|$((BASE + 11))|g" \
  -e "s|@REST1@|$((BASE + 20))|g" -e "s|@REST2@|$((BASE + 21))|g" \
  -e "s|@PRIMARY_PORT@|$((BASE + 30))|g" -e "s|@STATS_PORT@|$((BASE + 31))|g" \
  "$HERE/haproxy.cfg.in" >"$DIR/haproxy.cfg"
haproxy -c -q -f "$DIR/haproxy.cfg"
haproxy -D -p "$DIR/haproxy.pid" -f "$DIR/haproxy.cfg" </dev/null >"$DIR/haproxy.log" 2>&1
# HAProxy counts a server UP until its checks say otherwise: wait until they have, and exactly one
# node (the primary) is UP, so that nothing connects to the standby through it.
up_servers() {
  curl -s "http://127.0.0.1:$((BASE + 31))/;csv" | awk -F, '$1 == "primary" && $2 ~ /^node/ { print $2 " " $18 }'
}
for _ in $(seq 1 100); do
  [ "$(up_servers | grep -c ' UP$')" = 1 ] && [ "$(up_servers | grep -c ' DOWN$')" = 1 ] && break
  sleep 0.1
done
[ "$(up_servers | grep -c ' UP$')" = 1 ] || { echo "start-ha: HAProxy does not see one primary: $(up_servers | tr '\n' ' ')" >&2; exit 1; }
pg_isready -q -h 127.0.0.1 -p $((BASE + 30)) -t 10

echo "primary via HAProxy: postgres://postgres@127.0.0.1:$((BASE + 30))/postgres"
echo "patronictl -c $DIR/node1.yml list"
