package brokertest

import (
	"net/netip"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

// Small store sizes that make tests cross file boundaries cheaply.
const (
	SegmentSize    = 1 << 20 // CommitLog segment
	EntriesPerFile = 1000    // ConsumeQueue file
)

// StoreHost is the address written into records and offset message ids.
var StoreHost = netip.MustParseAddrPort("127.0.0.1:10911")

// Options returns Java's defaults for a broker over dir: long polling on, topics auto-created from
// TBW102, small store files, fast flushes and no nameserver.
func Options(dir string) broker.Options {
	so := store.DefaultOptions(dir)
	so.CommitLogSegmentSize = SegmentSize
	so.CQEntriesPerFile = EntriesPerFile
	so.StoreHost = StoreHost
	so.FS = storetest.WithDiskUsage(vfs.Default, storetest.NoDiskPressure) // the machine's own disk must not decide the tests
	so.MaxHashSlotNum = 1000
	so.MaxIndexNum = 4000
	so.FlushIntervalCommitLog = 10 * time.Millisecond
	so.FlushCommitLogThoroughInterval = 50 * time.Millisecond
	so.FlushIntervalConsumeQueue = 10 * time.Millisecond
	so.FlushConsumeQueueThoroughInterval = 50 * time.Millisecond
	return broker.Options{
		ClusterName:                    "DefaultCluster",
		BrokerName:                     "broker-a",
		ListenAddr:                     "127.0.0.1:0",
		BrokerAddr:                     StoreHost.String(),
		HAServerAddr:                   "127.0.0.1:10912",
		BrokerPermission:               6,
		Store:                          so,
		AutoCreateTopicEnable:          true,
		DefaultTopicQueueNums:          8,
		ClusterTopicEnable:             true,
		BrokerTopicEnable:              true,
		AutoCreateSubscriptionGroup:    true,
		LongPollingEnable:              true,
		LitePullMessageEnable:          true,
		StoreReplyMessageEnable:        true,
		ForceRegister:                  true,
		NotifyConsumerIdsChangedEnable: true,
		ShortPollingTime:               time.Second,
	}
}

// Broker is a started broker and the options it was built with.
type Broker struct {
	*broker.Broker
	Opts broker.Options
	// Started is when Start returned.
	Started time.Time
}

// Start builds a broker over a new temporary directory from Options, changed by each edit, starts
// it and closes it when the test ends.
func Start(t testing.TB, edits ...func(*broker.Options)) *Broker {
	t.Helper()
	o := Options(t.TempDir())
	for _, e := range edits {
		e(&o)
	}
	return StartWith(t, o)
}

// StartWith builds and starts a broker from o and closes it when the test ends.
func StartWith(t testing.TB, o broker.Options) *Broker {
	t.Helper()
	b, err := broker.New(o, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)))
	if err != nil {
		t.Fatalf("new broker: %v", err)
	}
	if err := b.Start(); err != nil {
		_ = b.Close()
		t.Fatalf("start broker: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close broker: %v", err)
		}
	})
	return &Broker{Broker: b, Opts: o, Started: time.Now()}
}

// Restart closes b cleanly and starts a new broker over the same directory and options (on a new
// port).
func (b *Broker) Restart(t testing.TB) *Broker {
	t.Helper()
	if err := b.Close(); err != nil {
		t.Fatalf("close broker: %v", err)
	}
	return StartWith(t, b.Opts)
}

// CrashCopy starts a second broker over a copy of b's directory taken while b runs: the files as
// kill -9 would leave them (the abort file included), so the new broker recovers abnormally. b
// keeps running; the copy should be taken while nothing is being written.
func (b *Broker) CrashCopy(t testing.TB) *Broker {
	t.Helper()
	dir := t.TempDir()
	storetest.CopyDir(t, b.Opts.Store.RootDir, dir)
	o := b.Opts
	o.Store.RootDir, o.Store.CommitLogDir = dir, ""
	return StartWith(t, o)
}

// Dial connects to the broker.
func (b *Broker) Dial(t testing.TB) *Conn {
	t.Helper()
	return Dial(t, b.Addr().String())
}
