// Command benchcompare is make bench-compare (docs/benchmarks.md, "Side by side with NATS
// JetStream"): on this machine, one after another in one run, it puts the same pipelined load on
// our broker (bin/mqbroker, ASYNC_FLUSH then SYNC_FLUSH), on tools/stubbroker (a broker that
// stores nothing) and on nats-server with JetStream (default, then sync_interval: always), and
// writes the figures as a Markdown table into docs/benchmarks.md between the markers of its
// section.
//
// Our side of the load is mqbench (tools/mqbench) and the official Go client (tools/goclientbench);
// the NATS side is natsbench (tools/benchcompare/natsbench, a Go module of its own). Servers run on
// free loopback ports with fresh data directories. Around every load it reads the server's CPU
// time (utime+stime of /proc/PID/stat), the flush requests the data directory's block device
// completed (/proc/diskstats) and, for our broker, the CommitLog syncs it counted
// (rocketgo_store_commitlog_flush_seconds_count on /metrics); after the first produce it reads
// RssAnon and RssFile from /proc/PID/status. "mqbench fdatasync" measures the device's own sync
// latency in the same data directory.
package main
