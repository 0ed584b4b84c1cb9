package mqbench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// POP acknowledgement styles.
const (
	PopAckSingle = "single" // ACK_MESSAGE per message, as the 5.x Java push consumer acks
	PopAckBatch  = "batch"  // one BATCH_ACK_MESSAGE per answer
)

// popHold is how long (ms) the broker may hold a POP that finds nothing.
const popHold = 2000

// popConsumer reads a topic by POP: PullWindow POP_MESSAGE requests of PullBatch messages in
// flight per broker (queueId -1: every queue), each message acknowledged once its answer is in.
type popConsumer struct {
	o      *Options
	cli    *remoting.Client
	keys   keySpace
	addrs  []string
	names  map[string]string // broker name of each address, for the POP_CKs
	target int64

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	got, bytes, pops, foreign atomic.Int64
	acks, ackFails, empty     atomic.Int64
	lastRead                  atomic.Int64
	hist, ackHist             Histogram
	codes, ackCodes           codeCounter
	popReq, ackReq, batchReq  *reqPool
	inflight                  sync.WaitGroup
}

func newPopConsumer(o *Options, keys keySpace, names map[string]string, target int64) *popConsumer {
	addrs := make([]string, 0, len(names))
	for a := range names {
		addrs = append(addrs, a)
	}
	return &popConsumer{o: o, keys: keys, addrs: addrs, names: names, target: target, done: make(chan struct{}),
		popReq: newReqPool(protocol.PopMessage, protocol.JSON, false), ackReq: newReqPool(protocol.AckMessage, protocol.JSON, false),
		batchReq: newReqPool(protocol.BatchAckMessage, protocol.JSON, false)}
}

// run pops until target messages arrived, ctx ends or IdleTimeout passes without one.
func (p *popConsumer) run(ctx context.Context, cli *remoting.Client) bool {
	p.cli = cli
	p.ctx, p.cancel = context.WithCancel(ctx)
	defer func() {
		p.cancel()
		p.inflight.Wait()
	}()
	p.lastRead.Store(time.Now().UnixNano())
	if p.target <= 0 {
		return true // nothing to pop
	}
	for _, addr := range p.addrs {
		for range p.o.PullWindow {
			p.issue(addr)
		}
	}
	idle := time.NewTicker(min(max(p.o.IdleTimeout/4, time.Millisecond), time.Second))
	defer idle.Stop()
	for {
		select {
		case <-p.done:
			return true
		case <-p.ctx.Done():
			return false
		case now := <-idle.C:
			if now.Sub(time.Unix(0, p.lastRead.Load())) > p.o.IdleTimeout {
				return false
			}
		}
	}
}

func (p *popConsumer) stopping() bool { return p.ctx.Err() != nil }

// issue sends one POP_MESSAGE to addr; its answer issues the next.
func (p *popConsumer) issue(addr string) {
	if p.stopping() {
		return
	}
	conn, err := p.cli.Conn(p.ctx, addr)
	if err != nil {
		p.codes.addErr(err)
		time.AfterFunc(100*time.Millisecond, func() { p.issue(addr) })
		return
	}
	req := p.popReq.get()
	protocol.PopMessageRequestHeader{ConsumerGroup: p.o.Group, Topic: p.o.Topic, QueueID: -1,
		MaxMsgNums: int32(p.o.PullBatch), InvisibleTime: p.o.InvisibleTime.Milliseconds(), PollTime: popHold,
		BornTime: protocol.Some(time.Now().UnixMilli()), InitMode: 0}.Encode(&req.ExtFields)
	p.inflight.Add(1)
	p.pops.Add(1)
	start := time.Now()
	conn.InvokeAsync(p.ctx, req, func(resp *protocol.Command, err error) {
		defer p.inflight.Done()
		p.answered(conn, p.names[addr], start, resp, err)
		if !p.stopping() {
			p.issue(addr)
		}
	})
}

// answered counts a POP answer and acknowledges its messages.
func (p *popConsumer) answered(conn *remoting.Conn, broker string, start time.Time, resp *protocol.Command, err error) {
	if err != nil {
		p.codes.addErr(err)
		return
	}
	p.codes.add(resp.ResponseCode())
	switch resp.ResponseCode() {
	case protocol.Success:
		p.hist.Record(time.Since(start))
	case protocol.PollingTimeout:
		p.empty.Add(1)
		return
	default:
		return
	}
	var h protocol.PopMessageResponseHeader
	if h.Decode(resp.ExtFields) != nil {
		p.codes.addName("error: POP answer without its header")
		return
	}
	starts, err := protocol.ParseInfo(h.StartOffsetInfo.V)
	if err != nil {
		p.codes.addName("error: bad startOffsetInfo")
		return
	}
	p.ackAll(conn, broker, &h, starts, resp.Body)
}

