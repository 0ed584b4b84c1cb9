package brokerstats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// clock is a settable time for the manager.
type clock struct{ t time.Time }

func (c *clock) now() time.Time             { return c.t }
func (c *clock) advance(d time.Duration)    { c.t = c.t.Add(d) }
func newManager(c *clock, max int) *Manager { m := New("C1"); m.now, m.maxKeys = c.now, max; return m }

func TestCountersAndWindows(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	m := newManager(c, 100)
	_, ok := m.Data(TopicPutNums, "T")
	require.False(t, ok, "nothing counted yet")

	m.Put("T", 3, 300)
	m.Put("T", 1, 100)
	c.advance(2 * time.Second)
	d, ok := m.Data(TopicPutNums, "T")
	require.True(t, ok)
	require.Equal(t, body.BrokerStatsItem{Sum: 4, Tps: 2, Avgpt: 2}, d.StatsMinute, "4 messages in 2 calls over 2 s")
	require.Equal(t, d.StatsMinute, d.StatsDay)
	size, _ := m.Data(TopicPutSize, "T")
	require.Equal(t, int64(400), size.StatsHour.Sum)
	broker, _ := m.Data(BrokerPutNums, "C1")
	require.Equal(t, int64(4), broker.StatsMinute.Sum, "the broker-wide counter is keyed by the cluster")
	require.Equal(t, int64(4), m.Total(BrokerPutNums, "C1"))

	// Samples every 10 s: the minute window spans the last six steps.
	for range 7 {
		c.advance(10 * time.Second)
		m.Sample(0)
	}
	m.Put("T", 5, 500)
	d, _ = m.Data(TopicPutNums, "T")
	require.Equal(t, int64(5), d.StatsMinute.Sum, "what came before the minute window is out of it")
	require.Equal(t, int64(9), d.StatsHour.Sum, "and still in the hour's")
	require.InDelta(t, 5.0/60, d.StatsMinute.Tps, 1e-9)
}

func TestGroupKeysAndBound(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	m := newManager(c, 2)
	m.Get("T", "G", 7, 70)
	d, ok := m.Data(GroupGetNums, "T@G")
	require.True(t, ok)
	require.Equal(t, int64(7), d.StatsMinute.Sum)
	size, _ := m.Data(GroupGetSize, "T@G")
	require.Equal(t, int64(70), size.StatsMinute.Sum)
	_, ok = m.Data(GroupGetNums, "T")
	require.False(t, ok)
	require.Equal(t, int64(7), m.Total(BrokerGetNums, "C1"))

	m.Get("T", "G2", 1, 1)
	m.Get("T", "G3", 1, 1)
	_, ok = m.Data(GroupGetNums, "T@G3")
	require.False(t, ok, "beyond maxKeys nothing new is counted")
	require.Equal(t, int64(9), m.Total(BrokerGetNums, "C1"))
}

func TestStartStop(t *testing.T) {
	m := New("C1")
	m.Start()
	m.Put("T", 1, 1)
	m.Close()
	m.Close()
	require.Equal(t, int64(1), m.Total(TopicPutNums, "T"))
}
