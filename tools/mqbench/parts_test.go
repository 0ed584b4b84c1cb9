package mqbench

import (
	"bytes"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestKeysRoundTrip(t *testing.T) {
	ks := newKeySpace(netip.MustParseAddr("10.1.2.3"), 0x1234, 0xCAFEBABE)
	assert.Equal(t, "0A0102031234CAFEBABE", ks.prefix)
	for _, seq := range []uint64{0, 1, 255, 1 << 20, maxSeq} {
		key := ks.appendKey(nil, seq)
		require.Len(t, key, keyLen)
		assert.Equal(t, strings.ToUpper(string(key)), string(key))
		got, ok := ks.seqOf(key)
		require.True(t, ok, "%s", key)
		assert.Equal(t, seq, got)
	}
	other := newKeySpace(netip.MustParseAddr("10.1.2.3"), 0x1234, 0xCAFEBABF)
	_, ok := other.seqOf(ks.appendKey(nil, 7))
	assert.False(t, ok, "another run's key")
	for _, bad := range []string{"", "0A0102031234CAFEBABE", "0A0102031234CAFEBABE00000000000g", "0A0102031234CAFEBABE00000000000a"} {
		_, ok := ks.seqOf([]byte(bad))
		assert.False(t, ok, "%q", bad)
	}
}

func TestTrackerReport(t *testing.T) {
	var tr tracker
	tr.acked(0, 5, nil)                                // 0..4 stored
	tr.acked(7, 1, nil)                                // 7 stored; 5, 6 failed
	tr.received([]uint64{0, 1, 2, 2, 3, 7, 7, 7}, nil) // 4 missing; 2 twice, 7 three times
	tr.received([]uint64{6}, nil)                      // 6 arrived though its send failed
	r := tr.report()
	assert.Equal(t, &VerifyReport{Acked: 6, Received: 6, Missing: 1, Duplicates: 3, Unacked: 1, FirstGaps: []int{4}}, r)
	assert.False(t, r.OK())
	assert.Equal(t, int64(5), tr.arrived.Load(), "acknowledged and received: 0, 1, 2, 3, 7")

	// Received before its acknowledgement (consuming while producing).
	tr.received([]uint64{5}, nil)
	assert.Equal(t, int64(5), tr.arrived.Load())
	tr.acked(5, 1, nil)
	assert.Equal(t, int64(6), tr.arrived.Load())
	tr.acked(5, 1, nil)
	assert.Equal(t, int64(6), tr.arrived.Load(), "a second acknowledgement counts once")

	var clean tracker
	clean.acked(0, 3, nil)
	clean.received([]uint64{2, 1, 0}, nil)
	assert.True(t, clean.report().OK())
}

func TestTrackerCountSaturates(t *testing.T) {
	var tr tracker
	tr.acked(0, 1, nil)
	seqs := make([]uint64, 40000)
	tr.received(seqs, nil)
	r := tr.report()
	assert.Equal(t, int64(stateRecvMax>>1)-1, r.Duplicates)
}

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and parentheses, utime 250, stime 50 ticks.
	line := "4242 (my (broker) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 50 0 0 20 0 12 0 100 0 0\n"
	d, err := parseProcStat([]byte(line), 100)
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, d)

	_, err = parseProcStat([]byte("4242 broker S 1"), 100)
	assert.Error(t, err)
	_, err = parseProcStat([]byte("1 (x) S 1 2"), 100)
	assert.Error(t, err)
}

func TestReadProcCPUOfSelf(t *testing.T) {
	// Burn a little CPU so the figure is not trivially zero on a coarse clock.
	deadline := time.Now().Add(30 * time.Millisecond)
	for time.Now().Before(deadline) {
	}
	d, err := readProcCPU(os.Getpid())
	require.NoError(t, err)
	assert.Greater(t, d, time.Duration(0))
	assert.Greater(t, clockTicks(), int64(0))
	_, err = readProcCPU(1 << 30)
	assert.Error(t, err)
}

