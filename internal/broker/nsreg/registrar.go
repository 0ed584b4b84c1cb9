package nsreg

import (
	"context"
	"fmt"
	"hash/crc32"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Invoker sends one request to an address; *remoting.Client satisfies it.
type Invoker interface {
	Invoke(ctx context.Context, addr string, req *protocol.Command) (*protocol.Command, error)
}

// Options describe the broker being registered.
type Options struct {
	NamesrvAddrs []string
	ClusterName  string
	BrokerName   string
	BrokerAddr   string // brokerIP1:listenPort
	HAServerAddr string // brokerIP2:haListenPort
	BrokerID     int64
	// Period between registrations; clamped to 10–60 s as Java does. Default 30 s.
	Period time.Duration
	// Timeout of one registration. Default 24 s (registerBrokerTimeoutMills).
	Timeout time.Duration
	// Compressed sends the zlib body form (compressedRegister).
	Compressed bool
	// SkipUnchanged is forceRegister=false: a periodic registration happens only when a name
	// server's QUERY_DATA_VERSION says the topic table changed (the query keeps the broker alive
	// there). Registrations asked for with Trigger always happen.
	SkipUnchanged bool
}

// Result is what a nameserver answered to a registration.
type Result struct {
	NamesrvAddr  string
	MasterAddr   string
	HAServerAddr string
}

// Registrar owns the periodic registration goroutine.
type Registrar struct {
	opts     Options
	client   Invoker
	topics   func() body.TopicConfigSerializeWrapper
	onResult func(Result)
	lg       *zap.Logger

	kick chan struct{}
	loop lifecycle.Group // the periodic registration
	once sync.Once
}

// New returns a Registrar. topics snapshots the broker's topic table; onResult (may be nil) hears
// every successful answer (a slave learns its master's address from it).
func New(opts Options, client Invoker, topics func() body.TopicConfigSerializeWrapper, onResult func(Result), lg *zap.Logger) *Registrar {
	if opts.Period <= 0 {
		opts.Period = 30 * time.Second
	}
	opts.Period = min(max(opts.Period, 10*time.Second), 60*time.Second)
	if opts.Timeout <= 0 {
		opts.Timeout = 24 * time.Second
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Registrar{opts: opts, client: client, topics: topics, onResult: onResult, lg: lg,
		kick: make(chan struct{}, 1)}
}

// Start registers with every nameserver at once, then keeps doing so every period.
func (r *Registrar) Start() {
	r.RegisterAll()
	r.loop.Go(r.run)
}

func (r *Registrar) run(stop <-chan struct{}) {
	t := time.NewTicker(r.opts.Period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.periodic()
		case <-r.kick:
			r.RegisterAll()
		}
	}
}

// periodic is the registration every period (Java's registerBrokerAll with forceRegister).
func (r *Registrar) periodic() {
	if !r.opts.SkipUnchanged || r.needRegister() {
		r.RegisterAll()
	}
}

// needRegister asks every name server whether the topic table's version differs from the one it
// has (Java needRegister); an error counts as a change.
func (r *Registrar) needRegister() bool {
	version, err := body.Marshal(r.topics().DataVersion)
	if err != nil {
		return true
	}
	changed := make(chan bool, len(r.opts.NamesrvAddrs))
	for _, addr := range r.opts.NamesrvAddrs {
		go func() { changed <- r.queryChanged(addr, version) }()
	}
	any := false
	for range r.opts.NamesrvAddrs {
		any = <-changed || any
	}
	return any
}

// queryChanged sends QUERY_DATA_VERSION to one name server.
func (r *Registrar) queryChanged(addr string, version []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.Timeout)
	defer cancel()
	resp, err := r.client.Invoke(ctx, addr, protocol.NewHeaderRequest(protocol.QueryDataVersion,
		&protocol.QueryDataVersionRequestHeader{BrokerName: r.opts.BrokerName, BrokerAddr: r.opts.BrokerAddr,
			ClusterName: r.opts.ClusterName, BrokerID: r.opts.BrokerID}, version))
	if err != nil || resp.ResponseCode() != protocol.Success {
		return true
	}
	var h protocol.QueryDataVersionResponseHeader
	return h.Decode(resp.ExtFields) != nil || h.Changed
}

// Trigger asks for a registration soon (after a topic was created or changed) without waiting.
func (r *Registrar) Trigger() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// RegisterAll registers with every nameserver in parallel and waits for the answers.
func (r *Registrar) RegisterAll() {
	payload, err := r.encodeBody()
	if err != nil {
		r.lg.Error("register broker: encode topic table", zap.Error(err))
		return
	}
	var wg sync.WaitGroup
	for _, addr := range r.opts.NamesrvAddrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.register(addr, payload)
			if err != nil {
				r.lg.Warn("register broker failed", zap.String("namesrv", addr), zap.Error(err))
				return
			}
			if r.onResult != nil {
				r.onResult(res)
			}
		}()
	}
	wg.Wait()
}

func (r *Registrar) encodeBody() ([]byte, error) {
	b := body.RegisterBrokerBody{TopicConfigSerializeWrapper: r.topics()}
	return b.Encode(r.opts.Compressed)
}

func (r *Registrar) register(addr string, payload []byte) (Result, error) {
	req := protocol.NewHeaderRequest(protocol.RegisterBroker, &protocol.RegisterBrokerRequestHeader{
		BrokerName:   r.opts.BrokerName,
		BrokerAddr:   r.opts.BrokerAddr,
		ClusterName:  r.opts.ClusterName,
		HaServerAddr: r.opts.HAServerAddr,
		BrokerID:     r.opts.BrokerID,
		Compressed:   protocol.Some(r.opts.Compressed),
		BodyCrc32:    protocol.Some(int32(crc32.ChecksumIEEE(payload) & 0x7FFFFFFF)),
	}, payload)
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.Timeout)
	defer cancel()
	resp, err := r.client.Invoke(ctx, addr, req)
	if err != nil {
		return Result{}, err
	}
	if resp.ResponseCode() != protocol.Success {
		return Result{}, fmt.Errorf("nsreg: %s answered %d: %s", addr, resp.Code, resp.Remark)
	}
	var h protocol.RegisterBrokerResponseHeader
	if err := h.Decode(resp.ExtFields); err != nil {
		return Result{}, fmt.Errorf("nsreg: %s: %w", addr, err)
	}
	return Result{NamesrvAddr: addr, MasterAddr: h.MasterAddr.V, HAServerAddr: h.HaServerAddr.V}, nil
}

// Close stops the loop and unregisters from every nameserver. It is idempotent.
func (r *Registrar) Close() {
	r.once.Do(func() {
		r.loop.Stop()
		r.unregisterAll()
	})
}

func (r *Registrar) unregisterAll() {
	var wg sync.WaitGroup
	for _, addr := range r.opts.NamesrvAddrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			resp, err := r.client.Invoke(ctx, addr, protocol.NewHeaderRequest(protocol.UnregisterBroker,
				&protocol.UnregisterBrokerRequestHeader{BrokerName: r.opts.BrokerName, BrokerAddr: r.opts.BrokerAddr,
					ClusterName: r.opts.ClusterName, BrokerID: r.opts.BrokerID}, nil))
			if err == nil && resp.ResponseCode() != protocol.Success {
				err = fmt.Errorf("answered %d: %s", resp.Code, resp.Remark)
			}
			if err != nil {
				r.lg.Warn("unregister broker failed", zap.String("namesrv", addr), zap.Error(err))
			}
		}()
	}
	wg.Wait()
}
