// Package metrics holds the Prometheus side of the servers: a registry per server instance (no
// global registry, no init registration, so a master and a slave can share one test process), the
// HTTP exporter serving /metrics, and the broker's metric set under RocketMQ 5's names
// (rocketmq_messages_in_total, rocketmq_rpc_latency, rocketmq_storage_size, ...).
//
// Every series carries the labels cluster, node_type and node_id (plus metricsLabel extras), as
// RocketMQ 5 exports them. Counters on the hot path are cached per topic (and group, or request
// code) after their first use, so MessagesIn, MessagesOut and ObserveRPC do not allocate. Values
// the broker already keeps elsewhere (topic count, store size, connections) are read through
// callbacks at scrape time. All methods of a nil *Broker or *RPC do nothing, so a server with
// metrics disabled may pass nil.
package metrics
