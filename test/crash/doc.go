// Package crash holds kill -9 tests of the real bin/mqbroker, driven by the Go client
// rocketmq-client-go/v2 and a raw remoting client: concurrent SYNC_FLUSH (and ASYNC_FLUSH)
// producers while the broker is killed at random moments and restarted on the same store, then
// every acknowledged message is read back by queue offset, by key and by offset message id;
// messages stay findable by key and id across a kill; a consumer group keeps its place.
//
// `make test` runs a short version (CRASH_CYCLES defaults to 3); `make test-crash` runs 30 cycles
// per flush mode. CRASH_SEED fixes the random kill moments. README.md describes what each test
// asserts.
package crash
