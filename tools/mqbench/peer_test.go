package mqbench

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// scriptedPeer answers mqbench's sends and pulls from memory so that its
// own logic (pipelining, holes, key checks) and its own ceiling can be
// measured without a broker. It is not a broker: no topics, no route, no
// flush, no checks beyond what the tests script.
type scriptedPeer struct {
	addr       string
	store      bool // keep sent messages for pulls
	maxPerPull int  // cap records per pull answer (0: maxMsgNums), to force holes
	dropSeq    int64
	dupSeq     int64
	keys       keySpace

	mu     sync.Mutex
	queues map[int32][][]byte
	phy    int64
}

func startPeer(t testing.TB, p *scriptedPeer) *scriptedPeer {
	p.queues = map[int32][][]byte{}
	// A quiet server: benchmarks run it at full speed.
	srv := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0"}, zap.NewNop())
	srv.Handle(protocol.SendMessageV2, remoting.HandlerFunc(p.send))
	srv.Handle(protocol.SendBatchMessage, remoting.HandlerFunc(p.send))
	srv.Handle(protocol.PullMessage, remoting.HandlerFunc(p.pull))
	srv.Handle(protocol.GetMaxOffset, remoting.HandlerFunc(p.maxOffset))
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	p.addr = srv.Addr().String()
	return p
}

func (p *scriptedPeer) send(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	var h protocol.SendMessageRequestHeader
	if err := h.DecodeSend(req.RequestCode(), req.ExtFields); err != nil {
		return protocol.NewResponse(req, protocol.SystemError, err.Error())
	}
	qid, props := h.QueueID, h.Properties.V
	var off int64
	var ids []string
	if p.store {
		var entries []message.BatchEntry
		if req.RequestCode() == protocol.SendBatchMessage {
			it := message.NewBatchIterator(req.Body)
			for it.Next() {
				entries = append(entries, it.Entry())
			}
		} else {
			entries = []message.BatchEntry{{Body: req.Body, Properties: []byte(props)}}
		}
		p.mu.Lock()
		off = int64(len(p.queues[qid]))
		for _, e := range entries {
			ids = append(ids, message.OffsetMsgID(peerStoreHost, p.phy))
			p.append(qid, e)
		}
		p.mu.Unlock()
	} else {
		ids = []string{message.OffsetMsgID(peerStoreHost, 0)}
	}
	resp := protocol.NewResponse(req, protocol.Success, "")
	protocol.SendMessageResponseHeader{MsgID: strings.Join(ids, ","), QueueID: qid, QueueOffset: off}.Encode(&resp.ExtFields)
	return resp
}

var peerStoreHost = netip.MustParseAddrPort("127.0.0.1:2")

// append stores one message; p.mu is held.
func (p *scriptedPeer) append(qid int32, e message.BatchEntry) {
	key, _ := message.LookupProperty(e.Properties, message.PropertyUniqClientMessageID)
	seq, ours := p.keys.seqOf(key)
	if ours && int64(seq) == p.dropSeq {
		return
	}
	m := &message.Message{Topic: DefaultTopic, QueueID: qid, QueueOffset: int64(len(p.queues[qid])),
		PhysicalOffset: p.phy, BornHost: netip.MustParseAddrPort("127.0.0.1:1"),
		StoreHost: peerStoreHost, BodyCRC: message.BodyCRC(e.Body),
		Body: e.Body, Properties: string(e.Properties)}
	rec := make([]byte, m.EncodedSize())
	if _, err := message.Encode(rec, m); err != nil {
		panic(err)
	}
	p.phy += int64(len(rec))
	p.queues[qid] = append(p.queues[qid], rec)
	if ours && int64(seq) == p.dupSeq {
		p.dupSeq = -1
		p.append(qid, e)
	}
}

