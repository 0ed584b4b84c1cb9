package namesrv

import (
	"sort"
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// DefaultBrokerChannelExpiredTime is how long a broker stays registered without re-registering
// (Java DEFAULT_BROKER_CHANNEL_EXPIRED_TIME).
const DefaultBrokerChannelExpiredTime = 120 * time.Second

// RouteOptions configure a RouteInfoManager.
type RouteOptions struct {
	// BrokerChannelExpiredTime is the default liveness timeout; 0 means 120 s. A broker's own
	// heartbeatTimeoutMillis, when it sends one, wins.
	BrokerChannelExpiredTime time.Duration
	// DeleteTopicWithBrokerRegistration drops a master's topics from the route table when a
	// registration with a new DataVersion no longer lists them (5.x option; 4.9 keeps them).
	DeleteTopicWithBrokerRegistration bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// BrokerRegistration is one REGISTER_BROKER request, decoded.
type BrokerRegistration struct {
	ClusterName        string
	BrokerName         string
	BrokerAddr         string
	BrokerID           int64
	HAServerAddr       string
	ZoneName           string
	EnableActingMaster bool
	// Timeout overrides the liveness timeout for this broker (heartbeatTimeoutMillis); 0 = default.
	Timeout time.Duration
	// Topics are the broker's topic configs and their DataVersion; nil registers no topics.
	Topics        *body.TopicConfigSerializeWrapper
	FilterServers []string
	// Conn identifies the connection the registration came over; it must be comparable. When that
	// connection closes, OnConnectionClose(Conn) drops the broker.
	Conn any
}

// RegisterResult tells a slave where its master is.
type RegisterResult struct {
	MasterAddr   string
	HAServerAddr string
}

// ExpiredBroker is a broker dropped for not re-registering in time.
type ExpiredBroker struct {
	BrokerAddr string
	Conn       any
	LastUpdate time.Time
}

type brokerEntry struct {
	cluster            string
	name               string
	addrs              map[int64]string
	zoneName           string
	enableActingMaster bool
}

type liveInfo struct {
	lastUpdate   time.Time
	timeout      time.Duration
	version      body.DataVersion
	conn         any
	haServerAddr string
}

// RouteInfoManager is the name server's state (Java RouteInfoManager): clusters, broker groups
// and their addresses, each topic's queues per broker group, and broker liveness. It knows nothing
// of the network; connections are opaque keys.
type RouteInfoManager struct {
	opts RouteOptions

	mu struct {
		sync.RWMutex
		topicQueues   map[string]map[string]body.QueueData // topic → brokerName → queues
		brokers       map[string]*brokerEntry              // brokerName →
		clusters      map[string]map[string]struct{}       // cluster → brokerNames
		live          map[string]*liveInfo                 // brokerAddr →
		filterServers map[string][]string                  // brokerAddr →
	}
}

// NewRouteInfoManager returns an empty route table.
func NewRouteInfoManager(opts RouteOptions) *RouteInfoManager {
	if opts.BrokerChannelExpiredTime <= 0 {
		opts.BrokerChannelExpiredTime = DefaultBrokerChannelExpiredTime
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &RouteInfoManager{opts: opts}
	m.mu.topicQueues = map[string]map[string]body.QueueData{}
	m.mu.brokers = map[string]*brokerEntry{}
	m.mu.clusters = map[string]map[string]struct{}{}
	m.mu.live = map[string]*liveInfo{}
	m.mu.filterServers = map[string][]string{}
	return m
}

// RegisterBroker records a broker's registration (first or periodic). A master's topics replace
// their queue data when its DataVersion changed or it registers for the first time. A slave
// learns its master's address and HA address from the result.
func (m *RouteInfoManager) RegisterBroker(r BrokerRegistration) RegisterResult {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()

	names := m.mu.clusters[r.ClusterName]
	if names == nil {
		names = map[string]struct{}{}
		m.mu.clusters[r.ClusterName] = names
	}
	names[r.BrokerName] = struct{}{}

	entry := m.mu.brokers[r.BrokerName]
	first := entry == nil
	if first {
		entry = &brokerEntry{cluster: r.ClusterName, name: r.BrokerName, addrs: map[int64]string{}}
		m.mu.brokers[r.BrokerName] = entry
	}
	entry.zoneName = r.ZoneName
	entry.enableActingMaster = r.EnableActingMaster
	// A broker switching role keeps its address under a new id: drop the old id first.
	for id, addr := range entry.addrs {
		if addr == r.BrokerAddr && id != r.BrokerID {
			delete(entry.addrs, id)
		}
	}
	if _, had := entry.addrs[r.BrokerID]; !had {
		first = true
	}
	entry.addrs[r.BrokerID] = r.BrokerAddr

	var version body.DataVersion
	if r.Topics != nil {
		version = r.Topics.DataVersion
		if r.BrokerID == body.MasterID && (first || m.topicConfigChangedLocked(r.BrokerAddr, version)) {
			m.applyTopicsLocked(r.BrokerName, r.Topics.TopicConfigTable)
		}
	}

	timeout := r.Timeout
	if timeout <= 0 {
		timeout = m.opts.BrokerChannelExpiredTime
	}
	m.mu.live[r.BrokerAddr] = &liveInfo{
		lastUpdate: now, timeout: timeout, version: version, conn: r.Conn, haServerAddr: r.HAServerAddr,
	}
	if len(r.FilterServers) == 0 {
		delete(m.mu.filterServers, r.BrokerAddr)
	} else {
		m.mu.filterServers[r.BrokerAddr] = append([]string(nil), r.FilterServers...)
	}

	var res RegisterResult
	if r.BrokerID != body.MasterID {
		if master, ok := entry.addrs[body.MasterID]; ok {
			if li := m.mu.live[master]; li != nil {
				res = RegisterResult{MasterAddr: master, HAServerAddr: li.haServerAddr}
			}
		}
	}
	return res
}

// applyTopicsLocked writes a master's topics into the queue table. REQUIRES: m.mu held for writing.
func (m *RouteInfoManager) applyTopicsLocked(brokerName string, topics map[string]body.TopicConfig) {
	if m.opts.DeleteTopicWithBrokerRegistration {
		for topic, byBroker := range m.mu.topicQueues {
			if _, still := topics[topic]; still {
				continue
			}
			if _, ok := byBroker[brokerName]; ok {
				delete(byBroker, brokerName)
				if len(byBroker) == 0 {
					delete(m.mu.topicQueues, topic)
				}
			}
		}
	}
	for name, tc := range topics {
		if name == "" {
			continue
		}
		byBroker := m.mu.topicQueues[name]
		if byBroker == nil {
			byBroker = map[string]body.QueueData{}
			m.mu.topicQueues[name] = byBroker
		}
		byBroker[brokerName] = body.QueueData{
			BrokerName:     brokerName,
			ReadQueueNums:  tc.ReadQueueNums,
			WriteQueueNums: tc.WriteQueueNums,
			Perm:           tc.Perm,
			TopicSysFlag:   tc.TopicSysFlag,
		}
	}
}

// topicConfigChangedLocked reports whether version differs from the broker's last registration.
// REQUIRES: m.mu held.
func (m *RouteInfoManager) topicConfigChangedLocked(brokerAddr string, version body.DataVersion) bool {
	li := m.mu.live[brokerAddr]
	return li == nil || !li.version.Equal(version)
}

// QueryDataVersion answers QUERY_DATA_VERSION: whether version differs from what the broker last
// registered, and the registered version (nil if the broker is unknown). An unchanged broker
// counts as alive again, as a registration would.
func (m *RouteInfoManager) QueryDataVersion(brokerAddr string, version body.DataVersion) (changed bool, current *body.DataVersion) {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	changed = m.topicConfigChangedLocked(brokerAddr, version)
	li := m.mu.live[brokerAddr]
	if li == nil {
		return changed, nil
	}
	if !changed {
		li.lastUpdate = now
	}
	v := li.version
	return changed, &v
}

// UnregisterBroker removes one broker (UNREGISTER_BROKER, sent on a clean shutdown). A broker group
// with no address left disappears from its cluster and from every topic's queues.
func (m *RouteInfoManager) UnregisterBroker(cluster, brokerName, brokerAddr string, brokerID int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.mu.live, brokerAddr)
	delete(m.mu.filterServers, brokerAddr)
	entry := m.mu.brokers[brokerName]
	if entry == nil {
		return
	}
	if addr, ok := entry.addrs[brokerID]; ok && addr == brokerAddr {
		delete(entry.addrs, brokerID)
	}
	if len(entry.addrs) > 0 {
		return
	}
	delete(m.mu.brokers, brokerName)
	if names := m.mu.clusters[cluster]; names != nil {
		delete(names, brokerName)
		if len(names) == 0 {
			delete(m.mu.clusters, cluster)
		}
	}
	m.removeBrokerNameFromTopicsLocked(brokerName)
}

// removeBrokerAddrLocked drops every trace of a broker address after its connection closed or it
// expired. REQUIRES: m.mu held for writing.
func (m *RouteInfoManager) removeBrokerAddrLocked(brokerAddr string) {
	delete(m.mu.live, brokerAddr)
	delete(m.mu.filterServers, brokerAddr)
	var gone []*brokerEntry
	for name, entry := range m.mu.brokers {
		for id, addr := range entry.addrs {
			if addr == brokerAddr {
				delete(entry.addrs, id)
			}
		}
		if len(entry.addrs) == 0 {
			delete(m.mu.brokers, name)
			gone = append(gone, entry)
		}
	}
	for _, entry := range gone {
		for cluster, names := range m.mu.clusters {
			delete(names, entry.name)
			if len(names) == 0 {
				delete(m.mu.clusters, cluster)
			}
		}
		m.removeBrokerNameFromTopicsLocked(entry.name)
	}
}

// removeBrokerNameFromTopicsLocked drops a broker group's queues; topics left with none go.
// REQUIRES: m.mu held for writing.
func (m *RouteInfoManager) removeBrokerNameFromTopicsLocked(brokerName string) {
	for topic, byBroker := range m.mu.topicQueues {
		delete(byBroker, brokerName)
		if len(byBroker) == 0 {
			delete(m.mu.topicQueues, topic)
		}
	}
}

// OnConnectionClose drops the brokers that registered over conn, and returns their addresses.
// A broker that has since re-registered over another connection is kept.
func (m *RouteInfoManager) OnConnectionClose(conn any) []string {
	if conn == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var addrs []string
	for addr, li := range m.mu.live {
		if li.conn == conn {
			addrs = append(addrs, addr)
		}
	}
	sort.Strings(addrs)
	for _, addr := range addrs {
		m.removeBrokerAddrLocked(addr)
	}
	return addrs
}

// ScanNotActiveBrokers drops brokers whose last registration is older than their timeout and
// returns them, so the caller can close their connections.
func (m *RouteInfoManager) ScanNotActiveBrokers() []ExpiredBroker {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var expired []ExpiredBroker
	for addr, li := range m.mu.live {
		if li.lastUpdate.Add(li.timeout).Before(now) {
			expired = append(expired, ExpiredBroker{BrokerAddr: addr, Conn: li.conn, LastUpdate: li.lastUpdate})
		}
	}
	sort.Slice(expired, func(i, j int) bool { return expired[i].BrokerAddr < expired[j].BrokerAddr })
	for _, e := range expired {
		m.removeBrokerAddrLocked(e.BrokerAddr)
	}
	return expired
}
