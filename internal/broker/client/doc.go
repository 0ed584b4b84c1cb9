// Package client tracks the producers and consumers connected to a broker: which client ids are in
// which group, over which connection, with which subscriptions. It is pure state with an injected
// clock; the broker sends NOTIFY_CONSUMER_IDS_CHANGED when a group's membership changes and removes
// a connection's memberships when it closes (the Go client never sends UNREGISTER_CLIENT).
package client
