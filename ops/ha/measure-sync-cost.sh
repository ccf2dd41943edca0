#!/usr/bin/env bash
# Measures what synchronous replication costs a commit: pgbench runs single-row insert transactions
# (the shape of a completion's commit) against the primary through HAProxy, once with
# synchronous_commit=on (the commit waits for the standby to flush it, as the cluster is configured)
# and once with synchronous_commit=local (the primary's own flush only), on a cluster of its own.
#
#   ops/ha/measure-sync-cost.sh [SECONDS] [CLIENTS]      (defaults: 15 s, 8 clients; ports 9650-9681)
set -euo pipefail
SECONDS_EACH=${1:-15}
CLIENTS=${2:-8}
BASE=9650
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/mrs-ha-cost-XXXXXX)
trap '"$HERE/stop-ha.sh" "$DIR" --remove' EXIT
"$HERE/start-ha.sh" "$DIR" "$BASE" >/dev/null
URL="postgres://postgres@127.0.0.1:$((BASE + 30))/postgres"
psql -q "$URL" -c 'CREATE TABLE sync_cost (id bigserial PRIMARY KEY, payload text NOT NULL)'
SCRIPT="$DIR/insert.sql"
echo "INSERT INTO sync_cost (payload) VALUES (md5(random()::text));" >"$SCRIPT"
for mode in on local on local; do
  result=$(PGOPTIONS="-c synchronous_commit=$mode" pgbench -n -c "$CLIENTS" -j 2 -T "$SECONDS_EACH" -f "$SCRIPT" "$URL" 2>&1)
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$result")
  latency=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$result")
  echo "synchronous_commit=$mode clients=$CLIENTS tps=$tps latency_avg_ms=$latency"
done
