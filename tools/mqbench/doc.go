// Package mqbench is the project's load generator and checker, behind
// cmd/mqbench: a RocketMQ producer and consumer built on internal/remoting
// that keeps many requests in flight per connection, so that it measures the
// broker rather than itself. It is a tool, not part of the servers: nothing
// under internal/ or pkg/ imports it.
//
// # Producing
//
// The route comes from the name server through internal/admin
// (GET_ROUTEINFO_BY_TOPIC; on TOPIC_NOT_EXIST, TBW102's route capped at 4
// queues per broker, as Java clients do, so the broker creates the topic on
// the first send), or from UPDATE_AND_CREATE_TOPIC on every master.
// Concurrency senders each keep up to Window requests in flight (a token
// channel), spread round-robin over the write queues of every master:
// SEND_MESSAGE_V2, or SEND_BATCH_MESSAGE for Batch > 1, with pkg/protocol's
// typed headers. Every message carries UNIQ_KEY and WAIT. Request commands
// are recycled once the transport has written them (reqPool), so a single
// send allocates only its properties and timestamp text, and a batch only its
// timestamp. Latency runs from handing a request to the connection to its
// response callback and goes into a log-linear Histogram; responses are
// counted by code.
//
// # Keys
//
// A UNIQ_KEY is 32 upper-case hex characters like a Java client's:
// IPv4 | pid | run nonce | 48-bit sequence number. A consumer recognises
// this run's messages by the first 20 characters and maps each back to its
// sequence number, so "both" checks every acknowledged message arrived once
// with two bytes of state per message and no key strings kept.
//
// # Consuming
//
// Each queue is read from a start offset (0, the group's committed offset,
// or where the queue ended before a "both" run) with up to PullWindow
// PULL_MESSAGE requests in flight: inside the known end, pulls go out ahead
// at offset, offset+PullBatch, ...; an answer with fewer records leaves a
// hole that is pulled again. Past the known end one long-polling pull per
// queue (SUSPEND, 5 s) waits for more. Every record is checked for its
// topic, queue, offset and body CRC.
//
// # Progress
//
// With Options.Progress set (the command: stderr, every --progress), a line
// every second says what each running phase has done so far (sent,
// acknowledged, received, failed) and its rate over the last second; the
// report at the end is written as before, to stdout.
//
// # CPU
//
// With a broker pid, utime+stime from /proc/PID/stat are read before and
// after each phase; mqbench's own CPU comes from getrusage.
//
// # The device
//
// "mqbench fdatasync --dir D" appends --size bytes to a file in D and
// fdatasyncs it, --count times, into the same Histogram as the sends: the
// device's sync latency, to set a SYNC_FLUSH send's p99 beside.
package mqbench