func TestQueuesInterleaveBrokersAndSkipNonMasters(t *testing.T) {
	r := &body.TopicRouteData{
		BrokerDatas: []body.BrokerData{
			{BrokerName: "b", BrokerAddrs: body.BrokerAddrs{0: "10.0.0.2:10911", 1: "10.0.0.3:10911"}},
			{BrokerName: "a", BrokerAddrs: body.BrokerAddrs{0: "10.0.0.1:10911"}},
			{BrokerName: "slaveonly", BrokerAddrs: body.BrokerAddrs{1: "10.0.0.9:10911"}},
			{BrokerName: "ro", BrokerAddrs: body.BrokerAddrs{0: "10.0.0.4:10911"}},
		},
		QueueDatas: []body.QueueData{
			{BrokerName: "b", ReadQueueNums: 2, WriteQueueNums: 3, Perm: 6},
			{BrokerName: "a", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6},
			{BrokerName: "slaveonly", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6},
			{BrokerName: "ro", ReadQueueNums: 2, WriteQueueNums: 2, Perm: body.PermRead},
		},
	}
	names := func(qs []queueRef) []string {
		var s []string
		for _, q := range qs {
			s = append(s, q.String()+"@"+q.Addr)
		}
		return s
	}
	assert.Equal(t, []string{"a/0@10.0.0.1:10911", "b/0@10.0.0.2:10911", "b/1@10.0.0.2:10911", "b/2@10.0.0.2:10911"},
		names(writeQueues(r, 0)))
	assert.Equal(t, []string{"a/0@10.0.0.1:10911", "b/0@10.0.0.2:10911", "b/1@10.0.0.2:10911"}, names(writeQueues(r, 2)))
	assert.Equal(t, []string{"a/0@10.0.0.1:10911", "b/0@10.0.0.2:10911", "ro/0@10.0.0.4:10911", "b/1@10.0.0.2:10911", "ro/1@10.0.0.4:10911"},
		names(readQueues(r)))
	assert.Equal(t, int32(2), writeQueues(r, 0)[3].QueueID)
}

func TestProducerRequestHeaders(t *testing.T) {
	o := &Options{Mode: ModeProduce, Messages: 10, Tags: "TagA", Wait: true}
	require.NoError(t, o.Validate())
	ks := newKeySpace(netip.MustParseAddr("10.1.2.3"), 1, 2)
	p := newProducer(o, ks, nil, nil, nil)
	q := newQueueRef("broker-a", "10.1.2.3:10911", 3)

	var scr scratch
	req := p.request(5, 1, q, &scr)
	assert.Equal(t, protocol.SendMessageV2, req.RequestCode())
	ext := req.ExtFields
	assert.Equal(t, 13, ext.Len(), "a..n without l: %v", ext.Map())
	for k, v := range map[string]string{"a": DefaultProducerGroup, "b": DefaultTopic, "c": "TBW102", "d": "4",
		"e": "3", "f": "0", "h": "0", "j": "0", "k": "false", "m": "false", "n": "broker-a"} {
		assert.Equal(t, v, ext.Get(k), "field %s", k)
	}
	assert.NotEmpty(t, ext.Get("g"))
	props := message.ParseProperties(ext.Get("i"))
	assert.Equal(t, map[string]string{"UNIQ_KEY": string(ks.appendKey(nil, 5)), "WAIT": "true", "TAGS": "TagA"}, props)
	assert.Equal(t, 1024, len(req.Body))

	var h protocol.SendMessageRequestHeaderV2
	require.NoError(t, h.Decode(ext))
	assert.Equal(t, int32(3), h.QueueID)
	assert.Equal(t, protocol.Some("broker-a"), h.BrokerName)
	req.Release()

	o.Batch = 3
	req = p.request(6, 3, q, &scr)
	assert.Equal(t, protocol.SendBatchMessage, req.RequestCode())
	assert.Equal(t, "true", req.ExtFields.Get("m"))
	assert.Equal(t, map[string]string{"WAIT": "true"}, message.ParseProperties(req.ExtFields.Get("i")))
	it := message.NewBatchIterator(req.Body)
	var seqs []uint64
	for it.Next() {
		e := it.Entry()
		assert.True(t, bytes.Equal(p.body, e.Body))
		seq, ok := ks.seqOf([]byte(message.ParseProperties(e.Properties)["UNIQ_KEY"]))
		require.True(t, ok)
		seqs = append(seqs, seq)
	}
	require.NoError(t, it.Err())
	assert.Equal(t, []uint64{6, 7, 8}, seqs)
}

