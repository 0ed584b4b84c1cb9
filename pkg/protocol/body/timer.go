package body

import (
	"encoding/binary"
	"errors"
)

// TimerMetric is one real topic's count of pending timer messages (Java TimerMetrics.Metric).
type TimerMetric struct {
	Count     int64 `json:"count"`
	TimeStamp int64 `json:"timeStamp"`
}

// TimerMetrics is GET_TIMER_METRICS's body (Java TimerMetricsSerializeWrapper): pending timer
// messages per real topic.
type TimerMetrics struct {
	DataVersion DataVersion            `json:"dataVersion"`
	TimingCount map[string]TimerMetric `json:"timingCount"`
}

// TimerCheckpoint is GET_TIMER_CHECK_POINT's body: Java TimerCheckpoint.encode's 56 bytes
// (seven big-endian longs), then this broker's extension, which Java ignores (it reads only what
// it knows): a marker and what a slave of this broker needs to resume delivery.
type TimerCheckpoint struct {
	LastReadTimeMs         int64
	LastTimerLogFlushPos   int64
	LastTimerQueueOffset   int64
	MasterTimerQueueOffset int64
	StateVersion           int64
	Timestamp              int64
	Counter                int64
	// Extension: present when Ext is true.
	Ext bool
	// ReadDone records of the slot at LastReadTimeMs were processed; every message delivered
	// ends below DedupFrom in the CommitLog; the wheel had Slots slots of PrecisionMs.
	ReadDone, DedupFrom, PrecisionMs, Slots int64
}

// timerCheckpointExt marks the extension ("RGT1").
const timerCheckpointExt = 0x52475431

const (
	timerCheckpointJavaSize = 56
	timerCheckpointSize     = timerCheckpointJavaSize + 8 + 4*8
)

// errTimerCheckpoint reports a body that is not a timer checkpoint.
var errTimerCheckpoint = errors.New("body: not a timer checkpoint")

// Encode is the body.
func (c *TimerCheckpoint) Encode() []byte {
	be := binary.BigEndian
	b := make([]byte, 0, timerCheckpointSize)
	for _, v := range [...]int64{c.LastReadTimeMs, c.LastTimerLogFlushPos, c.LastTimerQueueOffset,
		c.MasterTimerQueueOffset, c.StateVersion, c.Timestamp, c.Counter} {
		b = be.AppendUint64(b, uint64(v))
	}
	if !c.Ext {
		return b
	}
	b = be.AppendUint32(be.AppendUint32(b, timerCheckpointExt), 0)
	for _, v := range [...]int64{c.ReadDone, c.DedupFrom, c.PrecisionMs, c.Slots} {
		b = be.AppendUint64(b, uint64(v))
	}
	return b
}

// DecodeTimerCheckpoint reads a body: Java's 32 or 56 bytes, or those and the extension.
func DecodeTimerCheckpoint(b []byte) (TimerCheckpoint, error) {
	var c TimerCheckpoint
	if len(b) != 32 && len(b) < timerCheckpointJavaSize {
		return c, errTimerCheckpoint
	}
	be := binary.BigEndian
	at := func(i int) int64 { return int64(be.Uint64(b[i*8:])) }
	c.LastReadTimeMs, c.LastTimerLogFlushPos, c.LastTimerQueueOffset, c.MasterTimerQueueOffset = at(0), at(1), at(2), at(3)
	if len(b) == 32 {
		return c, nil
	}
	c.StateVersion, c.Timestamp, c.Counter = at(4), at(5), at(6)
	if len(b) >= timerCheckpointSize && be.Uint32(b[timerCheckpointJavaSize:]) == timerCheckpointExt {
		c.Ext = true
		c.ReadDone, c.DedupFrom, c.PrecisionMs, c.Slots = at(8), at(9), at(10), at(11)
	}
	return c, nil
}
