package mqbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// producer sends the run's messages: Concurrency senders, each with at most
// Window requests in flight, spread round-robin over queues.
type producer struct {
	o       *Options
	keys    keySpace
	tr      *tracker // nil: do not remember acknowledged keys
	queues  []queueRef
	clients []*remoting.Client
	body    []byte

	batchProps string   // the SEND_BATCH_MESSAGE header's own properties
	keyParts   []string // Options.Keys split at seqPlaceholder; nil: no KEYS
	single     *reqPool // SEND_MESSAGE_V2 commands
	batch      *reqPool // SEND_BATCH_MESSAGE commands, with their bodies

	rr    atomic.Uint64 // round-robin position over queues
	seq   atomic.Uint64 // next sequence number
	stop  atomic.Bool   // --duration elapsed
	hist  []Histogram   // one per sender
	codes codeCounter

	sent     atomic.Int64 // messages handed to the connection
	acked    atomic.Int64 // messages the broker stored
	failed   atomic.Int64 // messages not sent, not answered or refused
	requests atomic.Int64
	lastResp atomic.Int64 // unix ns of the last response
	// badAnswers counts stored-status answers without a readable queueId,
	// queueOffset or msgId.
	badAnswers atomic.Int64

	// remarks keeps the first remark of each failing code for the report.
	remarks remarkLog

	// firstAck is closed when the broker first stores a message.
	firstAck     chan struct{}
	firstAckOnce sync.Once
}

func newProducer(o *Options, keys keySpace, tr *tracker, queues []queueRef, clients []*remoting.Client) *producer {
	p := &producer{o: o, keys: keys, tr: tr, queues: queues, clients: clients,
		body: makeBody(o.Size), hist: make([]Histogram, o.Concurrency),
		batchProps: string(message.AppendProperty(nil, message.PropertyWaitStoreMsgOK, strconv.FormatBool(o.Wait))),
		single:     newReqPool(protocol.SendMessageV2, o.Serialize, false),
		batch:      newReqPool(protocol.SendBatchMessage, o.Serialize, true),
		firstAck:   make(chan struct{}),
	}
	if o.Keys != "" {
		p.keyParts = strings.Split(o.Keys, seqPlaceholder)
	}
	return p
}

// makeBody returns size printable bytes, the same body for every message.
func makeBody(size int) []byte {
	b := make([]byte, size)
	const pattern = "rocketgo-mqbench-0123456789abcdefghijklmnopqrstuvwxyz "
	for i := range b {
		b[i] = pattern[i%len(pattern)]
	}
	return b
}

// run sends until Messages are sent or Duration elapses, waits for every
// answer (at most RequestTimeout after the last send) and returns when done.
func (p *producer) run(ctx context.Context) {
	if p.o.Duration > 0 {
		t := time.AfterFunc(p.o.Duration, func() { p.stop.Store(true) })
		defer t.Stop()
	}
	var wg sync.WaitGroup
	for i := range p.o.Concurrency {
		wg.Go(func() {
			p.runSender(ctx, p.clients[i%len(p.clients)], &p.hist[i])
		})
	}
	wg.Wait()
}

// runSender is one sender: it keeps up to Window requests in flight.
func (p *producer) runSender(ctx context.Context, cli *remoting.Client, h *Histogram) {
	tokens := make(chan struct{}, p.o.Window)
	reqCtx, cancelReqs := context.WithCancel(ctx)
	defer cancelReqs()
	defer p.drain(tokens, cancelReqs)
	var scr scratch
	for {
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
		first, n, ok := p.reserve()
		if !ok {
			<-tokens
			return
		}
		q := p.queues[(p.rr.Add(1)-1)%uint64(len(p.queues))]
		req := p.request(first, n, q, &scr)
		conn, err := cli.Conn(ctx, q.Addr)
		if err != nil {
			p.failed.Add(int64(n))
			p.codes.addErr(err)
			p.requests.Add(1)
			<-tokens
			if ctx.Err() != nil {
				return
			}
			time.Sleep(100 * time.Millisecond) // broker unreachable: do not spin
			continue
		}
		p.sent.Add(int64(n))
		p.requests.Add(1)
		start := time.Now()
		conn.InvokeAsync(reqCtx, req, func(resp *protocol.Command, err error) {
			if err == nil {
				now := time.Now()
				h.Record(now.Sub(start))
				p.lastResp.Store(now.UnixNano())
			}
			p.answered(first, n, resp, err)
			<-tokens
		})
	}
}

