package broker

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/nsreg"
	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/broker/slave"
	"github.com/rocketgo/rocketgo/internal/ha"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
)

// HAOptions configure classic master/slave replication (docs/ha.md). Zero values take Java's
// defaults.
type HAOptions struct {
	// Role is brokerRole, the broker's only record of its role (Options.IsSlave reads it). A slave
	// refuses sends, replicates its master's CommitLog and copies its metadata.
	Role store.Role
	// ListenAddr is where a master accepts slaves (haListenPort on the bind address); "" runs no
	// HA service (every SYNC_MASTER put then answers SLAVE_NOT_AVAILABLE).
	ListenAddr string
	// MasterAddress is haMasterAddress: a slave's fixed master HA address. When empty the slave
	// uses the haServerAddr the nameserver answers to its registration.
	MasterAddress string

	HeartbeatInterval    time.Duration // haSendHeartbeatInterval, 5 s
	HousekeepingInterval time.Duration // haHousekeepingInterval, 20 s
	TransferBatchSize    int           // haTransferBatchSize, 32 KiB
	SlaveFallbehindMax   int64         // haSlaveFallbehindMax, 256 MiB
	SlaveTimeout         time.Duration // slaveTimeout, 3 s
	// ReconnectInterval is a slave's pause before connecting again (5 s).
	ReconnectInterval time.Duration
	// MetadataSyncInterval is how often a slave copies its master's metadata (10 s; the first
	// time after 3 s or this interval, whichever is shorter).
	MetadataSyncInterval time.Duration
	// AllowedPeers, when not empty, are the only addresses a master accepts slaves from.
	AllowedPeers []netip.Prefix
}

// haDefaults hands the role to the store. A slave reads "from disk" sooner: Java lowers
// accessMessageInMemoryMaxRatio by 10 on slaves.
func (o *Options) haDefaults() {
	o.Store.Role = o.HA.Role
	if o.IsSlave() {
		r := o.Store.AccessMessageInMemoryMaxRatio
		if r <= 0 {
			r = store.DefaultOptions("").AccessMessageInMemoryMaxRatio
		}
		o.Store.AccessMessageInMemoryMaxRatio = max(r-10, 1)
	}
	if o.HA.MetadataSyncInterval <= 0 {
		o.HA.MetadataSyncInterval = 10 * time.Second
	}
}

// replication is the broker's part in master/slave replication: a master's HA service, or a
// slave's HA client, metadata sync and the remoting client it syncs with.
type replication struct {
	svc    *ha.Service
	cli    *ha.Client
	sync   *slave.Syncer
	remote *remoting.Client
}

// buildReplication builds the HA parts of the broker's role; nothing runs until Start.
func (b *Broker) buildReplication() {
	o := b.opts.HA
	lg := b.lg.Named("ha")
	if !b.opts.IsSlave() {
		if o.ListenAddr != "" {
			b.repl.svc = ha.NewService(ha.ServiceOptions{
				ListenAddr: o.ListenAddr, TransferBatchSize: o.TransferBatchSize,
				HeartbeatInterval: o.HeartbeatInterval, HousekeepingInterval: o.HousekeepingInterval,
				SlaveFallbehindMax: o.SlaveFallbehindMax, SlaveTimeout: o.SlaveTimeout,
				AllowedPeers: o.AllowedPeers,
			}, b.store, lg)
			b.store.SetReplicator(b.repl.svc)
		}
		return
	}
	b.repl.cli = ha.NewClient(ha.ClientOptions{
		MasterAddr: o.MasterAddress, HeartbeatInterval: o.HeartbeatInterval,
		HousekeepingInterval: o.HousekeepingInterval, ReconnectInterval: o.ReconnectInterval,
		MaxRecordSize: maxRecordSize(b.opts.Store.MaxMessageSize),
	}, b.store, lg)
	b.repl.remote = remoting.NewClient(remoting.ClientOptions{}, b.lg.Named("slavesync"))
	b.repl.sync = slave.New(slave.Options{
		Interval:        o.MetadataSyncInterval,
		InitialDelay:    min(3*time.Second, o.MetadataSyncInterval),
		DelayOffsetPath: schedule.ConfigPath(b.opts.Store.RootDir),
	}, b.repl.remote, slave.Deps{Topics: b.topics, Groups: b.groups, Offsets: b.offsets, Delay: b.schedule,
		Timers: b.timers}, b.lg.Named("slavesync"))
}

// maxRecordSize bounds a replicated record: the largest body the broker accepts plus room for the
// topic, properties and fixed fields. A master configured with a larger maxMessageSize than its
// slave makes the slave halt at the first larger record, loudly.
func maxRecordSize(maxMessageSize int) int {
	if maxMessageSize <= 0 {
		return 0 // the client's default
	}
	return maxMessageSize + 64<<10
}

// startReplication starts the HA service (and advertises its real port when it was asked for
// any port) or the slave's replication and metadata sync.
func (b *Broker) startReplication() error {
	if svc := b.repl.svc; svc != nil {
		if err := svc.Start(); err != nil {
			return fmt.Errorf("broker: %w", err)
		}
		b.opts.HAServerAddr = withPort(b.opts.HAServerAddr, svc.Addr())
	}
	if b.repl.cli != nil {
		b.repl.cli.Start()
		b.repl.sync.Start()
	}
	return nil
}

// withPort replaces a 0 or missing port of addr ("host:0") by the one the service listens on.
func withPort(addr string, ln net.Addr) string {
	tcp, ok := ln.(*net.TCPAddr)
	if !ok {
		return addr
	}
	host, port, err := net.SplitHostPort(addr)
	switch {
	case addr == "":
		return tcp.String()
	case err != nil || port != "0":
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// onRegistered hears every nameserver's answer to REGISTER_BROKER: a slave follows the master it
// names (its HA address unless haMasterAddress is set, and its remoting address for metadata).
func (b *Broker) onRegistered(res nsreg.Result) {
	if !b.opts.IsSlave() {
		return
	}
	if b.opts.HA.MasterAddress == "" {
		b.repl.cli.SetMasterAddr(res.HAServerAddr)
	}
	b.repl.sync.SetMasterAddr(res.MasterAddr)
}

// closeReplication stops replication; it runs before the store and the offsets close.
func (b *Broker) closeReplication() error {
	var errs []error
	if b.repl.svc != nil {
		errs = append(errs, b.repl.svc.Close())
	}
	if b.repl.cli != nil {
		b.repl.sync.Close()
		errs = append(errs, b.repl.cli.Close(), b.repl.remote.Close())
	}
	return errors.Join(errs...)
}

// HAService is a master's replication service, nil on a slave or without HA.ListenAddr.
func (b *Broker) HAService() *ha.Service { return b.repl.svc }

// HAClient is a slave's replication client, nil on a master.
func (b *Broker) HAClient() *ha.Client { return b.repl.cli }
