package broker

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/broker/assign"
	"github.com/rocketgo/rocketgo/internal/broker/brokerstats"
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/longpoll"
	"github.com/rocketgo/rocketgo/internal/broker/membership"
	"github.com/rocketgo/rocketgo/internal/broker/nsreg"
	"github.com/rocketgo/rocketgo/internal/broker/offset"
	"github.com/rocketgo/rocketgo/internal/broker/pop"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/quota"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/internal/broker/timing"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Broker is one running broker.
type Broker struct {
	opts Options
	lg   *zap.Logger

	store        *store.Store
	topics       *topic.Manager
	groups       *subscription.Manager
	offsets      *offset.Manager
	consumers    *client.ConsumerManager
	producers    *client.ProducerManager
	holds        *longpoll.Service
	quota        *quota.Quota // what each connection may still create
	schedule     *schedule.Service
	tx           *transaction.Service
	timers       *timing.Service
	metrics      *metrics.Broker
	timerMetrics *metrics.Timer
	counters     *brokerstats.Manager
	live         live         // the services UPDATE_BROKER_CONFIG reconfigures (runtimeconfig.go)
	perm         atomic.Int32 // brokerPermission in effect
	permEpoch    atomic.Int64 // runtime brokerPermission changes, so far
	members      *membership.Service
	relay        *relay.Service
	pops         *pop.Service
	assign       *assign.Service
	routes       *topicRoutes
	proc         *processor.Processor
	server       *remoting.Server
	vip          *remoting.Server // nil without Options.FastListenAddr
	acl          *acl.Service     // nil unless Options.ACL
	nsClient     *remoting.Client
	registrar    *nsreg.Registrar
	repl         replication // master/slave replication (replication.go)
	ready        readiness   // what Ready reports (ready.go)

	loops     lifecycle.Group // housekeeping
	closeOnce sync.Once
	closeErr  error
}

