#!/usr/bin/env bash
# Starts a nameserver and a broker from configs/ in the foreground; Ctrl-C stops both cleanly.
set -u
cd "$(dirname "$0")/.."
mkdir -p data
./bin/mqnamesrv -c configs/namesrv.conf &
ns=$!
./bin/mqbroker -c configs/broker.conf -n 127.0.0.1:9876 &
br=$!
stop() {
  trap - INT TERM
  kill -TERM "$br" 2>/dev/null; wait "$br" 2>/dev/null
  kill -TERM "$ns" 2>/dev/null; wait "$ns" 2>/dev/null
  exit 0
}
trap stop INT TERM
echo "nameserver on 127.0.0.1:9876, broker on 10911, metrics on :5557/metrics; Ctrl-C stops both"
# Stop both if either exits on its own.
wait -n "$ns" "$br"
stop