// ackAll walks the records and acknowledges each (or, batched, all of them at once).
func (p *popConsumer) ackAll(conn *remoting.Conn, broker string, h *protocol.PopMessageResponseHeader, starts map[string]string, recs []byte) {
	var batch map[string]*body.BatchAck
	var n, size int64
	it := message.NewIterator(recs)
	for it.Next() {
		v := it.View()
		n++
		size += int64(len(v.Body()))
		if key, _ := v.Property(message.PropertyUniqClientMessageID); !p.ours(key) {
			p.foreign.Add(1)
		}
		e, ok := extraInfoOf(v, broker, h, starts)
		if !ok {
			p.codes.addName("error: a record's queue is not in startOffsetInfo")
			continue
		}
		if p.o.PopAck == PopAckBatch {
			batch = addToBatch(batch, p.o, e)
			continue
		}
		p.ackOne(conn, e)
	}
	if batch != nil {
		p.ackBatch(conn, broker, batch)
	}
	p.bytes.Add(size)
	if p.got.Add(n) >= p.target && p.target > 0 {
		p.once.Do(func() { close(p.done) })
	}
	p.lastRead.Store(time.Now().UnixNano())
}

func (p *popConsumer) ours(key []byte) bool {
	_, ok := p.keys.seqOf(key)
	return ok
}

// extraInfoOf is the POP_CK of a record: the broker's, or built from the answer as the Java
// client builds it.
func extraInfoOf(v message.View, broker string, h *protocol.PopMessageResponseHeader, starts map[string]string) (protocol.ExtraInfo, bool) {
	if ck, ok := v.Property(message.PropertyPopCK); ok {
		e, err := protocol.ParseExtraInfo(string(ck))
		return e, err == nil
	}
	so, err := strconv.ParseInt(starts[protocol.InfoKey(protocol.RetryMarkNormal, strconv.Itoa(int(v.QueueID())))], 10, 64)
	if err != nil {
		return protocol.ExtraInfo{}, false
	}
	return protocol.ExtraInfo{CkQueueOffset: so, PopTime: h.PopTime, InvisibleTime: h.InvisibleTime, ReviveQid: h.ReviveQid,
		Retry: protocol.RetryMarkNormal, BrokerName: broker, QueueID: v.QueueID(), QueueOffset: v.QueueOffset(),
		HasQueueOffset: true}, true
}

func (p *popConsumer) ackOne(conn *remoting.Conn, e protocol.ExtraInfo) {
	req := p.ackReq.get()
	protocol.AckMessageRequestHeader{ConsumerGroup: p.o.Group, Topic: protocol.RealTopic(p.o.Topic, p.o.Group, e.Retry),
		QueueID: e.QueueID, ExtraInfo: e.String(), Offset: e.QueueOffset}.Encode(&req.ExtFields)
	p.sendAck(conn, req, 1)
}

func addToBatch(batch map[string]*body.BatchAck, o *Options, e protocol.ExtraInfo) map[string]*body.BatchAck {
	if batch == nil {
		batch = map[string]*body.BatchAck{}
	}
	k := string(e.Retry) + "@" + strconv.Itoa(int(e.QueueID)) + "@" + strconv.FormatInt(e.CkQueueOffset, 10)
	b := batch[k]
	if b == nil {
		b = &body.BatchAck{ConsumerGroup: o.Group, Topic: o.Topic, Retry: string(e.Retry), StartOffset: e.CkQueueOffset,
			QueueID: e.QueueID, ReviveQueueID: e.ReviveQid, PopTime: e.PopTime, InvisibleTime: e.InvisibleTime}
		batch[k] = b
	}
	i := int(e.QueueOffset - e.CkQueueOffset)
	for len(b.BitSet) <= i/8 {
		b.BitSet = append(b.BitSet, 0)
	}
	b.BitSet[i/8] |= 1 << (i % 8)
	return batch
}