func (p *scriptedPeer) pull(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	var h protocol.PullMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return protocol.NewResponse(req, protocol.SystemError, err.Error())
	}
	qid, off, n := h.QueueID, h.QueueOffset, int(h.MaxMsgNums)
	if p.maxPerPull > 0 {
		n = min(n, p.maxPerPull)
	}
	p.mu.Lock()
	q := p.queues[qid]
	p.mu.Unlock()
	end := int64(len(q))
	resp := protocol.NewResponse(req, protocol.Success, "")
	next := off
	if off >= end {
		resp.Code = int32(protocol.PullNotFound)
	} else {
		for _, rec := range q[off:min(end, off+int64(n))] {
			resp.Body = append(resp.Body, rec...)
			next++
		}
	}
	protocol.PullMessageResponseHeader{NextBeginOffset: next, MaxOffset: end}.Encode(&resp.ExtFields)
	return resp
}

func (p *scriptedPeer) maxOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	var h protocol.GetMaxOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return protocol.NewResponse(req, protocol.SystemError, err.Error())
	}
	p.mu.Lock()
	n := len(p.queues[h.QueueID])
	p.mu.Unlock()
	resp := protocol.NewResponse(req, protocol.Success, "")
	protocol.GetMaxOffsetResponseHeader{Offset: int64(n)}.Encode(&resp.ExtFields)
	return resp
}

// peerRun runs "both" (o.Overlap says how) against peer's queues 0..3
// with the runner's own phases.
func peerRun(t testing.TB, o Options, peer *scriptedPeer) *Report {
	o.Mode = ModeBoth
	o.Namesrv = []string{"127.0.0.1:1"} // nothing listens: the route falls back to the given queues
	require.NoError(t, o.Validate())
	r := &runner{o: &o, lg: zap.NewNop(), keys: peer.keys, rep: &Report{}}
	r.prog = startProgress(o.Progress, o.ProgressEvery)
	defer r.prog.stop()
	r.adm = admin.New(admin.Options{NamesrvAddrs: o.Namesrv}, nil)
	defer func() { _ = r.adm.Close() }()
	var qs []queueRef
	starts := map[queueRef]int64{}
	for i := range 4 {
		q := newQueueRef("peer", peer.addr, i)
		qs = append(qs, q)
		starts[q] = 0
	}
	require.NoError(t, r.bothOver(context.Background(), qs, starts))
	return r.rep
}

func testKeys() keySpace { return newKeySpace(netip.MustParseAddr("127.0.0.1"), 1, 99) }

func TestPipelinedRunAgainstScriptedPeer(t *testing.T) {
	for _, batch := range []int{1, 10} {
		t.Run("batch"+strconv.Itoa(batch), func(t *testing.T) {
			// 7 records per answer to 32-message pulls: every pull leaves a hole.
			peer := startPeer(t, &scriptedPeer{store: true, maxPerPull: 7, dropSeq: -1, dupSeq: -1, keys: testKeys()})
			rep := peerRun(t, Options{Messages: 5003, Size: 100, Concurrency: 3, Window: 16, Batch: batch,
				Timeout: 30 * time.Second}, peer)
			assert.Equal(t, int64(5003), rep.Produce.Messages)
			assert.True(t, rep.Produce.Complete)
			assert.Zero(t, rep.Produce.Errors)
			assert.Equal(t, int64((5003+batch-1)/batch), rep.Produce.Requests)
			assert.Equal(t, uint64(rep.Produce.Requests), rep.Produce.Latency.Count)
			assert.True(t, rep.Consume.Complete, "%s", rep)
			assert.Equal(t, int64(5003), rep.Consume.Messages)
			assert.Equal(t, int64(5003*100), rep.Consume.Bytes)
			assert.Zero(t, rep.Consume.Misplaced)
			assert.Zero(t, rep.Consume.BadCRC)
			assert.Equal(t, &VerifyReport{Acked: 5003, Received: 5003}, rep.Verify)
			assert.False(t, rep.Failed(), "%s", rep)
		})
	}
}

