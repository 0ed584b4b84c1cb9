package remoting

// Test hooks into the frame pool and the call table.

// WatchFrameRecycling makes s overwrite every frame buffer it recycles
// (so that a use after recycling shows) and report it to recycled (may be
// nil). Call it before Start.
func WatchFrameRecycling(s *Server, recycled func(b []byte)) {
	s.bufs.poison, s.bufs.recycled = true, recycled
}

// WatchClientFrameRecycling is WatchFrameRecycling for a client; call it
// before its first call.
func WatchClientFrameRecycling(c *Client, recycled func(b []byte)) {
	c.bufs.poison, c.bufs.recycled = true, recycled
}

// CallWatches returns how many pending calls c has and how many contexts
// it watches for them, and whether its deadline timer is armed.
func CallWatches(c *Conn) (pending, watches int, timerArmed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.mu.pending), len(c.mu.calls.watches), !c.mu.calls.timerAt.IsZero()
}

// HeldFrame reports whether the unanswered request opaque on c holds its frame for a later
// WriteResponseLast.
func HeldFrame(c *Conn, opaque int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.inflight[opaque].frame != nil
}
