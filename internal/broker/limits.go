package broker

import "time"

// Limits bound what one request or one connection may make the broker hold or create
// (docs/security.md §4). Zero values take the defaults noted.
type Limits struct {
	// MaxSuspendTimeout caps the suspend timeout of a pull (longPollingMaxSuspendMillis, 30 s).
	MaxSuspendTimeout time.Duration
	// MaxHeldPulls and MaxHeldPullsPerConnection bound the pulls held at once, in total and per
	// connection (longPollingMaxHeld, 100000; longPollingMaxHeldPerConnection, 10000); beyond
	// them a pull is answered SYSTEM_BUSY.
	MaxHeldPulls              int
	MaxHeldPullsPerConnection int
	// MaxNewGroupsPerRequest bounds the consumer groups one heartbeat may create
	// (maxNewGroupsPerRequest, 100); MaxNewGroupsPerConnection and MaxNewTopicsPerConnection
	// what one connection may create while it lasts (maxNewGroupsPerConnection,
	// maxNewTopicsPerConnection, 1000 each).
	MaxNewGroupsPerRequest    int
	MaxNewGroupsPerConnection int
	MaxNewTopicsPerConnection int
}
