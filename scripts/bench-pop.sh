#!/usr/bin/env bash
# POP consume beside PULL consume (docs/benchmarks.md): a fresh nameserver and broker from bin/,
# MESSAGES messages of SIZE bytes produced once, then read three ways by three groups, each from
# the start: PULL (mqbench consume), POP with an ACK_MESSAGE per message (mqbench pop), POP with a
# BATCH_ACK_MESSAGE per answer (mqbench pop --pop-ack batch). Each report has the broker's CPU per
# message.
#   scripts/bench-pop.sh ASYNC_FLUSH|SYNC_FLUSH
set -eu
cd "$(dirname "$0")/.."
FLUSH=${1:-ASYNC_FLUSH}
MESSAGES=${MESSAGES:-100000}; SIZE=${SIZE:-1024}
NSPORT=${NSPORT:-19876}; BRPORT=${BRPORT:-20911}
D=$(mktemp -d /tmp/rocketgo-bench.XXXXXX)
cat > "$D/namesrv.conf" <<C
listenPort=$NSPORT
kvConfigPath=$D/kvConfig.json
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
B="bin/mqbench -n 127.0.0.1:$NSPORT --broker-pid $BR --progress 0 --topic PopBench"
echo "# flush $FLUSH, broker pid $BR, load $(cut -d' ' -f1-3 /proc/loadavg)"
$B produce --create-topic --queues 8 --messages "$MESSAGES" --size "$SIZE" --concurrency 4 --window 256
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
$B consume --group bench_pull --from-committed
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
$B pop --group bench_pop_single --pull-batch 32 --pull-window 8
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
$B pop --group bench_pop_batch --pull-batch 32 --pull-window 8 --pop-ack batch
