#!/usr/bin/env bash
# Runs a name server and a broker in the foreground (`make run`), every line of their logs tagged
# [namesrv] or [broker]. Ctrl-C, or SIGINT/SIGTERM to this script, stops the broker, waits until it
# has closed its store, then stops the name server; a second Ctrl-C changes nothing.
#
# The servers run in process groups of their own (set -m), so the terminal's SIGINT, which goes
# to the whole foreground process group, reaches make and this script but not them: the script
# alone decides the order. The taggers ignore SIGINT, SIGTERM and SIGHUP, so that the broker's
# last lines are not lost (and never written to a closed pipe) while it shuts down.
#
# Environment (defaults for `make run`): BIN=./bin, NAMESRV_CONF=configs/namesrv.conf,
# BROKER_CONF=configs/broker.conf; extra arguments in NAMESRV_ARGS and BROKER_ARGS.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-./bin}
NAMESRV_CONF=${NAMESRV_CONF:-configs/namesrv.conf}
BROKER_CONF=${BROKER_CONF:-configs/broker.conf}
mkdir -p data

# tag prefixes every line it reads with [$1]; it outlives the signals that stop the servers.
tag() {
  trap '' INT TERM HUP
  while IFS= read -r line || [ -n "$line" ]; do printf '[%s] %s\n' "$1" "$line"; done
}

set -m
# shellcheck disable=SC2086 # NAMESRV_ARGS and BROKER_ARGS are word lists
"$BIN/mqnamesrv" -c "$NAMESRV_CONF" ${NAMESRV_ARGS:-} > >(tag namesrv) 2>&1 &
ns=$!
# shellcheck disable=SC2086
"$BIN/mqbroker" -c "$BROKER_CONF" ${BROKER_ARGS:-} > >(tag broker) 2>&1 &
br=$!
set +m

stopping=0
stop() {
  [ "$stopping" = 1 ] && return
  stopping=1
  trap '' INT TERM
  echo "[run-local] stopping the broker (pid $br), then the name server (pid $ns)"
  kill -TERM "$br" 2>/dev/null
  wait "$br"
  brc=$?
  kill -TERM "$ns" 2>/dev/null
  wait "$ns"
  nrc=$?
  wait # for the taggers' last lines
  echo "[run-local] stopped (broker exit status $brc, name server exit status $nrc)"
  [ "$brc" = 0 ] && [ "$nrc" = 0 ]
  exit
}
trap stop INT TERM
echo "[run-local] mqnamesrv (pid $ns) -c $NAMESRV_CONF, mqbroker (pid $br) -c $BROKER_CONF; Ctrl-C stops the broker, then the name server"
if [ "$NAMESRV_CONF" = configs/namesrv.conf ] && [ "$BROKER_CONF" = configs/broker.conf ]; then
  echo "[run-local] name server on 127.0.0.1:9876, broker on 10911; /metrics, /healthz and /readyz on :5557 (broker) and :5558 (name server)"
fi
# Stop both when either exits on its own.
wait -n "$ns" "$br"
stop
