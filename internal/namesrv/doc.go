// Package namesrv is a RocketMQ name server: the registry that brokers register with and that
// clients ask for topic routes.
//
// RouteInfoManager is the state, free of network types: clusters, broker groups and their
// addresses (id 0 = master), each topic's queues per broker group (taken from the master's
// registration), and per broker address the last registration time, DataVersion, HA address and
// the opaque keys of the connections it registered over. A broker leaves the table when it
// unregisters, when the last of those connections closes, or when it has not re-registered for
// BrokerChannelExpiredTime (120 s by default). A registration that would take over what another
// open connection registered and is alive (another address for a live brokerName/brokerId, or a
// live address under another name, id or HA address), and an unregistration from a connection
// the broker did not register over, are refused (RegistrationConflictError).
//
// KVConfig is the namespaced key/value store kept in kvConfig.json; the ORDER_TOPIC_CONFIG
// namespace feeds routes' orderTopicConf and registration answers. Values and the whole store
// are size-limited, values are logged by length and prefix only, and a change is durable before
// it is answered, concurrent changes sharing one write of the file.
//
// Server puts both behind a remoting.Server. Its handlers (processor.go) check the peer against
// the allowlists (guard.go), validate every name from the wire (names.go) and decode bodies
// within the registration caps, call the state, and map outcomes to response codes in one
// function, responseFor: unknown topic → TOPIC_NOT_EXIST (17), missing KV item → QUERY_NOT_FOUND
// (22), a peer not on an allowlist → NO_PERMISSION (16), everything else (bad header, bad body,
// invalid name, a cap exceeded, a registration conflict, CRC mismatch, not ready) → SYSTEM_ERROR
// (1) with the reason as remark.
// Routes are written as compact JSON with quoted broker ids, which every client parses.
package namesrv