// TestProducerKeys: --keys gives every message its KEYS, {seq} replaced by its sequence number,
// in single sends and batches alike; UNIQ_KEY stays mqbench's own.
func TestProducerKeys(t *testing.T) {
	for _, batch := range []int{1, 3} {
		o := &Options{Mode: ModeProduce, Messages: 2000, Batch: batch, Keys: "order-{seq} all {seq}x", Wait: true}
		require.NoError(t, o.Validate())
		ks := newKeySpace(netip.MustParseAddr("10.1.2.3"), 1, 2)
		p := newProducer(o, ks, nil, nil, nil)
		var scr scratch
		var props []string
		for _, first := range []uint64{7, 998} {
			req := p.request(first, batch, newQueueRef("b", "h:1", 0), &scr)
			if batch == 1 {
				props = append(props, req.ExtFields.Get("i"))
			} else {
				it := message.NewBatchIterator(req.Body)
				for it.Next() {
					props = append(props, string(it.Entry().Properties))
				}
				require.NoError(t, it.Err())
			}
			req.Release()
		}
		var keys, uniq []string
		for _, pr := range props {
			m := message.ParseProperties(pr)
			keys = append(keys, m[message.PropertyKeys])
			uniq = append(uniq, m[message.PropertyUniqClientMessageID])
		}
		if batch == 1 {
			assert.Equal(t, []string{"order-7 all 7x", "order-998 all 998x"}, keys)
			assert.Equal(t, []string{string(ks.appendKey(nil, 7)), string(ks.appendKey(nil, 998))}, uniq)
		} else {
			assert.Equal(t, []string{"order-7 all 7x", "order-8 all 8x", "order-9 all 9x",
				"order-998 all 998x", "order-999 all 999x", "order-1000 all 1000x"}, keys,
				"entries of different lengths in one batch")
			assert.Equal(t, string(ks.appendKey(nil, 1000)), uniq[5])
		}
	}
}

func TestProducerReserve(t *testing.T) {
	o := &Options{Mode: ModeProduce, Messages: 10, Batch: 4}
	require.NoError(t, o.Validate())
	p := newProducer(o, keySpace{}, nil, nil, nil)
	var got [][2]uint64
	for {
		first, n, ok := p.reserve()
		if !ok {
			break
		}
		got = append(got, [2]uint64{first, uint64(n)})
	}
	assert.Equal(t, [][2]uint64{{0, 4}, {4, 4}, {8, 2}}, got)

	o2 := &Options{Mode: ModeProduce, Duration: time.Second}
	require.NoError(t, o2.Validate())
	p2 := newProducer(o2, keySpace{}, nil, nil, nil)
	_, _, ok := p2.reserve()
	assert.True(t, ok)
	p2.stop.Store(true)
	_, _, ok = p2.reserve()
	assert.False(t, ok)
}

