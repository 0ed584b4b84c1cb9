package mqbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Run performs one benchmark run as o says and reports what it measured.
// An error means the run could not start (bad options, no route); failures
// during the run (error responses, missing messages) are in the report.
func Run(ctx context.Context, o Options, lg *zap.Logger) (*Report, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r := &runner{o: &o, lg: lg}
	r.adm = admin.New(admin.Options{NamesrvAddrs: o.Namesrv, Timeout: o.RequestTimeout, Serialize: o.Serialize}, lg)
	defer func() { _ = r.adm.Close() }()
	r.keys = newKeySpace(localIPv4(), os.Getpid(), rand.Uint32())
	r.prog = startProgress(o.Progress, o.ProgressEvery)
	defer r.prog.stop()
	r.rep = &Report{Mode: o.Mode, Topic: o.Topic, Namesrv: o.Namesrv, Size: o.Size, Batch: o.Batch,
		Concurrency: o.Concurrency, Window: o.Window, PullWindow: o.PullWindow, PullBatch: o.PullBatch}

	var err error
	switch o.Mode {
	case ModeProduce:
		err = r.produceOnly(ctx)
	case ModeConsume:
		err = r.consumeOnly(ctx)
	case ModeBoth:
		err = r.both(ctx)
	case ModePop:
		err = r.popOnly(ctx)
	}
	if err != nil {
		return nil, err
	}
	return r.rep, nil
}

type runner struct {
	o    *Options
	lg   *zap.Logger
	adm  *admin.Client // route, topic and offset calls
	keys keySpace
	rep  *Report
	prog *progress // nil: no progress lines
}

func (r *runner) note(format string, args ...any) {
	r.rep.Notes = append(r.rep.Notes, fmt.Sprintf(format, args...))
}

func (r *runner) produceOnly(ctx context.Context) error {
	qs, err := r.produceQueues(ctx)
	if err != nil {
		return err
	}
	r.rep.Produce = r.produce(ctx, qs, nil, nil)
	return nil
}

// produceQueues creates the topic or looks up its route.
func (r *runner) produceQueues(ctx context.Context) ([]queueRef, error) {
	if r.o.CreateTopic {
		qs, err := createTopic(ctx, r.adm, r.o.Topic, r.o.Cluster, r.o.Queues)
		if err != nil {
			return nil, err
		}
		r.note("created topic %s with %d queues on each master", r.o.Topic, r.o.Queues)
		return qs, nil
	}
	qs, fallback, err := produceRoute(ctx, r.adm, r.o.Topic)
	if err != nil {
		return nil, err
	}
	if fallback {
		r.note("topic %s unknown to the name server: sending over %s's route (%d queues) so the broker creates it",
			r.o.Topic, systopic.AutoCreate, len(qs))
	}
	return qs, nil
}

