#!/usr/bin/env bash
# Many topics on one broker (docs/benchmarks.md): builds bin/, starts a fresh name server and broker
# on free loopback ports, creates TOPICS topics of QUEUES queues, sends one message to every queue,
# reads every queue back, and measures consume queue disk use, RssAnon, open fds and mappings, the
# SIGTERM stop, and the restart to ready after a clean stop and after kill -9. Prints a table.
#   scripts/scale.sh                      # 10,000 topics x 8 queues
#   TOPICS=1000 scripts/scale.sh          # a smaller run
#   scripts/scale.sh -commitlog-gib 10    # instead: kill -9 restart with a 10 GiB CommitLog
#   CONNECTIONS=10000 scripts/scale.sh    # instead: 10,000 heartbeating client connections, with a
#                                         # probe's send and pull latency and memory per connection
# Extra arguments go to the tool (scripts/scale, go run ./scripts/scale -h). The open-file limit is
# raised to the hard limit (the tool and the broker each hold one fd per connection).
set -eu
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ -n "${CONNECTIONS:-}" ] && [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((CONNECTIONS + 1000)) ]; then
  echo "scale.sh: ulimit -n is $(ulimit -n), too low for $CONNECTIONS connections (raise the hard limit)" >&2
  exit 1
fi
go build -o bin/ ./cmd/...
go build -o bin/scale ./scripts/scale
if [ -n "${CONNECTIONS:-}" ]; then
  exec bin/scale -bin bin -connections "$CONNECTIONS" "$@"
fi
exec bin/scale -bin bin -topics "${TOPICS:-10000}" -queues "${QUEUES:-8}" "$@"
