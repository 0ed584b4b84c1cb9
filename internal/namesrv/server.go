package namesrv

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Options configure a Server. Start from DefaultOptions; the config package maps namesrv.conf
// onto these fields.
type Options struct {
	// ListenAddr is "host:port"; ":0" picks a free port.
	ListenAddr string
	// KVConfigPath is kvConfig.json.
	KVConfigPath string
	// ScanNotActiveBrokerInterval is how often expired brokers are dropped.
	ScanNotActiveBrokerInterval time.Duration
	// BrokerChannelExpiredTime is how long a broker stays without re-registering.
	BrokerChannelExpiredTime time.Duration
	// Limits bound the connections of the name server's port: idle time
	// (serverChannelMaxIdleTimeSeconds; 0 never), number, queued bytes (remoting.Limits).
	Limits remoting.Limits
	// OrderMessageEnable adds orderTopicConf (KV namespace ORDER_TOPIC_CONFIG) to routes.
	OrderMessageEnable bool
	// ReturnOrderTopicConfigToBroker answers REGISTER_BROKER with the ORDER_TOPIC_CONFIG table.
	ReturnOrderTopicConfigToBroker bool
	// EnableAllTopicList allows GET_ALL_TOPIC_LIST_FROM_NAMESERVER; EnableTopicList
	// GET_TOPICS_BY_CLUSTER.
	EnableAllTopicList bool
	EnableTopicList    bool
	// NeedWaitForService refuses routes for WaitForService after start, giving brokers time to
	// register.
	NeedWaitForService bool
	WaitForService     time.Duration
	// DeleteTopicWithBrokerRegistration: see RouteOptions.
	DeleteTopicWithBrokerRegistration bool
	// MaxConcurrentRequests bounds requests in flight; 0 means remoting's default.
	MaxConcurrentRequests int
	// MaxTopicsPerRegistration bounds the topics of one REGISTER_BROKER (registerBrokerMaxTopics);
	// 0 means DefaultMaxTopicsPerRegistration.
	MaxTopicsPerRegistration int
	// MaxRegistrationBodyBytes bounds a REGISTER_BROKER body once inflated
	// (registerBrokerMaxBodyBytes); 0 means DefaultMaxRegistrationBodyBytes.
	MaxRegistrationBodyBytes int
	// KVMaxValueBytes and KVMaxTotalBytes bound the KV store (kvConfigMaxValueBytes,
	// kvConfigMaxTotalBytes); 0 takes KVOptions' defaults.
	KVMaxValueBytes int
	KVMaxTotalBytes int
	// RegistrationAllowlist, when not empty, holds the only addresses REGISTER_BROKER,
	// UNREGISTER_BROKER and QUERY_DATA_VERSION are taken from (brokerRegistrationAllowlist);
	// AdminAllowlist the same for PUT_KV_CONFIG, DELETE_KV_CONFIG, DELETE_TOPIC_IN_NAMESRV,
	// WIPE_WRITE_PERM_OF_BROKER, ADD_WRITE_PERM_OF_BROKER and UPDATE_NAMESRV_CONFIG
	// (adminWriteAllowlist). Others are answered NO_PERMISSION. Empty, the default as in Apache
	// RocketMQ, admits everyone.
	RegistrationAllowlist []netip.Prefix
	AdminAllowlist        []netip.Prefix
	// ConfigKeys are namesrv.conf's keys with their effective values, which GET_NAMESRV_CONFIG
	// shows (the config package fills them); the keys UPDATE_NAMESRV_CONFIG may change are shown
	// with their current values whether listed or not.
	ConfigKeys []ConfigKey
	// ConfigBlackList names keys UPDATE_NAMESRV_CONFIG refuses to touch (configBlackList), on top
	// of configBlackList, configStorePath, kvConfigPath and rocketmqHome, which it always refuses.
	ConfigBlackList []string
	// Observe, if set, is called for every response written (request code, response code,
	// latency); the caller wires it to the RPC metrics.
	Observe func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration)
	// MetricLabels are constant labels on the name server's own gauges.
	MetricLabels map[string]string
	// TLS is the port's TLS mode and certificate (tls.server.mode); the zero value is plain TCP.
	TLS remoting.TLSOptions
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultOptions returns Java's name server defaults.
func DefaultOptions() Options {
	home, _ := os.UserHomeDir()
	return Options{
		ListenAddr:                     ":9876",
		KVConfigPath:                   filepath.Join(home, "namesrv", "kvConfig.json"),
		ScanNotActiveBrokerInterval:    5 * time.Second,
		BrokerChannelExpiredTime:       DefaultBrokerChannelExpiredTime,
		Limits:                         remoting.Limits{IdleTimeout: 120 * time.Second},
		ReturnOrderTopicConfigToBroker: true,
		EnableAllTopicList:             true,
		EnableTopicList:                true,
		WaitForService:                 45 * time.Second,
	}
}

// Server is a RocketMQ name server: the route table, the KV store, their request handlers on a
// remoting server, and the goroutine that drops brokers which stopped registering.
type Server struct {
	opts   Options
	lg     *zap.Logger
	routes *RouteInfoManager
	kv     *KVConfig
	proc   *processor
	srv    *remoting.Server

	closeOnce sync.Once
	loops     lifecycle.Group // the liveness scanner
	mu        sync.Mutex
	started   bool
	closed    bool
}

