package config

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
)

// LimitKeys are the connection limits of a server's port, which broker.conf and namesrv.conf
// share: Apache RocketMQ's NettyServerConfig keys where it has one, ours otherwise.
type LimitKeys struct {
	ServerChannelMaxIdleTimeSeconds    int
	WriteBufferHighWaterMark           int
	WriteBufferLowWaterMark            int
	ServerChannelMaxQueuedBytes        int
	ServerMaxTotalQueuedBytes          int64
	ServerChannelMaxConcurrentRequests int
	ServerMaxConnections               int
}

// limitKeys declares the connection limits of a file whose config holds them at in; they land in
// the remoting.Limits at out.
func limitKeys[C, T any](in func(*C) *LimitKeys, out func(*T) *remoting.Limits) []key[C, T] {
	return section("Connections and limits",
		key[C, T]{name: "serverChannelMaxIdleTimeSeconds", def: "120",
			doc: "Close a connection whose next frame has not arrived in full this long after the previous one " +
				"(seconds; 0 never). A frame trickling in does not keep it open.",
			field: func(c *C) any { return &in(c).ServerChannelMaxIdleTimeSeconds },
			to: func(c *C, o *T) {
				out(o).IdleTimeout = time.Duration(in(c).ServerChannelMaxIdleTimeSeconds) * time.Second
			}},
		key[C, T]{name: "writeBufferHighWaterMark", def: "1048576",
			doc: "Stop reading a connection's requests while more than this many bytes of its answers wait to " +
				"be written (RocketMQ 5 turns autoRead off the same way). 0 takes the default.",
			field: func(c *C) any { return &in(c).WriteBufferHighWaterMark },
			to:    func(c *C, o *T) { out(o).WriteBufferHighWaterMark = in(c).WriteBufferHighWaterMark }},
		key[C, T]{name: "writeBufferLowWaterMark", def: "262144",
			doc:   "Resume reading once the waiting answers are down to this many bytes. 0 takes the default.",
			field: func(c *C) any { return &in(c).WriteBufferLowWaterMark },
			to:    func(c *C, o *T) { out(o).WriteBufferLowWaterMark = in(c).WriteBufferLowWaterMark }},
		key[C, T]{name: "serverChannelMaxQueuedBytes", origin: ours, def: "67108864", check: positive,
			doc: "Close a connection whose waiting answers would exceed this many bytes (a peer that does not " +
				"read).",
			field: func(c *C) any { return &in(c).ServerChannelMaxQueuedBytes },
			to:    func(c *C, o *T) { out(o).MaxQueuedBytes = in(c).ServerChannelMaxQueuedBytes }},
		key[C, T]{name: "serverMaxTotalQueuedBytes", origin: ours, def: "536870912", check: positive,
			doc: "While all connections' waiting answers exceed this many bytes, close a connection above its " +
				"writeBufferHighWaterMark when it gets another answer.",
			field: func(c *C) any { return &in(c).ServerMaxTotalQueuedBytes },
			to:    func(c *C, o *T) { out(o).MaxTotalQueuedBytes = in(c).ServerMaxTotalQueuedBytes }},
		key[C, T]{name: "serverChannelMaxConcurrentRequests", origin: ours, def: "256", check: positive,
			doc: "Stop reading a connection's requests while this many of them are being handled (held pulls " +
				"not counted).",
			field: func(c *C) any { return &in(c).ServerChannelMaxConcurrentRequests },
			to:    func(c *C, o *T) { out(o).MaxConnRequests = in(c).ServerChannelMaxConcurrentRequests }},
		key[C, T]{name: "serverMaxConnections", origin: ours, def: "10000", check: positive,
			doc:   "Open connections at most; beyond it a new connection is closed at once (logged every 10 s).",
			field: func(c *C) any { return &in(c).ServerMaxConnections },
			to:    func(c *C, o *T) { out(o).MaxConnections = in(c).ServerMaxConnections }},
	)
}

// Allowlist is a list of IP addresses and CIDR prefixes, written separated by ',' or ';'
// ("10.0.0.0/8;192.168.1.7"). Empty admits everyone.
type Allowlist struct {
	Prefixes []netip.Prefix
}

