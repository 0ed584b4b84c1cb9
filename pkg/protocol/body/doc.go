// Package body holds the JSON bodies of RocketMQ remoting commands with Java's key names:
// routes (TopicRouteData, ClusterInfo), heartbeats, lock bodies, the broker's config wrappers
// (topics.json, subscriptionGroup.json, consumerOffset.json), RegisterBrokerBody in its JSON and
// zlib forms, and the statistics bodies keyed by MessageQueue; and the Java-properties text that
// the config requests carry (ParseProperties, EncodeProperties).
//
// Encoders write compact JSON with empty collections rather than null, because clients parse some
// bodies by hand: the Go client splits TopicRouteData's brokerAddrs text on ',' and ':' and panics
// when brokerAddrs or queueDatas are missing (protocol.md §3.10). BrokerAddrs are always written
// as {"0":"ip:port"}.
//
// Decoders accept what Java's fastjson writes besides standard JSON: unquoted numeric keys
// ({0:"ip:port"}, consumerOffset.json's {"T@G":{0:12}}) and MessageQueue objects used as keys
// (ConsumeStats, TopicStatsTable, ResetOffsetBody). Normalize rewrites both into standard JSON
// before encoding/json sees the text. Heartbeats from the Go client carry codeSet as strings and
// subVersion in nanoseconds; CodeSet and Int64 accept strings and numbers.
//
// The package uses the standard library only.
package body