// New loads the KV store and prepares the server; Start listens. reg may be nil.
func New(opts Options, lg *zap.Logger, reg prometheus.Registerer) (*Server, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ScanNotActiveBrokerInterval <= 0 {
		opts.ScanNotActiveBrokerInterval = 5 * time.Second
	}
	if opts.KVConfigPath == "" {
		return nil, errors.New("namesrv: KVConfigPath is empty")
	}
	if opts.MaxTopicsPerRegistration <= 0 {
		opts.MaxTopicsPerRegistration = DefaultMaxTopicsPerRegistration
	}
	if opts.MaxRegistrationBodyBytes <= 0 {
		opts.MaxRegistrationBodyBytes = DefaultMaxRegistrationBodyBytes
	}
	kv, err := NewKVConfig(KVOptions{Path: opts.KVConfigPath, MaxValueBytes: opts.KVMaxValueBytes,
		MaxTotalBytes: opts.KVMaxTotalBytes}, lg)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts,
		lg:   lg,
		kv:   kv,
		routes: NewRouteInfoManager(RouteOptions{
			BrokerChannelExpiredTime:          opts.BrokerChannelExpiredTime,
			DeleteTopicWithBrokerRegistration: opts.DeleteTopicWithBrokerRegistration,
			Now:                               opts.Now,
		}),
	}
	live := newLiveConfig(opts, func(c runtimeConfig) {
		s.routes.SetDeleteTopicWithBrokerRegistration(c.deleteTopicWithBrokerRegistration)
	})
	s.proc = &processor{opts: opts, lg: lg, warn: newLimitedLog(lg), conflicts: newLimitedLog(lg),
		decodeSlots: make(chan struct{}, registrationDecodes), routes: s.routes, kv: kv, live: live}
	s.srv = remoting.NewServer(remoting.ServerOptions{
		Addr:                  opts.ListenAddr,
		MaxConcurrentRequests: opts.MaxConcurrentRequests,
		Limits:                opts.Limits,
		OnDisconnect:          s.onDisconnect,
		Observe:               opts.Observe,
		TLS:                   opts.TLS,
	}, lg)
	for code, fn := range s.proc.handlers() {
		s.srv.Handle(code, s.proc.serve(code, fn))
	}
	if err := s.registerMetrics(reg); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) registerMetrics(reg prometheus.Registerer) error {
	if reg == nil {
		return nil
	}
	gauge := func(name, help string, read func() int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: s.opts.MetricLabels},
			func() float64 { return float64(read()) })
	}
	for _, g := range []prometheus.Collector{
		gauge("rocketgo_namesrv_live_brokers", "Broker addresses registered with the name server.", s.routes.LiveBrokers),
		gauge("rocketgo_namesrv_topics", "Topics with a route on the name server.", s.routes.TopicCount),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "rocketgo_namesrv_kv_file_writes_total", Help: "Times kvConfig.json has been written.",
			ConstLabels: s.opts.MetricLabels,
		}, func() float64 { return float64(s.kv.Writes()) }),
		gauge("rocketgo_namesrv_connections", "Open connections to the name server's port.", s.srv.Connections),
		gauge("rocketgo_namesrv_queued_bytes", "Bytes of answers waiting to be written, on all connections.",
			func() int { return int(s.srv.QueuedBytes()) }),
	} {
		if err := reg.Register(g); err != nil {
			return fmt.Errorf("namesrv: register metrics: %w", err)
		}
	}
	return nil
}

// Routes returns the route table (for tests and tools).
func (s *Server) Routes() *RouteInfoManager { return s.routes }

// KV returns the KV store.
func (s *Server) KV() *KVConfig { return s.kv }

// Start listens and starts the liveness scanner.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("namesrv: server closed")
	}
	if s.started {
		return errors.New("namesrv: already started")
	}
	s.proc.startedAt = s.opts.Now()
	if err := s.srv.Start(); err != nil {
		return fmt.Errorf("namesrv: listen %s: %w", s.opts.ListenAddr, err)
	}
	s.started = true
	s.loops.Go(s.scanLoop)
	s.lg.Info("name server started", zap.Stringer("addr", s.srv.Addr()))
	return nil
}

// Addr is the listening address, nil before Start.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Close stops the scanner and the remoting server and waits for them. It is idempotent.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.loops.Stop()
		err = s.srv.Close()
		s.lg.Info("name server stopped")
	})
	return err
}

func (s *Server) scanLoop(stop <-chan struct{}) {
	t := time.NewTicker(s.opts.ScanNotActiveBrokerInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.ScanNotActiveBrokers()
		}
	}
}

// ScanNotActiveBrokers drops the brokers that stopped registering and closes their connections.
// The scanner goroutine calls it every ScanNotActiveBrokerInterval.
func (s *Server) ScanNotActiveBrokers() {
	for _, e := range s.routes.ScanNotActiveBrokers() {
		s.lg.Warn("broker expired", zap.String("brokerAddr", e.BrokerAddr), zap.Time("lastUpdate", e.LastUpdate))
		for _, conn := range e.Conns {
			if c, ok := conn.(*remoting.Conn); ok && c != nil {
				_ = c.Close()
			}
		}
	}
}

func (s *Server) onDisconnect(c *remoting.Conn) {
	for _, addr := range s.routes.OnConnectionClose(c) {
		s.lg.Info("broker connection closed, broker removed", zap.String("brokerAddr", addr),
			zap.String("remote", c.RemoteAddr()))
	}
}