// UnmarshalText parses an allowlist; a bare address is a prefix of its full length.
func (a *Allowlist) UnmarshalText(b []byte) error {
	var out []netip.Prefix
	for _, item := range strings.FieldsFunc(string(b), func(r rune) bool { return r == ',' || r == ';' }) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := parsePrefix(item)
		if err != nil {
			return err
		}
		out = append(out, p)
	}
	a.Prefixes = out
	return nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("%q: want an IP address or a CIDR prefix", s)
		}
		return p.Masked(), nil
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q: want an IP address or a CIDR prefix", s)
	}
	ip = ip.Unmap()
	return netip.PrefixFrom(ip, ip.BitLen()), nil
}

// String writes the allowlist as UnmarshalText reads it.
func (a Allowlist) String() string {
	parts := make([]string, len(a.Prefixes))
	for i, p := range a.Prefixes {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// NamesrvGuardKeys are namesrv.conf's caps and allowlists against hostile peers (our keys).
type NamesrvGuardKeys struct {
	RegisterBrokerMaxTopics     int
	RegisterBrokerMaxBodyBytes  int
	KVConfigMaxValueBytes       int
	KVConfigMaxTotalBytes       int
	BrokerRegistrationAllowlist Allowlist
	AdminWriteAllowlist         Allowlist
}

func namesrvGuardKeys() []namesrvKey {
	return section("Connections and limits",
		namesrvKey{name: "registerBrokerMaxTopics", origin: ours, def: "100000", check: positive,
			doc:   "REGISTER_BROKER listing more topics is refused (SYSTEM_ERROR naming this key).",
			field: func(c *Namesrv) any { return &c.RegisterBrokerMaxTopics },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.MaxTopicsPerRegistration = c.RegisterBrokerMaxTopics }},
		namesrvKey{name: "registerBrokerMaxBodyBytes", origin: ours, def: "16777216", check: positive,
			doc: "REGISTER_BROKER whose body is larger once inflated is refused, without inflating the rest " +
				"(the default is the frame limit, which bounds an uncompressed body anyway).",
			field: func(c *Namesrv) any { return &c.RegisterBrokerMaxBodyBytes },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.MaxRegistrationBodyBytes = c.RegisterBrokerMaxBodyBytes }},
		namesrvKey{name: "kvConfigMaxValueBytes", origin: ours, def: "16384", check: positive,
			doc:   "PUT_KV_CONFIG with a longer value is refused. Values are logged by length and a short prefix.",
			field: func(c *Namesrv) any { return &c.KVConfigMaxValueBytes },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.KVMaxValueBytes = c.KVConfigMaxValueBytes }},
		namesrvKey{name: "kvConfigMaxTotalBytes", origin: ours, def: "16777216", check: positive,
			doc:   "The KV store holds at most this many bytes of namespaces, keys and values; a put beyond is refused.",
			field: func(c *Namesrv) any { return &c.KVConfigMaxTotalBytes },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.KVMaxTotalBytes = c.KVConfigMaxTotalBytes }},
		namesrvKey{name: "brokerRegistrationAllowlist", origin: ours, defDoc: "(empty = everyone)",
			doc: "IP addresses and CIDR prefixes (`,` or `;` separated) REGISTER_BROKER, UNREGISTER_BROKER and " +
				"QUERY_DATA_VERSION are taken from; others get NO_PERMISSION.",
			field: func(c *Namesrv) any { return &c.BrokerRegistrationAllowlist },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.RegistrationAllowlist = c.BrokerRegistrationAllowlist.Prefixes
			}},
		namesrvKey{name: "adminWriteAllowlist", origin: ours, defDoc: "(empty = everyone)",
			doc: "IP addresses and CIDR prefixes PUT_KV_CONFIG, DELETE_KV_CONFIG, DELETE_TOPIC_IN_NAMESRV, " +
				"WIPE_WRITE_PERM_OF_BROKER, ADD_WRITE_PERM_OF_BROKER and UPDATE_NAMESRV_CONFIG are taken from; " +
				"others get NO_PERMISSION.",
			field: func(c *Namesrv) any { return &c.AdminWriteAllowlist },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.AdminAllowlist = c.AdminWriteAllowlist.Prefixes }},
	)
}

func brokerGuardKeys() []brokerKey {
	return section("Connections and limits",
		brokerKey{name: "haAllowlist", origin: ours, defDoc: "(empty = everyone)",
			doc: "IP addresses and CIDR prefixes a master accepts slaves from on the HA port; any other " +
				"connection is closed before it reads a byte.",
			field: func(c *Broker) any { return &c.HAAllowlist },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.HA.AllowedPeers = c.HAAllowlist.Prefixes }},
	)
}
