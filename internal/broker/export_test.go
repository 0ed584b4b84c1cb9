package broker

// HeldPulls is the number of pulls long polling holds; tests wait on it to know a pull is parked.
func (b *Broker) HeldPulls() int { return b.holds.Held() }

// ConfigWrites is the number of writes of subscriptionGroup.json and topics.json so far.
func (b *Broker) ConfigWrites() (groups, topics uint64) { return b.groups.Writes(), b.topics.Writes() }
