package mqbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestRecycledRequestsCarryTheirOwnFields: a command that comes back through Release is
// rewritten whole for the next request, whatever the last one held.
func TestRecycledRequestsCarryTheirOwnFields(t *testing.T) {
	for _, batch := range []int{1, 4} {
		o := &Options{Mode: ModeProduce, Messages: 100, Batch: batch, Size: 16, Wait: true}
		require.NoError(t, o.Validate())
		ks := testKeys()
		p := newProducer(o, ks, nil, nil, nil)
		var scr scratch
		for i := range 20 {
			first, q := uint64(i*batch), newQueueRef("broker-"+string(rune('a'+i%3)), "127.0.0.1:1", i%5)
			req := p.request(first, batch, q, &scr)
			var h protocol.SendMessageRequestHeaderV2
			require.NoError(t, h.Decode(req.ExtFields))
			assert.Equal(t, q.QueueID, h.QueueID)
			assert.Equal(t, protocol.Some(q.BrokerName), h.BrokerName)
			assert.Equal(t, 13, req.ExtFields.Len())
			assert.Zero(t, req.Opaque, "a recycled command is sent as new")
			var seqs []uint64
			if batch == 1 {
				seq, ok := ks.seqOf([]byte(message.ParseProperties(h.Properties.V)[message.PropertyUniqClientMessageID]))
				require.True(t, ok)
				seqs = append(seqs, seq)
			} else {
				it := message.NewBatchIterator(req.Body)
				for it.Next() {
					e := it.Entry()
					require.Equal(t, p.body, e.Body)
					seq, ok := ks.seqOf([]byte(message.ParseProperties(e.Properties)[message.PropertyUniqClientMessageID]))
					require.True(t, ok)
					seqs = append(seqs, seq)
				}
				require.NoError(t, it.Err())
			}
			want := make([]uint64, batch)
			for k := range want {
				want[k] = first + uint64(k)
			}
			assert.Equal(t, want, seqs)
			req.Opaque = 99 // as the transport sets it
			req.Release()
		}
	}
}

// TestRequestAllocations pins what building a request allocates once its command is recycled:
// a single send its properties and born-timestamp strings, a batch of 32 only the timestamp, a
// pull only its offsets' text.
func TestRequestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	for _, c := range []struct {
		batch int
		max   float64
	}{{1, 2}, {32, 1}} {
		o := &Options{Mode: ModeProduce, Messages: 1 << 40, Batch: c.batch, Tags: "TagA", Wait: true}
		require.NoError(t, o.Validate())
		p := newProducer(o, testKeys(), nil, nil, nil)
		q := newQueueRef("broker-a", "127.0.0.1:1", 3)
		var scr scratch
		var seq uint64
		allocs := testing.AllocsPerRun(200, func() {
			p.request(seq, c.batch, q, &scr).Release()
			seq += uint64(c.batch)
		})
		t.Logf("batch %d: %.1f allocs per request", c.batch, allocs)
		assert.LessOrEqual(t, allocs, c.max, "batch %d", c.batch)
	}

	co := &Options{Mode: ModeConsume}
	require.NoError(t, co.Validate())
	cons := newConsumer(co, testKeys(), nil)
	pq := &pullQueue{q: newQueueRef("broker-a", "127.0.0.1:1", 3)}
	allocs := testing.AllocsPerRun(200, func() {
		cons.pullRequest(pq, span{off: 1 << 20, n: 32}).Release()
	})
	t.Logf("pull: %.1f allocs per request", allocs)
	assert.LessOrEqual(t, allocs, 2.0, "queueOffset and suspendTimeoutMillis as text")
}
