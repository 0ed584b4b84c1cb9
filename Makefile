# Build, run and test the RocketMQ-compatible nameserver and broker.
GO       ?= go
BIN      := bin
PKGS     := ./...
FUZZTIME ?= 20s
# What --version prints: `git describe` (a tag, or the commit when there is none; -dirty for
# uncommitted changes) and the full commit. A plain `go build` prints what the Go build info says.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X github.com/rocketgo/rocketgo/internal/version.version=$(VERSION) \
            -X github.com/rocketgo/rocketgo/internal/version.commit=$(COMMIT)

.PHONY: usage build run test test-unit test-e2e test-java test-interop test-crash test-alions lint fmt vet fuzz bench bench-scale bench-scale-connections bench-compare clean

usage:
	@echo "make build | run | test | test-unit | test-e2e | test-java | test-interop | test-crash | test-alions | lint | fuzz | bench | bench-scale | bench-scale-connections | bench-compare | clean"

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

## run: nameserver on 9876 and broker on 10911 from configs/, data under ./data; Ctrl-C stops both.
run: build
	./deploy/run-local.sh

## test: vet, unit tests with the race detector, end-to-end tests against the real binaries, then the
## official Java clients against them.
test: vet test-unit test-e2e test-java

test-unit:
	$(GO) test -race -count=1 -timeout 12m $$($(GO) list ./... | grep -v /test/)

test-e2e: build
	$(GO) test -count=1 -timeout 12m ./test/...

## test-java: the official Java clients 4.9.8 and 5.3.3 (Maven, test/java) against the binaries;
## needs java 17+ and mvn, and Maven Central the first time (see docs/java.md).
test-java: build
	JAVA_SUITE=1 $(GO) test -count=1 -timeout 20m -v -run TestJavaClients ./test/java/

## test-interop: Apache's own name server and broker (4.9.7 and 5.3.3, Maven Central, test/interop)
## beside ours: mixed clusters, replication both ways, the store moved both ways; needs java 17+ and
## mvn, and Maven Central the first time (see docs/migration.md). CI runs it after make test.
test-interop: build
	INTEROP=1 $(GO) test -count=1 -timeout 30m -parallel 2 -v ./test/interop/

## test-crash: the long kill -9 run (30+ cycles) in both flush modes.
test-crash: build
	CRASH_CYCLES=30 $(GO) test -count=1 -timeout 60m -run 'Crash' -v ./test/crash/...

## test-alions: produce and consume with the Node client ali-ons (needs node and npm).
test-alions: build
	cd test/alions && ALIONS=1 $(GO) test -count=1 -v .

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## fuzz: every fuzz target for FUZZTIME each.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

## bench: Go benchmarks for the codec and store, then an mqbench run (see docs/benchmarks.md).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/... ./internal/store/...

## bench-scale: one broker with TOPICS (10000) topics x QUEUES (8) queues: disk, memory, fds, stop and restart times.
bench-scale:
	./scripts/scale.sh

## bench-scale-connections: one broker with CONNECTIONS (10000) heartbeating client connections: a probe's
## send and pull latency meanwhile, memory per connection.
bench-scale-connections:
	CONNECTIONS=$${CONNECTIONS:-10000} ./scripts/scale.sh

## bench-compare: our broker, a no-op stub broker and NATS JetStream (built from the Go module proxy)
## under the same pipelined load, one after another; rewrites the table in docs/benchmarks.md.
bench-compare:
	./scripts/bench-compare.sh

clean:
	rm -rf $(BIN) data
