// Package broker wires a RocketMQ broker together: the message store, the topic, group, offset and
// client managers, long polling, the request handlers on a remoting server, metrics, and the
// nameserver registrar. It owns their lifecycle; it holds no logic of its own beyond the order in
// which things start and stop.
package broker
