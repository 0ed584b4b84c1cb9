#!/usr/bin/env bash
# Side by side with NATS JetStream (docs/benchmarks.md): builds our binaries, tools/stubbroker,
# tools/goclientbench and tools/benchcompare into bin/, and nats-server (v2.15.2 from the Go module
# proxy) with natsbench into bin/nats/ from tools/benchcompare/natsbench, a Go module of its own, so
# that the product's go.mod never gains NATS. Then runs every load one after another and rewrites
# the bench-compare section of docs/benchmarks.md with the table (also printed).
#   scripts/bench-compare.sh                       # the full run (a few minutes)
#   scripts/bench-compare.sh -messages 50000 -doc ''   # a short run that leaves the doc alone
# Extra arguments go to bin/benchcompare (go run ./tools/benchcompare -h).
set -eu
cd "$(dirname "$0")/.."
go build -o bin/ ./cmd/...
go build -o bin/ ./tools/stubbroker ./tools/goclientbench ./tools/benchcompare
mkdir -p bin/nats
(cd tools/benchcompare/natsbench && go build -o ../../../bin/nats/natsbench . &&
  go build -o ../../../bin/nats/nats-server github.com/nats-io/nats-server/v2)
exec bin/benchcompare -bin bin -nats-bin bin/nats -doc docs/benchmarks.md "$@"
