package config

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/logging"
	"github.com/rocketgo/rocketgo/internal/store"
)

// BrokerOptions is what broker.conf configures, mapped by Broker.Options.
type BrokerOptions struct {
	// Broker holds everything but Broker.Metrics (the registry, which the command makes when
	// Metrics.Enabled) and Broker.TLS (TLS.Server loads it: it reads files or makes a
	// certificate). The store's host is left for the broker to derive from Broker.BrokerAddr.
	Broker  broker.Options
	Metrics MetricsListener
	TLS     TLSKeys
	Log     logging.Options // the logging keys; the command's flags win over them
}

// Options maps every key onto the broker's options: store.DefaultOptions for the store (with
// preallocated CommitLog segments), then each key's to in table order, and the effective
// configuration for GET_BROKER_CONFIG. It fails when brokerIP1:listenPort is not an ip:port, the
// host stored in every message.
func (b *Broker) Options() (BrokerOptions, error) {
	if err := b.Validate(); err != nil {
		return BrokerOptions{}, err
	}
	if _, err := netip.ParseAddrPort(b.BrokerAddr()); err != nil {
		return BrokerOptions{}, fmt.Errorf("brokerIP1 %q with listenPort %d is not an ip:port: %w", b.BrokerIP1, b.ListenPort, err)
	}
	o := BrokerOptions{Broker: broker.Options{Store: store.DefaultOptions(b.StorePathRootDir)}}
	o.Broker.Store.Preallocate = true
	mapOnto(brokerKeys(), b, &o)
	o.Broker.ConfigText = configText(b)
	return o, nil
}

// configText returns GET_BROKER_CONFIG's text: the effective configuration as Java-properties
// key=value lines, sorted by key.
func configText(b *Broker) func() string {
	var sb strings.Builder
	for _, f := range b.Fields() {
		sb.WriteString(f.Key + "=" + f.Value + "\n")
	}
	text := sb.String()
	return func() string { return text }
}
