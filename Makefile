# Build, run and test the RocketMQ-compatible nameserver and broker.
GO       ?= go
BIN      := bin
PKGS     := ./...
FUZZTIME ?= 20s

.PHONY: usage build run test test-unit test-e2e test-crash test-alions lint fmt vet fuzz bench bench-scale clean

usage:
	@echo "make build | run | test | test-unit | test-e2e | test-crash | test-alions | lint | fuzz | bench | bench-scale | clean"

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## run: nameserver on 9876 and broker on 10911 from configs/, data under ./data; Ctrl-C stops both.
run: build
	./deploy/run-local.sh

## test: vet, unit tests with the race detector, then end-to-end tests against the real binaries.
test: vet test-unit test-e2e

test-unit:
	$(GO) test -race -count=1 -timeout 12m $$($(GO) list ./... | grep -v /test/)

test-e2e: build
	$(GO) test -count=1 -timeout 12m ./test/...

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

clean:
	rm -rf $(BIN) data