func TestReportTextAndFailure(t *testing.T) {
	r := &Report{Mode: ModeBoth, Topic: "T", Size: 1024, Batch: 1, Concurrency: 4, Window: 256, PullBatch: 32, PullWindow: 4,
		Produce: &PhaseReport{Messages: 1000, Requests: 1000, Seconds: 0.5, MsgsPerSec: 2000, MBPerSec: 2.05,
			Latency:   LatencySummary{P50Us: 800, P99Us: 2500, P999Us: 4000, MaxUs: 1.5e6},
			Responses: map[string]int64{"SUCCESS": 1000}, Complete: true,
			CPU: CPUReport{BrokerSeconds: 0.1, BrokerUsPerMsg: 100, brokerWasMeasured: true}},
		Consume: &PhaseReport{Messages: 1000, Complete: true, Responses: map[string]int64{"SUCCESS": 40}},
		Verify:  &VerifyReport{Acked: 1000, Received: 1000},
	}
	assert.False(t, r.Failed())
	text := r.String()
	for _, want := range []string{"mqbench both: topic T, 1024-byte bodies, batch 1, 4 senders x window 256, pulls of 32 x window 4 per queue\n",
		"produce  1000 msgs in 0.500 s = 2000 msgs/s", "p50 800µs", "p99 2.50ms", "max 1.50s",
		"SUCCESS 1000", "broker 0.10 s = 100.0 µs/msg", "verify   OK"} {
		assert.Contains(t, text, want)
	}
	r.Verify.Missing = 1
	assert.True(t, r.Failed())
	assert.Contains(t, r.String(), "verify   FAILED")
	r.Verify.Missing = 0
	r.Produce.Errors = 1
	assert.True(t, r.Failed())

	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	assert.Contains(t, buf.String(), `"msgs_per_s": 2000`)
	assert.Contains(t, buf.String(), `"p999_us": 4000`)
}

func TestCountErrors(t *testing.T) {
	resp := map[string]int64{"SUCCESS": 10, "FLUSH_DISK_TIMEOUT": 2, "SYSTEM_BUSY": 3, "error: timeout": 1, "error: cancelled": 5}
	assert.Equal(t, int64(4), countErrors(resp, storedName))
	assert.Equal(t, int64(6), countErrors(resp, pullOKName))
}

func TestTrackerGrowsLinearly(t *testing.T) {
	var tr tracker
	for i := range uint64(100000) {
		tr.acked(i, 1, nil)
	}
	assert.Equal(t, 100000, len(tr.state))
	assert.LessOrEqual(t, cap(tr.state), 2*100000)
	tr.received([]uint64{99999}, nil)
	assert.Equal(t, int64(99999), tr.report().Missing)
}

func TestTrackerComparesPositions(t *testing.T) {
	var tr tracker
	tr.acked(0, 2, []msgPos{{q: 1, off: 10, phy: 1000}, {q: 1, off: 11, phy: 2000}})
	tr.received([]uint64{0}, []msgPos{{q: 1, off: 10, phy: 1000}})
	// Read before its answer arrives (consuming while producing), then answered elsewhere.
	tr.received([]uint64{2}, []msgPos{{q: 2, off: 5, phy: 3000}})
	tr.acked(2, 1, []msgPos{{q: 2, off: 6, phy: 3000}})
	tr.received([]uint64{1}, []msgPos{{q: 1, off: 11, phy: 2001}})
	r := tr.report()
	assert.Equal(t, int64(2), r.Misplaced)
	assert.Equal(t, "message 2: send answer said queue 2 offset 6 commitlog 3000; pulled record has queue 2 offset 5 commitlog 3000",
		r.FirstMisplaced)
	assert.False(t, r.OK())

	var unknownPhy tracker
	unknownPhy.acked(0, 1, []msgPos{{q: 0, off: 0, phy: -1}})
	unknownPhy.received([]uint64{0}, []msgPos{{q: 0, off: 0, phy: 77}})
	assert.True(t, unknownPhy.report().OK())
}

func TestAnswerPositions(t *testing.T) {
	host := netip.MustParseAddrPort("10.0.0.1:10911")
	resp := &protocol.Command{ExtFields: protocol.NewExt(map[string]string{"queueId": "3", "queueOffset": "40",
		"msgId": message.OffsetMsgID(host, 100) + "," + message.OffsetMsgID(host, 250)})}
	at, err := answerPositions(resp, 2)
	require.NoError(t, err)
	assert.Equal(t, []msgPos{{q: 3, off: 40, phy: 100}, {q: 3, off: 41, phy: 250}}, at)

	_, err = answerPositions(resp, 1)
	assert.ErrorContains(t, err, "more than 1")
	_, err = answerPositions(resp, 3)
	assert.Error(t, err)
	_, err = answerPositions(&protocol.Command{ExtFields: protocol.NewExt(map[string]string{"queueId": "3", "msgId": "x"})}, 1)
	assert.ErrorContains(t, err, "queueOffset")
}