// New opens the store and builds every component; nothing runs until Start.
func New(opts Options, lg *zap.Logger) (*Broker, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	opts.setDefaults()
	b := &Broker{opts: opts, lg: lg,
		quota: quota.New(quota.Limits{Groups: opts.Limits.MaxNewGroupsPerConnection, Topics: opts.Limits.MaxNewTopicsPerConnection})}
	b.perm.Store(int32(opts.BrokerPermission))
	if opts.ACL != nil {
		a, err := acl.New(*opts.ACL, lg.Named("acl"))
		if err != nil {
			return nil, fmt.Errorf("broker: %w", err)
		}
		b.acl = a
	}
	if err := b.openMetadata(); err != nil {
		return nil, err
	}
	b.consumers = client.NewConsumerManager(func(group string, remaining []client.ClientChannel) {
		b.members.GroupChanged(group, remaining)
	}, nil)
	b.producers = client.NewProducerManager(nil)
	checkEvery := 5 * time.Second
	if !opts.LongPollingEnable {
		checkEvery = opts.ShortPollingTime
	}
	b.holds = longpoll.New(longpoll.Options{CheckInterval: checkEvery, MaxOffset: func(t string, q int32) int64 {
		return b.store.MaxOffsetInQueue(t, q)
	}, MaxHeld: opts.Limits.MaxHeldPulls, MaxHeldPerOwner: opts.Limits.MaxHeldPullsPerConnection}, lg.Named("longpoll"))
	if err := b.openStore(); err != nil {
		return nil, err
	}
	if err := b.buildMetrics(); err != nil {
		b.store.Close()
		return nil, err
	}
	sched, err := schedule.New(schedule.Options{StorePathRootDir: opts.Store.RootDir, Levels: b.opts.Store.DelayLevels,
		FlushInterval: opts.FlushDelayOffsetInterval, Metrics: b.metrics}, b.store, lg.Named("schedule"))
	if err != nil {
		b.store.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	b.schedule = sched
	if err := b.openTimers(); err != nil {
		b.store.Close()
		return nil, err
	}
	b.tx = transaction.New(transaction.Options{
		BrokerName:               opts.BrokerName,
		StoreHost:                b.opts.Store.StoreHost,
		CheckInterval:            opts.TransactionCheckInterval,
		Timeout:                  opts.TransactionTimeOut,
		CheckMax:                 opts.TransactionCheckMax,
		RejectTransactionMessage: opts.RejectTransactionMessage,
		FileReservedTime:         b.opts.Store.FileReservedTime,
		MaxDelayLevel:            len(b.opts.Store.DelayLevels),
		Timers:                   b.timers,
		Metrics:                  b.metrics,
	}, b.store, b.offsets, b.producers, b.topics, lg.Named("transaction"))
	b.counters = brokerstats.New(opts.ClusterName)
	if err := b.buildPop(); err != nil {
		b.store.Close()
		return nil, err
	}
	b.buildReplication()
	b.buildServer()
	return b, nil
}

func (b *Broker) openMetadata() error {
	root := b.opts.Store.RootDir
	to := topic.DefaultOptions()
	to.StorePathRootDir, to.ClusterName, to.BrokerName = root, b.opts.ClusterName, b.opts.BrokerName
	to.AutoCreateTopicEnable, to.DefaultTopicQueueNums = b.opts.AutoCreateTopicEnable, b.opts.DefaultTopicQueueNums
	to.ClusterTopicEnable, to.BrokerTopicEnable = b.opts.ClusterTopicEnable, b.opts.BrokerTopicEnable
	to.TraceTopicEnable = b.opts.TraceTopicEnable
	to.Admit = b.quota.TakeTopics
	if b.opts.MsgTraceTopicName != "" {
		to.MsgTraceTopicName = b.opts.MsgTraceTopicName
	}
	to.OnChange = func(topic.Change) {
		if r := b.registrar; r != nil {
			r.Trigger()
		}
	}
	var err error
	if b.topics, err = topic.New(to, b.lg.Named("topic")); err != nil {
		return fmt.Errorf("broker: load topics: %w", err)
	}
	b.groups, err = subscription.New(subscription.Options{StorePathRootDir: root,
		AutoCreateSubscriptionGroup: b.opts.AutoCreateSubscriptionGroup, Admit: b.quota.TakeGroups}, b.lg.Named("subscription"))
	if err != nil {
		return fmt.Errorf("broker: load subscription groups: %w", err)
	}
	b.offsets, err = offset.New(offset.Options{StorePathRootDir: root, FlushInterval: b.opts.FlushConsumerOffsetInterval}, b.lg.Named("offset"))
	if err != nil {
		return fmt.Errorf("broker: load consumer offsets: %w", err)
	}
	return nil
}

func (b *Broker) openStore() error {
	so := b.opts.Store
	if !so.StoreHost.IsValid() {
		ap, err := netip.ParseAddrPort(b.opts.BrokerAddr)
		if err != nil {
			return fmt.Errorf("broker: brokerAddr %q is not ip:port: %w", b.opts.BrokerAddr, err)
		}
		so.StoreHost = ap
	}
	so.OnDispatch = func(d store.DispatchInfo) {
		b.holds.Notify(d.Topic, d.QueueID, d.QueueOffset, d.TagsCode, d.Properties)
		if p := b.pops; p != nil {
			p.Notify(d.Topic, d.QueueID)
		}
		b.wakeTimers(d.Topic)
	}
	// Expired files moved some queues' minimum up: offsets below it move up too, never to 0
	// (apache/rocketmq#4215).
	so.OnCleaned = func(store.CleanResult) {
		if n := b.offsets.Clamp(b.store.QueueBounds); n > 0 {
			b.lg.Info("consumer offsets below a queue's new minimum moved up to it", zap.Int("offsets", n))
		}
	}
	st, err := store.Open(so, b.lg.Named("store"), b.storeMetrics())
	if err != nil {
		return fmt.Errorf("broker: open store: %w", err)
	}
	b.store = st
	b.opts.Store = so
	// Offsets past what survived recovery are pulled back; offsets below a queue's start move up.
	if n := b.offsets.Clamp(st.QueueBounds); n > 0 {
		b.lg.Warn("consumer offsets clamped to the recovered queues", zap.Int("offsets", n))
	}
	return nil
}

func (b *Broker) buildServer() {
	po := processor.Options{RegionID: b.opts.RegionID, TraceOn: b.opts.TraceOn,
		InlineSends: b.opts.HA.Role != store.RoleSyncMaster}
	if b.acl != nil {
		po.Access = b.acl
	}
	b.proc = processor.New(po, b.services())
	var observe func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration)
	if b.metrics != nil {
		observe = func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration) {
			b.metrics.ObserveRPC(int32(code), int32(respCode), d, code == protocol.PullMessage && d >= time.Second)
		}
	}
	so := remoting.ServerOptions{
		Addr:                  b.opts.ListenAddr,
		MaxConcurrentRequests: b.opts.MaxConcurrentRequests,
		Limits:                b.opts.Remoting,
		OnDisconnect:          b.connClosed,
		Observe:               observe,
		Intercept:             b.aclCheck(),
		TLS:                   b.opts.TLS,
		ConnIDs:               new(atomic.Uint64), // one numbering for both ports: memberships key on it
		// A oneway offset commit is applied before the connection's next request (the Java
		// client's reset: commit oneway, then QUERY_CONSUMER_OFFSET at once).
		InOrder: func(code protocol.RequestCode) bool { return code == protocol.UpdateConsumerOffset },
	}
	b.server = remoting.NewServer(so, b.lg.Named("remoting"))
	b.proc.Register(watermarked{b.server, b.metrics})
	if b.opts.FastListenAddr != "" {
		so.Addr = b.opts.FastListenAddr
		b.vip = remoting.NewServer(so, b.lg.Named("remoting-vip"))
		b.proc.Register(watermarked{b.vip, b.metrics})
	}
}

