package broker

// HeldPulls is the number of pulls long polling holds; tests wait on it to know a pull is parked.
func (b *Broker) HeldPulls() int { return b.holds.Held() }
