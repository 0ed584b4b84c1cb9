package config

import "github.com/rocketgo/rocketgo/internal/broker"

// TimerKeys are the keys of timer messages and their recall (RocketMQ 5 MessageStoreConfig and
// BrokerConfig).
type TimerKeys struct {
	TimerWheelEnable                  bool
	TimerPrecisionMs                  int
	TimerMaxDelaySec                  int
	TimerRollWindowSlot               int
	TimerFlushIntervalMs              Millis
	MappedFileSizeTimerLog            int
	TimerCongestNumEachSlot           int
	RecallMessageEnable               bool
	AllowRecallWhenBrokerNotWriteable bool
}

func timerKeys() []brokerKey {
	t := func(c *Broker) *TimerKeys { return &c.TimerKeys }
	o := func(b *BrokerOptions) *broker.TimerOptions { return &b.Broker.Timer }
	return section("Timer messages (docs/timer.md)",
		brokerKey{name: "timerWheelEnable", def: "true",
			doc:   "Accept timer messages (TIMER_DELIVER_MS, TIMER_DELAY_SEC, TIMER_DELAY_MS); off, they are refused.",
			field: func(c *Broker) any { return &t(c).TimerWheelEnable },
			to:    func(c *Broker, b *BrokerOptions) { o(b).Disable = !t(c).TimerWheelEnable }},
		brokerKey{name: "timerPrecisionMs", def: "500", check: positive,
			doc: "Length of a wheel slot, rounded down to 100, 200, 500 or 1000 as Java does; a message is " +
				"delivered within this long after its time. Java's default is 1000: 500 here keeps delivery within a second.",
			field: func(c *Broker) any { return &t(c).TimerPrecisionMs },
			to:    func(c *Broker, b *BrokerOptions) { o(b).PrecisionMs = int64(t(c).TimerPrecisionMs) }},
		brokerKey{name: "timerMaxDelaySec", def: "259200", check: positive,
			doc:   "Latest delivery time accepted, in seconds from the send (3 days).",
			field: func(c *Broker) any { return &t(c).TimerMaxDelaySec },
			to:    func(c *Broker, b *BrokerOptions) { o(b).MaxDelaySec = int64(t(c).TimerMaxDelaySec) }},
		brokerKey{name: "timerRollWindowSlot", def: "172800", check: positive,
			doc: "Wheel slots ahead of the store time; a message due later is written again from the window's end. " +
				"Below 2 or above 604740 it is 604740, as in Java. The wheel holds this many slots plus 60.",
			field: func(c *Broker) any { return &t(c).TimerRollWindowSlot },
			to:    func(c *Broker, b *BrokerOptions) { o(b).RollWindowSlots = int64(t(c).TimerRollWindowSlot) }},
		brokerKey{name: "timerFlushIntervalMs", def: "1000", check: positive,
			doc:   "How often the timer log, the wheel and a checkpoint are made durable.",
			field: func(c *Broker) any { return &t(c).TimerFlushIntervalMs },
			to:    func(c *Broker, b *BrokerOptions) { o(b).FlushInterval = t(c).TimerFlushIntervalMs.Duration() }},
		brokerKey{name: "mappedFileSizeTimerLog", def: "104857600", check: positive,
			doc:   "Size of a timer log segment (a multiple of 4096).",
			field: func(c *Broker) any { return &t(c).MappedFileSizeTimerLog },
			to:    func(c *Broker, b *BrokerOptions) { o(b).LogSegmentSize = int64(t(c).MappedFileSizeTimerLog) }},
		brokerKey{name: "timerCongestNumEachSlot", def: "2147483647", check: positive,
			doc:   "A slot holding more timer messages refuses new ones at random, one holding twice as many always.",
			field: func(c *Broker) any { return &t(c).TimerCongestNumEachSlot },
			to:    func(c *Broker, b *BrokerOptions) { o(b).CongestNumEachSlot = int64(t(c).TimerCongestNumEachSlot) }},
		brokerKey{name: "recallMessageEnable",
			doc:   "Serve RECALL_MESSAGE (off by default, as in Java).",
			field: func(c *Broker) any { return &t(c).RecallMessageEnable },
			to:    func(c *Broker, b *BrokerOptions) { o(b).RecallEnable = t(c).RecallMessageEnable }},
		brokerKey{name: "allowRecallWhenBrokerNotWriteable", def: "true",
			doc:   "Serve RECALL_MESSAGE while brokerPermission forbids writes.",
			field: func(c *Broker) any { return &t(c).AllowRecallWhenBrokerNotWriteable },
			to: func(c *Broker, b *BrokerOptions) {
				o(b).DenyRecallWhenNotWriteable = !t(c).AllowRecallWhenBrokerNotWriteable
			}},
	)
}