func (p *popConsumer) ackBatch(conn *remoting.Conn, broker string, batch map[string]*body.BatchAck) {
	acks := make([]body.BatchAck, 0, len(batch))
	n := 0
	for _, b := range batch {
		acks = append(acks, *b)
		b.BitSet.Bits(func(int) bool { n++; return true })
	}
	data, err := body.Marshal(body.BatchAckMessageRequestBody{BrokerName: broker, Acks: acks})
	if err != nil {
		p.ackCodes.addName("error: encode batch ack")
		return
	}
	req := p.batchReq.get()
	req.Body = data
	p.sendAck(conn, req, n)
}

// sendAck sends an ack of n messages; acks are not waited for before the next POP.
func (p *popConsumer) sendAck(conn *remoting.Conn, req *protocol.Command, n int) {
	p.inflight.Add(1)
	start := time.Now()
	// Acks outlive the run's context: a message read is acknowledged even as the run ends.
	ctx, cancel := context.WithTimeout(context.Background(), p.o.RequestTimeout)
	conn.InvokeAsync(ctx, req, func(resp *protocol.Command, err error) {
		defer p.inflight.Done()
		defer cancel()
		if err != nil {
			p.ackCodes.addErr(err)
			p.ackFails.Add(int64(n))
			return
		}
		p.ackCodes.add(resp.ResponseCode())
		if resp.ResponseCode() != protocol.Success {
			p.ackFails.Add(int64(n))
			return
		}
		p.ackHist.Record(time.Since(start))
		p.acks.Add(int64(n))
	})
}

// popOnly is the pop mode: the topic's messages read by POP and acknowledged.
func (r *runner) popOnly(ctx context.Context) error {
	rt, err := r.adm.TopicRoute(ctx, r.o.Topic)
	if err != nil {
		return fmt.Errorf("mqbench: route of %s: %w", r.o.Topic, err)
	}
	qs := readQueues(rt)
	if len(qs) == 0 {
		return fmt.Errorf("mqbench: topic %s has no readable queue on a master", r.o.Topic)
	}
	target, names := r.o.Messages, map[string]string{}
	for _, q := range qs {
		names[q.Addr] = q.BrokerName
		if r.o.Messages == 0 {
			target += r.backlog(ctx, q)
		}
	}
	if r.o.Messages == 0 {
		r.note("popping the %d messages the group had not consumed at start", target)
	}
	r.rep.Consume = r.pop(ctx, newPopConsumer(r.o, r.keys, names, target))
	r.rep.Consume.Queues = len(qs)
	return nil
}

// backlog is what the group has left in q: its end less its committed offset (0 without one).
func (r *runner) backlog(ctx context.Context, q queueRef) int64 {
	end, err := r.adm.MaxOffset(ctx, q.Addr, q.of(r.o.Topic))
	if err != nil {
		return 0
	}
	off, found, err := r.adm.ConsumerOffset(ctx, q.Addr, r.o.Group, q.of(r.o.Topic))
	if err != nil || !found {
		off = 0
	}
	return max(end-off, 0)
}

// pop runs p and reports it: the POP latency is the phase's, the acks are counted beside.
func (r *runner) pop(ctx context.Context, p *popConsumer) *PhaseReport {
	cli := remoting.NewClient(remoting.ClientOptions{RequestTimeout: r.o.RequestTimeout}, r.lg)
	defer cli.Close()
	for _, a := range p.addrs {
		if _, err := cli.Conn(ctx, a); err != nil {
			r.note("connect to %s: %v", a, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	cpu := startCPU(r.o.BrokerPID)
	start := time.Now()
	complete := p.run(ctx, cli)
	end := time.Now()
	if last := p.lastRead.Load(); last != 0 && complete {
		end = time.Unix(0, last)
	}
	msgs := p.got.Load()
	ph := &PhaseReport{Messages: msgs, Requests: p.pops.Load(), Bytes: p.bytes.Load(), Queues: len(p.addrs),
		Latency: p.hist.Summary(), Responses: p.codes.snapshot(), Complete: complete, ForeignRecords: p.foreign.Load(),
		Acks: p.acks.Load(), AckFailures: p.ackFails.Load(), AckLatency: p.ackHist.Summary(), AckResponses: p.ackCodes.snapshot()}
	ph.setRate(end.Sub(start))
	ph.Errors = countErrors(ph.Responses, popOKName) + ph.AckFailures
	ph.CPU = cpu.stop(msgs)
	if !complete {
		r.note("pop phase stopped at %d of %d messages", msgs, p.target)
	}
	return ph
}

// A POLLING_TIMEOUT answers a held POP that found nothing: no failure.
var popOKName = map[string]bool{protocol.Success.String(): true, protocol.PollingTimeout.String(): true}
