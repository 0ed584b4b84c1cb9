#!/usr/bin/env bash
# Many topics on one broker (docs/benchmarks.md): builds bin/, starts a fresh name server and broker
# on free loopback ports, creates TOPICS topics of QUEUES queues, sends one message to every queue,
# reads every queue back, and measures consume queue disk use, RssAnon, open fds and mappings, the
# SIGTERM stop, and the restart to ready after a clean stop and after kill -9. Prints a table.
#   scripts/scale.sh                      # 10,000 topics x 8 queues
#   TOPICS=1000 scripts/scale.sh          # a smaller run
#   scripts/scale.sh -commitlog-gib 10    # instead: kill -9 restart with a 10 GiB CommitLog
# Extra arguments go to the tool (scripts/scale, go run ./scripts/scale -h).
set -eu
cd "$(dirname "$0")/.."
go build -o bin/ ./cmd/...
go build -o bin/scale ./scripts/scale
exec bin/scale -bin bin -topics "${TOPICS:-10000}" -queues "${QUEUES:-8}" "$@"