// startServers listens on the client port and, if configured, the VIP port.
func (b *Broker) startServers() error {
	if err := b.server.Start(); err != nil {
		return fmt.Errorf("broker: listen on %s: %w", b.opts.ListenAddr, err)
	}
	if b.vip == nil {
		return nil
	}
	if err := b.vip.Start(); err != nil {
		return fmt.Errorf("broker: listen on %s (VIP channel, fastListenPort): %w", b.opts.FastListenAddr, err)
	}
	return nil
}

// closeServers stops accepting requests on both ports.
func (b *Broker) closeServers() error {
	err := b.server.Close()
	if b.vip != nil {
		err = errors.Join(err, b.vip.Close())
	}
	return err
}

// VIPAddr is the address of the VIP channel, nil without one.
func (b *Broker) VIPAddr() net.Addr {
	if b.vip == nil {
		return nil
	}
	return b.vip.Addr()
}

// connClosed ends what a closed connection had: its memberships, its held pulls, the count of
// what it created.
func (b *Broker) connClosed(c *remoting.Conn) {
	b.proc.ConnClosed(c)
	b.quota.Release(c.ID())
}

// Start serves clients and registers with the nameservers.
func (b *Broker) Start() error {
	b.store.Start()
	b.offsets.Start()
	b.holds.Start()
	b.counters.Start()
	if !b.opts.IsSlave() {
		b.schedule.Start()
		b.tx.Start()
	}
	if err := b.pops.Start(); err != nil {
		return fmt.Errorf("broker: pop: %w", err)
	}
	b.timers.Start()
	if err := b.startServers(); err != nil {
		return err
	}
	if b.acl != nil {
		b.acl.Start()
	}
	if err := b.startReplication(); err != nil {
		return err
	}
	b.loops.Go(b.housekeeping)
	if len(b.opts.NamesrvAddrs) > 0 {
		b.nsClient = remoting.NewClient(remoting.ClientOptions{}, b.lg.Named("nsclient"))
		b.registrar = nsreg.New(nsreg.Options{
			NamesrvAddrs:  b.opts.NamesrvAddrs,
			ClusterName:   b.opts.ClusterName,
			BrokerName:    b.opts.BrokerName,
			BrokerAddr:    b.opts.BrokerAddr,
			HAServerAddr:  b.opts.HAServerAddr,
			BrokerID:      b.opts.BrokerID,
			Period:        b.opts.RegisterPeriod,
			Timeout:       b.opts.RegisterTimeout,
			Compressed:    b.opts.CompressedRegister,
			SkipUnchanged: !b.opts.ForceRegister,
		}, b.nsClient, b.registration, b.registeredWith, b.lg.Named("nsreg"))
		b.registrar.Start()
	}
	b.ready.started.Store(true)
	b.lg.Info("broker started", zap.String("name", b.opts.BrokerName), zap.String("addr", b.Addr().String()),
		zap.Strings("namesrv", b.opts.NamesrvAddrs))
	return nil
}

// housekeeping drops clients silent for longer than channelExpiredTimeout (Java
// ClientHousekeepingService) and closes their connections.
func (b *Broker) housekeeping(stop <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			expired := append(b.consumers.ScanExpired(b.opts.ChannelExpiredTimeout), b.producers.ScanExpired(b.opts.ChannelExpiredTimeout)...)
			for _, ch := range expired {
				if c, ok := ch.(*remoting.Conn); ok {
					b.lg.Info("closing expired client connection", zap.String("remote", c.RemoteAddr()))
					_ = c.Close()
				}
			}
		}
	}
}

// Addr is the address the broker listens on.
func (b *Broker) Addr() net.Addr { return b.server.Addr() }

// Store is the broker's message store (tests inspect it).
func (b *Broker) Store() *store.Store { return b.store }

// Close shuts the broker down, in this order:
//  1. unregister from the nameservers, so clients stop routing here;
//  2. answer held pulls and pops, stop the revive service and stop accepting requests;
//  3. stop housekeeping, delayed and timer delivery, and replication (HA service or client,
//     metadata sync);
//  4. persist consumer and delay offsets;
//  5. close the store: flush the CommitLog, ConsumeQueues and index, write the checkpoint,
//     remove the abort file, unmap;
//  6. close the timer files with a last checkpoint (the CommitLog is flushed now).
func (b *Broker) Close() error {
	b.closeOnce.Do(func() {
		b.ready.closing.Store(true)
		if b.registrar != nil {
			b.registrar.Close()
		}
		b.holds.Close()
		b.pops.Stop()
		err := b.closeServers()
		b.relay.Close()
		if b.acl != nil {
			b.acl.Close()
		}
		b.loops.Stop()
		b.timers.Stop()
		b.counters.Close()
		err = errors.Join(err, b.closeReplication(), b.schedule.Close(), b.tx.Close(), b.offsets.Close(), b.store.Close(),
			b.timers.Close())
		if b.nsClient != nil {
			err = errors.Join(err, b.nsClient.Close())
		}
		b.closeErr = err
	})
	return b.closeErr
}
