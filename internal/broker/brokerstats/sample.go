package brokerstats

import "time"

// Start samples the counters until Close: each window on its own ticker.
func (m *Manager) Start() {
	for i, w := range windows {
		m.g.Go(func(stop <-chan struct{}) {
			t := time.NewTicker(w.step)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					m.Sample(i)
				}
			}
		})
	}
}

// Close stops the sampling.
func (m *Manager) Close() { m.g.Stop() }

// Sample records every counter's totals in window i (0 minute, 1 hour, 2 day), dropping samples
// older than the window spans.
func (m *Manager) Sample(i int) {
	now := m.now()
	m.mu.RLock()
	counters := make([]*counter, 0, 64)
	for _, t := range m.tables {
		for _, c := range t {
			counters = append(counters, c)
		}
	}
	m.mu.RUnlock()
	for _, c := range counters {
		c.record(i, sample{at: now, value: c.value.Load(), times: c.times.Load()})
	}
}

func (c *counter) record(i int, s sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := append(c.samples[i], s)
	if n := len(l) - windows[i].keep; n > 0 {
		l = append(l[:0], l[n:]...)
	}
	c.samples[i] = l
}
