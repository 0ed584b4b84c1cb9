#!/usr/bin/env bash
# Runs mqbench against a fresh nameserver and broker from bin/ and stops both afterwards.
#   scripts/bench.sh ASYNC_FLUSH|SYNC_FLUSH [mqbench args...]
# Default mqbench args: both --messages 200000 --size 1024 --concurrency 4 --window 256.
# mqbench writes its progress lines to stderr and its report to stdout.
# BIN (default bin) is where the binaries are, so that two builds can be compared in one run;
# BROKER_FLAGS are added to mqbroker's command line (e.g. --pprof-addr 127.0.0.1:6060);
# BROKER_CONF lines are appended to broker.conf.
set -eu
cd "$(dirname "$0")/.."
FLUSH=${1:-ASYNC_FLUSH}; shift || true
[ $# -gt 0 ] || set -- both --topic BenchTopic --messages 200000 --size 1024 --concurrency 4 --window 256
BIN=${BIN:-bin}
NSPORT=${NSPORT:-19876}; BRPORT=${BRPORT:-20911}; METRICSPORT=${METRICSPORT:-$((BRPORT+2))}
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
metricsExporterType=PROM
metricsPromExporterPort=$METRICSPORT
${BROKER_CONF:-}
C
"$BIN"/mqnamesrv -c "$D/namesrv.conf" > "$D/namesrv.log" 2>&1 & NS=$!
for _ in $(seq 1 100); do (echo > /dev/tcp/127.0.0.1/$NSPORT) 2>/dev/null && break; sleep 0.1; done
"$BIN"/mqbroker ${BROKER_FLAGS:-} -c "$D/broker.conf" -n 127.0.0.1:$NSPORT > "$D/broker.log" 2>&1 & BR=$!
trap 'kill -TERM $BR $NS 2>/dev/null; wait $BR $NS 2>/dev/null; rm -rf "$D"' EXIT
for _ in $(seq 1 100); do
  "$BIN"/mqbench produce -n 127.0.0.1:$NSPORT --topic ReadyCheck --messages 1 --size 1 --timeout 2s --request-timeout 2s >/dev/null 2>&1 && break
  sleep 0.2
done
# syncs counts the CommitLog's fdatasyncs (the flush histogram's count) from the broker's metrics.
syncs() { curl -s "http://127.0.0.1:$METRICSPORT/metrics" | awk '/^rocketgo_store_commitlog_flush_seconds_count/ {c=$2} /^rocketgo_store_commitlog_flush_seconds_sum/ {s=$2} END {printf "%d %.6f", c, s}'; }
echo "# flush $FLUSH, broker pid $BR, load $(cut -d' ' -f1-3 /proc/loadavg)"
read -r C0 T0 <<<"$(syncs)"
"$BIN"/mqbench -n 127.0.0.1:$NSPORT --broker-pid $BR "$@"
read -r C1 T1 <<<"$(syncs)"
awk -v c="$((C1-C0))" -v t0="$T0" -v t1="$T1" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "# commitlog syncs during the run: %d, mean %.3f ms each; load %s\n", c, c ? (t1-t0)*1000/c : 0, load }'
