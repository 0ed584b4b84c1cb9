// Package processor is the broker's RocketMQ remoting adapter. Each handler decodes the request's
// typed header (and body), calls one of the protocol-neutral services under internal/broker
// (send, pull, queueoffset, membership, ...), and encodes the answer; an outcome the service
// reports becomes a response code through the one table in codes.go. Calls the services make to
// clients (rebalance notifications, relays) go out through Clients, the remoting half of them.
package processor
