// Package namesrv is a RocketMQ name server: the registry that brokers register with and that
// clients ask for topic routes.
//
// RouteInfoManager is the state, free of network types: clusters, broker groups and their
// addresses (id 0 = master), each topic's queues per broker group (taken from the master's
// registration), and per broker address the last registration time, DataVersion, HA address and
// an opaque connection key. A broker leaves the table when it unregisters, when its connection
// closes, or when it has not re-registered for BrokerChannelExpiredTime (120 s by default).
//
// KVConfig is the namespaced key/value store kept in kvConfig.json; the ORDER_TOPIC_CONFIG
// namespace feeds routes' orderTopicConf and registration answers.
//
// Server puts both behind a remoting.Server. Its handlers (processor.go) read ext fields and
// bodies, call the state, and map outcomes to response codes in one function, responseFor:
// unknown topic → TOPIC_NOT_EXIST (17), missing KV item → QUERY_NOT_FOUND (22), everything else
// (bad header, bad body, CRC mismatch, not ready) → SYSTEM_ERROR (1) with the reason as remark.
// Routes are written as compact JSON with quoted broker ids, which every client parses.
package namesrv
