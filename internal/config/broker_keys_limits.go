package config

// RequestLimitKeys are the keys of this implementation that bound what one request or one connection
// may make the broker hold or create (docs/security.md §4).
type RequestLimitKeys struct {
	LongPollingMaxSuspendMillis     Millis
	LongPollingMaxHeld              int
	LongPollingMaxHeldPerConnection int
	MaxNewGroupsPerRequest          int
	MaxNewGroupsPerConnection       int
	MaxNewTopicsPerConnection       int
}

func requestLimitKeys() []brokerKey {
	return section("Request limits",
		brokerKey{name: "longPollingMaxSuspendMillis", origin: ours, def: "30000", check: positive,
			doc: "Longest a pull is held, whatever `suspendTimeoutMillis` it asks (clients ask 15-20 s); " +
				"likewise a POP or NOTIFICATION, whatever its `pollTime`.",
			field: func(c *Broker) any { return &c.LongPollingMaxSuspendMillis },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Limits.MaxSuspendTimeout = c.LongPollingMaxSuspendMillis.Duration()
			}},
		brokerKey{name: "longPollingMaxHeld", origin: ours, def: "100000", check: positive,
			doc:   "Most pulls held at once; beyond it a pull is answered SYSTEM_BUSY.",
			field: func(c *Broker) any { return &c.LongPollingMaxHeld },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Limits.MaxHeldPulls = c.LongPollingMaxHeld }},
		brokerKey{name: "longPollingMaxHeldPerConnection", origin: ours, def: "10000", check: positive,
			doc: "Most pulls one connection may have held; beyond it SYSTEM_BUSY. As many POPs and " +
				"NOTIFICATIONs besides; beyond them POLLING_FULL. A closed connection's held requests are dropped.",
			field: func(c *Broker) any { return &c.LongPollingMaxHeldPerConnection },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Limits.MaxHeldPullsPerConnection = c.LongPollingMaxHeldPerConnection
			}},
		brokerKey{name: "maxNewGroupsPerRequest", origin: ours, def: "100", check: positive,
			doc:   "Most consumer groups one heartbeat may create; a heartbeat naming more new ones is refused.",
			field: func(c *Broker) any { return &c.MaxNewGroupsPerRequest },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Limits.MaxNewGroupsPerRequest = c.MaxNewGroupsPerRequest }},
		brokerKey{name: "maxNewGroupsPerConnection", origin: ours, def: "1000", check: positive,
			doc:   "Most consumer groups one connection may create (heartbeats, pulls, send-backs) while it lasts.",
			field: func(c *Broker) any { return &c.MaxNewGroupsPerConnection },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Limits.MaxNewGroupsPerConnection = c.MaxNewGroupsPerConnection
			}},
		brokerKey{name: "maxNewTopicsPerConnection", origin: ours, def: "1000", check: positive,
			doc:   "Most topics one connection may create by sending to them (`autoCreateTopicEnable`) while it lasts.",
			field: func(c *Broker) any { return &c.MaxNewTopicsPerConnection },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Limits.MaxNewTopicsPerConnection = c.MaxNewTopicsPerConnection
			}},
	)
}