// drain waits for the sender's requests in flight; after RequestTimeout it
// gives up on them: cancel makes them fail (counted as "no answer").
func (p *producer) drain(tokens chan struct{}, cancel context.CancelFunc) {
	limit := time.NewTimer(p.o.RequestTimeout)
	defer limit.Stop()
	for range cap(tokens) {
		select {
		case tokens <- struct{}{}:
		case <-limit.C:
			cancel()
			tokens <- struct{}{}
		}
	}
}

// reserve takes the next n ≤ Batch sequence numbers, or false when the
// run has sent enough.
func (p *producer) reserve() (first uint64, n int, ok bool) {
	if p.stop.Load() {
		return 0, 0, false
	}
	b := uint64(p.o.Batch)
	first = p.seq.Add(b) - b
	if p.o.Messages > 0 {
		total := uint64(p.o.Messages)
		if first >= total {
			return 0, 0, false
		}
		b = min(b, total-first)
	}
	if first+b > maxSeq {
		return 0, 0, false
	}
	return first, int(b), true
}

// answered accounts for one response.
func (p *producer) answered(first uint64, n int, resp *protocol.Command, err error) {
	if errors.Is(err, context.Canceled) {
		// Only drain and --timeout cancel sends: they got no answer in time.
		p.failed.Add(int64(n))
		p.codes.addName("error: no answer (abandoned at the end)")
		return
	}
	if err != nil {
		p.failed.Add(int64(n))
		p.codes.addErr(err)
		return
	}
	p.codes.add(resp.ResponseCode())
	if !storedCode(resp.ResponseCode()) {
		p.failed.Add(int64(n))
		p.remarks.add(resp.ResponseCode(), resp.Remark)
		return
	}
	p.acked.Add(int64(n))
	p.firstAckOnce.Do(func() { close(p.firstAck) })
	at, err := answerPositions(resp, n)
	if err != nil {
		p.badAnswers.Add(1)
		p.remarks.addNote("bad send answer", err.Error())
	}
	if p.tr != nil {
		p.tr.acked(first, n, at)
	}
}

// answerPositions reads where a SEND answer says its n messages went:
// queueId, queueOffset (of the first) and msgId (comma-joined offset ids
// for a batch). An answer missing or garbling them is an error; the
// positions are then nil.
func answerPositions(resp *protocol.Command, n int) ([]msgPos, error) {
	var h protocol.SendMessageResponseHeader
	if err := h.Decode(resp.ExtFields); err != nil {
		return nil, err
	}
	ids := h.MsgID
	at := make([]msgPos, n)
	for i := range at {
		var id string
		id, ids, _ = strings.Cut(ids, ",")
		_, phy, err := message.ParseOffsetMsgID(id)
		if err != nil {
			return nil, fmt.Errorf("msgId %d of %d: %w", i+1, n, err)
		}
		at[i] = msgPos{q: h.QueueID, off: h.QueueOffset + int64(i), phy: phy}
	}
	if ids != "" {
		return nil, fmt.Errorf("msgId has more than %d ids", n)
	}
	return at, nil
}

// scratch is one sender's reusable space for building requests.
type scratch struct {
	props []byte // one message's properties
	blank string // len(props) bytes that batchBody writes the properties over
}