// produce runs the producer over qs and reports it. tr, if set, learns
// every acknowledged key; firstAck, if set, gets the channel closed when
// the broker first stores a message.
func (r *runner) produce(ctx context.Context, qs []queueRef, tr *tracker, firstAck func(<-chan struct{})) *PhaseReport {
	clients := make([]*remoting.Client, r.o.Connections)
	for i := range clients {
		clients[i] = remoting.NewClient(remoting.ClientOptions{RequestTimeout: r.o.RequestTimeout}, r.lg)
		defer clients[i].Close()
	}
	// Connect before the clock starts.
	for _, cli := range clients {
		for _, q := range qs {
			if _, err := cli.Conn(ctx, q.Addr); err != nil {
				r.note("connect to %s: %v", q.Addr, err)
			}
		}
	}
	p := newProducer(r.o, r.keys, tr, qs, clients)
	if firstAck != nil {
		firstAck(p.firstAck)
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	cpu := startCPU(r.o.BrokerPID)
	r.prog.watchProducer(p)
	defer r.prog.watchProducer(nil)
	start := time.Now()
	p.run(ctx)
	end := time.Now()
	if last := p.lastResp.Load(); last != 0 {
		end = time.Unix(0, last)
	}
	if ctx.Err() != nil {
		r.note("produce phase stopped by --timeout %s", r.o.Timeout)
	}
	var h Histogram
	for i := range p.hist {
		h.Merge(&p.hist[i])
	}
	acked := p.acked.Load()
	ph := &PhaseReport{
		Messages: acked, Attempted: p.sent.Load(), Requests: p.requests.Load(),
		Bytes: acked * int64(r.o.Size), Queues: len(qs), Latency: h.Summary(),
		Responses: p.codes.snapshot(), Remarks: p.remarks.snapshot(), BadAnswers: p.badAnswers.Load(),
		Complete: ctx.Err() == nil && (r.o.Messages == 0 || acked == r.o.Messages),
	}
	ph.setRate(end.Sub(start))
	ph.Errors = countErrors(ph.Responses, storedName)
	ph.CPU = cpu.stop(acked)
	return ph
}

func (r *runner) consumeOnly(ctx context.Context) error {
	rt, err := r.adm.TopicRoute(ctx, r.o.Topic)
	if err != nil {
		return fmt.Errorf("mqbench: route of %s: %w", r.o.Topic, err)
	}
	qs := readQueues(rt)
	if len(qs) == 0 {
		return fmt.Errorf("mqbench: topic %s has no readable queue on a master", r.o.Topic)
	}
	c := newConsumer(r.o, r.keys, nil)
	if err := r.addQueues(ctx, c, qs, nil); err != nil {
		return err
	}
	target := r.o.Messages
	if target == 0 {
		for _, pq := range c.qs {
			target += pq.max - pq.start
		}
		c.drain()
		r.note("reading the %d messages between the start offsets and the ends at start", target)
	}
	c.setTarget(target)
	r.rep.Consume = r.consume(ctx, c)
	return nil
}

// addQueues adds qs to c: starting at starts[q] when given, else at the
// committed offset (--from-committed) or 0; ending at the queue's max.
func (r *runner) addQueues(ctx context.Context, c *consumer, qs []queueRef, starts map[queueRef]int64) error {
	for _, q := range qs {
		start, known := starts[q]
		if !known && r.o.FromCommitted {
			off, _, err := r.adm.ConsumerOffset(ctx, q.Addr, r.o.Group, q.of(r.o.Topic))
			if err != nil {
				return fmt.Errorf("mqbench: committed offset of %s: %w", q, err)
			}
			start = max(off, 0)
		}
		end, err := r.adm.MaxOffset(ctx, q.Addr, q.of(r.o.Topic))
		if err != nil {
			return fmt.Errorf("mqbench: max offset of %s: %w", q, err)
		}
		c.addQueue(q, start, end)
	}
	return nil
}

// consume runs c, whose queues and target are set, and reports it.
func (r *runner) consume(ctx context.Context, c *consumer) *PhaseReport {
	cli := remoting.NewClient(remoting.ClientOptions{RequestTimeout: r.o.RequestTimeout}, r.lg)
	defer cli.Close()
	for _, pq := range c.qs {
		if _, err := cli.Conn(ctx, pq.q.Addr); err != nil {
			r.note("connect to %s: %v", pq.q.Addr, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	cpu := startCPU(r.o.BrokerPID)
	r.prog.watchConsumer(c)
	defer r.prog.watchConsumer(nil)
	start := time.Now()
	complete := c.run(ctx, cli)
	end := time.Now()
	if last := c.lastRead.Load(); last != 0 && complete {
		end = time.Unix(0, last)
	}
	if !complete {
		why := "--timeout " + r.o.Timeout.String() + " or every queue failing"
		if c.idled.Load() {
			why = "no message for --idle-timeout " + r.o.IdleTimeout.String()
		}
		r.note("consume phase stopped at %d of %d messages: %s", c.progress(), c.target.Load(), why)
	}
	msgs := c.msgs.Load()
	ph := &PhaseReport{
		Messages: msgs, Requests: c.pulls.Load(), Bytes: c.bytes.Load(), Queues: len(c.qs),
		Latency: c.hist.Summary(), Responses: c.codes.snapshot(), Complete: complete,
		ForeignRecords: c.foreign.Load(), BadCRC: c.badCRC.Load(), Misplaced: c.badOrder.Load(),
	}
	ph.setRate(end.Sub(start))
	ph.Errors = countErrors(ph.Responses, pullOKName)
	ph.CPU = cpu.stop(msgs)
	if r.o.FromCommitted {
		for _, pq := range c.qs {
			cctx, ccancel := context.WithTimeout(context.Background(), r.o.RequestTimeout)
			if err := r.adm.UpdateConsumerOffset(cctx, pq.q.Addr, r.o.Group, pq.q.of(r.o.Topic), pq.committable()); err != nil {
				r.note("commit offset of %s: %v", pq.q, err)
			}
			ccancel()
		}
	}
	return ph
}

// both produces, then reads back from where the queues ended before the
// run (at the same time with --overlap) and checks every acknowledged key
// arrived once.
func (r *runner) both(ctx context.Context) error {
	qs, err := r.produceQueues(ctx)
	if err != nil {
		return err
	}
	starts := map[queueRef]int64{}
	for _, q := range qs {
		off, err := r.adm.MaxOffset(ctx, q.Addr, q.of(r.o.Topic))
		if err != nil {
			off = 0 // a topic the broker does not have yet
		}
		starts[q] = off
	}
	return r.bothOver(ctx, qs, starts)
}

// bothOver produces to qs and reads back from starts.
func (r *runner) bothOver(ctx context.Context, qs []queueRef, starts map[queueRef]int64) error {
	tr := &tracker{}
	c := newConsumer(r.o, r.keys, tr)
	if r.o.Overlap {
		// The consumer starts once the broker has stored a message: before
		// that an auto-created topic does not exist and pulls would fail.
		for _, q := range qs {
			c.addQueue(q, starts[q], starts[q])
		}
		var ph *PhaseReport
		done := make(chan struct{})
		nothingStored := make(chan struct{})
		r.rep.Produce = r.produce(ctx, qs, tr, func(stored <-chan struct{}) {
			go func() {
				defer close(done)
				select {
				case <-stored:
					ph = r.consume(ctx, c)
				case <-nothingStored:
				}
			}()
		})
		c.setTarget(r.rep.Produce.Messages)
		r.note("--overlap: the phases ran at the same time, so their CPU figures cover the same seconds")
		if r.rep.Produce.Messages == 0 {
			close(nothingStored)
		}
		<-done
		r.rep.Consume = ph
	} else {
		r.rep.Produce = r.produce(ctx, qs, tr, nil)
		cqs := r.consumeQueues(ctx, qs)
		if err := r.addQueues(ctx, c, cqs, starts); err != nil {
			return err
		}
		c.setTarget(r.rep.Produce.Messages)
		r.rep.Consume = r.consume(ctx, c)
	}
	r.rep.Verify = tr.report()
	return nil
}

// consumeQueues is the topic's read queues once the name server knows the
// topic (the broker registers a topic it created from TBW102 at once, but
// asynchronously), else the queues the producer wrote to.
func (r *runner) consumeQueues(ctx context.Context, produced []queueRef) []queueRef {
	deadline := time.Now().Add(10 * time.Second)
	for {
		rt, err := r.adm.TopicRoute(ctx, r.o.Topic)
		if err == nil {
			if qs := readQueues(rt); len(qs) > 0 {
				return qs
			}
		}
		if !topicNotExist(err) || time.Now().After(deadline) || ctx.Err() != nil {
			r.note("reading the queues the producer wrote to: route of %s: %v", r.o.Topic, err)
			return produced
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// localIPv4 is the first non-loopback IPv4 address, for message keys.
func localIPv4() netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(ipn.IP); ok && ip.Unmap().Is4() && !ip.IsLoopback() {
					return ip.Unmap()
				}
			}
		}
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}
