#!/usr/bin/env bash
# n8n and agentry on the same webhook workload in one sitting (../shared/peers/: webhook → HTTP GET → HTTP POST to a
# local echo server, autocannon with CONNECTIONS × SECONDS), n8n first, then agentry as `npm start` runs it on a
# database, data folder and port of its own (dropped and removed afterwards). Prints each side's JSON line and the
# ratio of completed runs per second.
# Usage: test/bench/peers.sh [connections] [seconds]; PEER_DIR (default /tmp/peer-n8n) keeps the n8n install (about
# 3 minutes the first time), PEERS (default ../shared/peers next to the project) names the peers' folder.
set -euo pipefail
C=${1:-50}
D=${2:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
peers=${PEERS:-$root/../shared/peers}
export PEER_DIR=${PEER_DIR:-/tmp/peer-n8n}
port=${PEERS_AGENTRY_PORT:-3300}
db=agentry_peers
data=$(mktemp -d)
log=$data/start.log
server=${PEERS_DATABASE_SERVER:-postgres://postgres@127.0.0.1:5432}

n8n=$(bash "$peers/n8n-webhook.sh" "$C" "$D" | tail -n 1)
echo "$n8n"

psql "$server/postgres" -qc "drop database if exists $db" > /dev/null
cleanup() {
  # SIGTERM to the launcher stops the API, the workers and the Temporal dev server, then itself (a background job of
  # a script ignores SIGINT).
  if [ -n "${start:-}" ]; then
    kill -TERM "$start" 2> /dev/null || true
    for _ in $(seq 1 30); do kill -0 "$start" 2> /dev/null || break; sleep 1; done
  fi
  psql "$server/postgres" -qc "drop database if exists $db" > /dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
cd "$root"
node scripts/ensure-tools.mjs
# `npm start` without npm in between, so that the signal of the cleanup reaches the launcher.
DATABASE_URL=$server/$db AGENTRY_DATA_DIR=$data PORT=$port TEMPORAL_UI_PORT=$((port + 1)) WORKER_METRICS_PORT=0 \
  TEMPORAL_SDK_METRICS_PORT=0 node --import tsx scripts/start.ts > "$log" 2>&1 &
start=$!
for _ in $(seq 1 240); do grep -q "USER key" "$log" && break; sleep 1; done
key=$(awk '/USER key/ { print $3 }' "$log")
[ -n "$key" ] || { echo "npm start printed no USER key (see $log)"; exit 1; }
agentry=$(AGENTRY_URL=http://127.0.0.1:$port AGENTRY_KEY=$key node "$peers/agentry-webhook.mjs" "$C" "$D" | tail -n 1)
echo "$agentry"
node -e '
const [n8n, agentry] = process.argv.slice(1).map((line) => JSON.parse(line));
console.log(`completed runs/s: agentry ${agentry.completed_per_s}, n8n ${n8n.completed_per_s} → ${(agentry.completed_per_s / n8n.completed_per_s).toFixed(2)}x`);
' "$n8n" "$agentry"