// request builds the send of messages first..first+n-1 to q: SEND_MESSAGE_V2 for single sends,
// else SEND_BATCH_MESSAGE, as a typed header written into a recycled command.
func (p *producer) request(first uint64, n int, q queueRef, scr *scratch) *protocol.Command {
	h := protocol.SendMessageRequestHeaderV2{
		ProducerGroup:         p.o.ProducerGroup,
		Topic:                 p.o.Topic,
		DefaultTopic:          systopic.AutoCreate,
		DefaultTopicQueueNums: defaultTopicQueueNums,
		QueueID:               q.QueueID,
		BornTimestamp:         time.Now().UnixMilli(),
		ReconsumeTimes:        protocol.Some(int32(0)),
		UnitMode:              protocol.Some(false),
		BrokerName:            protocol.Some(q.BrokerName),
	}
	var req *protocol.Command
	if n == 1 && p.o.Batch == 1 {
		scr.props = p.appendProps(scr.props[:0], first)
		h.Properties, h.Batch = protocol.Some(string(scr.props)), protocol.Some(false)
		req = p.single.get()
		req.Body = p.body
	} else {
		h.Properties, h.Batch = protocol.Some(p.batchProps), protocol.Some(true)
		req = p.batch.get()
		req.Body = p.batchBody(req.Body, first, n, scr)
	}
	h.Encode(&req.ExtFields)
	return req
}

// appendProps appends the properties of message seq.
func (p *producer) appendProps(dst []byte, seq uint64) []byte {
	dst = append(dst, message.PropertyUniqClientMessageID...)
	dst = append(dst, message.NameValueSeparator)
	dst = p.keys.appendKey(dst, seq)
	dst = append(dst, message.PropertySeparator)
	dst = message.AppendProperty(dst, message.PropertyWaitStoreMsgOK, strconv.FormatBool(p.o.Wait))
	if p.o.Tags != "" {
		dst = message.AppendProperty(dst, message.PropertyTags, p.o.Tags)
	}
	if p.keyParts != nil {
		dst = p.appendKeys(dst, seq)
	}
	return dst
}

// seqPlaceholder stands for a message's sequence number in Options.Keys.
const seqPlaceholder = "{seq}"

// appendKeys appends the KEYS property of message seq.
func (p *producer) appendKeys(dst []byte, seq uint64) []byte {
	dst = append(dst, message.PropertyKeys...)
	dst = append(dst, message.NameValueSeparator)
	for i, part := range p.keyParts {
		if i > 0 {
			dst = strconv.AppendUint(dst, seq, 10)
		}
		dst = append(dst, part...)
	}
	return append(dst, message.PropertySeparator)
}

// batchBody appends n messages to out as a SEND_BATCH_MESSAGE body. Each entry is laid out by
// message.AppendBatchEntry over a blank of its properties' length, which are then copied over
// the blank: that spares converting every message's properties to a string.
func (p *producer) batchBody(out []byte, first uint64, n int, scr *scratch) []byte {
	out = slices.Grow(out, n*p.o.batchEntrySize())
	for i := range n {
		scr.props = p.appendProps(scr.props[:0], first+uint64(i))
		if len(scr.blank) != len(scr.props) {
			scr.blank = strings.Repeat(" ", len(scr.props))
		}
		out = message.AppendBatchEntry(out, 0, p.body, scr.blank)
		copy(out[len(out)-len(scr.props):], scr.props)
	}
	return out
}

// remarkLog keeps the first remark of each failing response code.
type remarkLog struct {
	mu sync.Mutex
	m  map[string]string
}

func (r *remarkLog) add(code protocol.ResponseCode, remark string) {
	r.addNote(code.String(), remark)
}

// addNote keeps remark under name unless one is kept already.
func (r *remarkLog) addNote(name, remark string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]string{}
	}
	if _, ok := r.m[name]; !ok && len(r.m) < 16 {
		r.m[name] = remark
	}
}

func (r *remarkLog) snapshot() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) == 0 {
		return nil
	}
	out := make(map[string]string, len(r.m))
	for k, v := range r.m {
		out[k] = v
	}
	return out
}