func TestFilteredRunAgainstScriptedPeer(t *testing.T) {
	peer := startPeer(t, &scriptedPeer{store: true, maxPerPull: 7, dropSeq: -1, dupSeq: -1, keys: testKeys()})
	rep := peerRun(t, Options{Messages: 500, Size: 10, Concurrency: 2, Window: 8, Tags: "TagA",
		Subscription: "TagA||TagB", Timeout: 30 * time.Second}, peer)
	assert.Equal(t, &VerifyReport{Acked: 500, Received: 500}, rep.Verify)
	assert.False(t, rep.Failed(), "%s", rep)
}

func TestOverlappedRunAgainstScriptedPeer(t *testing.T) {
	// The peer answers PULL_NOT_FOUND at once instead of holding the pull;
	// the consumer must pause rather than spin, and still read everything.
	peer := startPeer(t, &scriptedPeer{store: true, maxPerPull: 5, dropSeq: -1, dupSeq: -1, keys: testKeys()})
	rep := peerRun(t, Options{Messages: 3000, Size: 64, Concurrency: 2, Window: 8, Overlap: true,
		Timeout: 30 * time.Second}, peer)
	assert.Equal(t, &VerifyReport{Acked: 3000, Received: 3000}, rep.Verify)
	assert.True(t, rep.Consume.Complete)
	assert.False(t, rep.Failed(), "%s", rep)
	// Far fewer pulls than a spinning consumer would make.
	assert.Less(t, rep.Consume.Requests, int64(20000), "%s", rep)
}

func TestVerificationCatchesLossAndDuplicates(t *testing.T) {
	peer := startPeer(t, &scriptedPeer{store: true, dropSeq: 17, dupSeq: 42, keys: testKeys()})
	rep := peerRun(t, Options{Messages: 100, Size: 10, Concurrency: 2, Window: 4, Timeout: time.Minute,
		IdleTimeout: 300 * time.Millisecond}, peer)
	assert.Equal(t, int64(100), rep.Produce.Messages)
	assert.False(t, rep.Consume.Complete, "one acknowledged message never arrives")
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "no message for --idle-timeout 300ms")
	v := rep.Verify
	assert.Equal(t, int64(1), v.Missing)
	assert.Equal(t, []int{17}, v.FirstGaps)
	assert.Equal(t, int64(1), v.Duplicates)
	assert.True(t, rep.Failed())
}

func TestProduceCountsErrorResponses(t *testing.T) {
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(protocol.SendMessageV2, remoting.HandlerFunc(
			func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
				var h protocol.SendMessageRequestHeaderV2
				if err := h.Decode(req.ExtFields); err != nil {
					return protocol.NewResponse(req, protocol.SystemError, err.Error())
				}
				if h.QueueID == 1 {
					return protocol.NewResponse(req, protocol.SystemBusy, "[REJECTREQUEST]system busy")
				}
				return protocol.NewResponse(req, protocol.Success, "")
			}))
	})
	o := Options{Mode: ModeProduce, Messages: 40, Concurrency: 1, Window: 8}
	require.NoError(t, o.Validate())
	r := &runner{o: &o, lg: zap.NewNop(), keys: testKeys(), rep: &Report{}}
	qs := []queueRef{newQueueRef("b", srv.Addr().String(), 0), newQueueRef("b", srv.Addr().String(), 1)}
	ph := r.produce(context.Background(), qs, nil, nil)
	assert.Equal(t, int64(20), ph.Messages)
	assert.Equal(t, int64(40), ph.Attempted)
	assert.Equal(t, map[string]int64{"SUCCESS": 20, "SYSTEM_BUSY": 20}, ph.Responses)
	assert.Equal(t, int64(20), ph.Errors)
	assert.Equal(t, "[REJECTREQUEST]system busy", ph.Remarks["SYSTEM_BUSY"])
	assert.False(t, ph.Complete)
}
