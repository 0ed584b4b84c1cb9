#!/usr/bin/env bash
# Runs mqbench against a fresh nameserver and broker from bin/ and stops both afterwards.
#   scripts/bench.sh ASYNC_FLUSH|SYNC_FLUSH [mqbench args...]
# Default mqbench args: both --messages 200000 --size 1024 --concurrency 4 --window 256.
# mqbench writes its progress lines to stderr and its report to stdout.
set -eu
cd "$(dirname "$0")/.."
FLUSH=${1:-ASYNC_FLUSH}; shift || true
[ $# -gt 0 ] || set -- both --topic BenchTopic --messages 200000 --size 1024 --concurrency 4 --window 256
NSPORT=${NSPORT:-19876}; BRPORT=${BRPORT:-20911}
D=$(mktemp -d /tmp/rocketgo-bench.XXXXXX)
cat > "$D/namesrv.conf" <<C
listenPort=$NSPORT
kvConfigPath=$D/kvConfig.json
metricsExporterType=DISABLE
C
cat > "$D/broker.conf" <<C
brokerClusterName=BenchCluster
brokerName=bench-a
brokerId=0
brokerIP1=127.0.0.1
listenPort=$BRPORT
haListenPort=$((BRPORT+1))
storePathRootDir=$D/store
flushDiskType=$FLUSH
C
bin/mqnamesrv -c "$D/namesrv.conf" > "$D/namesrv.log" 2>&1 & NS=$!
for _ in $(seq 1 100); do (echo > /dev/tcp/127.0.0.1/$NSPORT) 2>/dev/null && break; sleep 0.1; done
bin/mqbroker -c "$D/broker.conf" -n 127.0.0.1:$NSPORT > "$D/broker.log" 2>&1 & BR=$!
trap 'kill -TERM $BR $NS 2>/dev/null; wait $BR $NS 2>/dev/null; rm -rf "$D"' EXIT
for _ in $(seq 1 100); do
  bin/mqbench produce -n 127.0.0.1:$NSPORT --topic ReadyCheck --messages 1 --size 1 --timeout 2s --request-timeout 2s >/dev/null 2>&1 && break
  sleep 0.2
done
echo "# flush $FLUSH, broker pid $BR, load $(cut -d' ' -f1-3 /proc/loadavg)"
bin/mqbench -n 127.0.0.1:$NSPORT --broker-pid $BR "$@"
