// Package cluster starts real mqnamesrv and mqbroker binaries on free loopback ports for the
// end-to-end tests in test/e2e, and speaks just enough of RocketMQ's remoting protocol to see
// when they are ready and to read back what a test needs (routes, consumer offsets, queue offsets,
// raw pulls).
//
// A Cluster belongs to one test: Start writes namesrv.conf and broker.conf into t.TempDir(),
// starts the processes with their output captured to files there, waits until the nameserver
// answers and every broker's registration is visible through it, and registers a t.Cleanup that
// stops them with SIGTERM (a process that does not exit cleanly fails the test) and prints the
// tail of every log when the test failed.
//
// The binaries are looked up in <repo>/bin, where <repo> is the nearest directory above the
// working directory holding go.mod; `make build` (and `make test-e2e`) put them there. A missing
// binary fails the test: an end-to-end suite that skips cannot fail.
package cluster
