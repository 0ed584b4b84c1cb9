package namesrv

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
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

// ExpiredBroker is a broker dropped for not re-registering in time, with the connections it had
// registered over.
type ExpiredBroker struct {
	BrokerAddr string
	Conns      []any
	LastUpdate time.Time
}

type brokerEntry struct {
	cluster            string
	name               string
	addrs              map[int64]string
	zoneName           string
	enableActingMaster bool
}

// liveInfo is one registered broker address. conns are the open connections it registered over
// (a broker that re-dialled has its old and its new one until the old closes): it is dropped
// when the last of them closes.
type liveInfo struct {
	lastUpdate   time.Time
	timeout      time.Duration
	version      body.DataVersion
	conns        map[any]struct{}
	brokerName   string
	brokerID     int64
	haServerAddr string
}

// RouteInfoManager is the name server's state (Java RouteInfoManager): clusters, broker groups
// and their addresses, each topic's queues per broker group, and broker liveness. It knows nothing
// of the network; connections are opaque keys.
type RouteInfoManager struct {
	opts RouteOptions
	// deleteWithRegistration is RouteOptions.DeleteTopicWithBrokerRegistration, which
	// UPDATE_NAMESRV_CONFIG may change while the server runs.
	deleteWithRegistration atomic.Bool

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
	m.deleteWithRegistration.Store(opts.DeleteTopicWithBrokerRegistration)
	m.mu.topicQueues = map[string]map[string]body.QueueData{}
	m.mu.brokers = map[string]*brokerEntry{}
	m.mu.clusters = map[string]map[string]struct{}{}
	m.mu.live = map[string]*liveInfo{}
	m.mu.filterServers = map[string][]string{}
	return m
}

// SetDeleteTopicWithBrokerRegistration changes RouteOptions.DeleteTopicWithBrokerRegistration for
// the registrations that follow.
func (m *RouteInfoManager) SetDeleteTopicWithBrokerRegistration(on bool) {
	m.deleteWithRegistration.Store(on)
}

// RegisterBroker records a broker's registration (first or periodic). A master's topics replace
// their queue data when its DataVersion changed or it registers for the first time. A slave
// learns its master's address and HA address from the result.
//
// A registration that would take over what another open connection registered, and is still
// alive, is refused with a *RegistrationConflictError: another address for the same brokerName
// and brokerId, or the same address under another name, id or HA address. The same broker
// registering again over a new connection (it re-dialled, or restarted while its old connection
// was still open) is accepted, and so is any change once the old connections have closed or the
// old registration has expired.
func (m *RouteInfoManager) RegisterBroker(r BrokerRegistration) (RegisterResult, error) {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkTakeoverLocked(r, now); err != nil {
		return RegisterResult{}, err
	}

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
	m.recordLiveLocked(r, version, now)
	if len(r.FilterServers) == 0 {
		delete(m.mu.filterServers, r.BrokerAddr)
	} else {
		m.mu.filterServers[r.BrokerAddr] = append([]string(nil), r.FilterServers...)
	}
	return m.masterOfLocked(r, entry), nil
}

// recordLiveLocked records r's address as alive now. The connections of an earlier registration
// of the same broker are kept (checkTakeoverLocked refused any other that is still open).
// REQUIRES: m.mu held for writing.
func (m *RouteInfoManager) recordLiveLocked(r BrokerRegistration, version body.DataVersion, now time.Time) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = m.opts.BrokerChannelExpiredTime
	}
	conns := map[any]struct{}{}
	if old := m.mu.live[r.BrokerAddr]; old != nil && old.sameBroker(r) {
		for c := range old.conns {
			if connOpen(c) {
				conns[c] = struct{}{}
			}
		}
	}
	if r.Conn != nil {
		conns[r.Conn] = struct{}{}
	}
	m.mu.live[r.BrokerAddr] = &liveInfo{
		lastUpdate: now, timeout: timeout, version: version, conns: conns,
		brokerName: r.BrokerName, brokerID: r.BrokerID, haServerAddr: r.HAServerAddr,
	}
}

// masterOfLocked tells a slave where its live master is. REQUIRES: m.mu held.
func (m *RouteInfoManager) masterOfLocked(r BrokerRegistration, entry *brokerEntry) RegisterResult {
	if r.BrokerID == body.MasterID {
		return RegisterResult{}
	}
	if master, ok := entry.addrs[body.MasterID]; ok {
		if li := m.mu.live[master]; li != nil {
			return RegisterResult{MasterAddr: master, HAServerAddr: li.haServerAddr}
		}
	}
	return RegisterResult{}
}

// sameBroker reports whether r registers the broker li describes: same name, id and HA address.
func (li *liveInfo) sameBroker(r BrokerRegistration) bool {
	return li.brokerName == r.BrokerName && li.brokerID == r.BrokerID && li.haServerAddr == r.HAServerAddr
}

// heldByOther reports whether li is alive at now and registered over an open connection other
// than conn.
func (li *liveInfo) heldByOther(conn any, now time.Time) bool {
	if li == nil || li.lastUpdate.Add(li.timeout).Before(now) {
		return false
	}
	for c := range li.conns {
		if c != conn && connOpen(c) {
			return true
		}
	}
	return false
}

// connOpen reports whether a registration's connection is still open: a connection that can
// say (*remoting.Conn's Closed) is asked; any other non-nil key counts as open.
func connOpen(c any) bool {
	if cl, ok := c.(interface{ Closed() bool }); ok {
		return !cl.Closed()
	}
	return c != nil
}

// checkTakeoverLocked refuses a registration that would replace what another open connection
// registered and is alive. REQUIRES: m.mu held.
func (m *RouteInfoManager) checkTakeoverLocked(r BrokerRegistration, now time.Time) error {
	if entry := m.mu.brokers[r.BrokerName]; entry != nil {
		if old, ok := entry.addrs[r.BrokerID]; ok && old != r.BrokerAddr && m.mu.live[old].heldByOther(r.Conn, now) {
			return &RegistrationConflictError{BrokerName: r.BrokerName, BrokerID: r.BrokerID, BrokerAddr: r.BrokerAddr,
				HeldBy: old, Reason: "brokerName and brokerId are registered at another address"}
		}
	}
	if li := m.mu.live[r.BrokerAddr]; li.heldByOther(r.Conn, now) && !li.sameBroker(r) {
		return &RegistrationConflictError{BrokerName: r.BrokerName, BrokerID: r.BrokerID, BrokerAddr: r.BrokerAddr,
			HeldBy: r.BrokerAddr, Reason: fmt.Sprintf("the address is registered as %s/%d with HA address %s",
				li.brokerName, li.brokerID, li.haServerAddr)}
	}
	return nil
}

// RegistrationConflictError is a registration or unregistration refused because another open
// connection holds what it would change.
type RegistrationConflictError struct {
	BrokerName string
	BrokerID   int64
	BrokerAddr string
	HeldBy     string // the address registered by the other connection
	Reason     string
}

func (e *RegistrationConflictError) Error() string {
	return fmt.Sprintf("broker %s/%d at %s refused: %s (%s) by another connection that is still open",
		quoteName(e.BrokerName), e.BrokerID, quoteName(e.BrokerAddr), e.Reason, e.HeldBy)
}

// applyTopicsLocked writes a master's topics into the queue table. REQUIRES: m.mu held for writing.
func (m *RouteInfoManager) applyTopicsLocked(brokerName string, topics map[string]body.TopicConfig) {
	if m.deleteWithRegistration.Load() {
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
// with no address left disappears from its cluster and from every topic's queues. An
// unregistration over a connection the broker did not register over, while one it did is open
// and the broker alive, is refused with a *RegistrationConflictError (conn nil skips the check).
func (m *RouteInfoManager) UnregisterBroker(cluster, brokerName, brokerAddr string, brokerID int64, conn any) error {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if li := m.mu.live[brokerAddr]; conn != nil && li.heldByOther(conn, now) {
		if _, own := li.conns[conn]; !own {
			return &RegistrationConflictError{BrokerName: brokerName, BrokerID: brokerID, BrokerAddr: brokerAddr,
				HeldBy: brokerAddr, Reason: "unregistering an address registered"}
		}
	}
	delete(m.mu.live, brokerAddr)
	delete(m.mu.filterServers, brokerAddr)
	entry := m.mu.brokers[brokerName]
	if entry == nil {
		return nil
	}
	if addr, ok := entry.addrs[brokerID]; ok && addr == brokerAddr {
		delete(entry.addrs, brokerID)
	}
	if len(entry.addrs) > 0 {
		return nil
	}
	delete(m.mu.brokers, brokerName)
	if names := m.mu.clusters[cluster]; names != nil {
		delete(names, brokerName)
		if len(names) == 0 {
			delete(m.mu.clusters, cluster)
		}
	}
	m.removeBrokerNameFromTopicsLocked(brokerName)
	return nil
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

// OnConnectionClose forgets conn in the registrations made over it and drops the brokers left
// with no open connection; it returns their addresses. A broker that has since registered over
// another connection is kept.
func (m *RouteInfoManager) OnConnectionClose(conn any) []string {
	if conn == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var addrs []string
	for addr, li := range m.mu.live {
		if _, ok := li.conns[conn]; !ok {
			continue
		}
		delete(li.conns, conn)
		if len(li.conns) == 0 {
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
			expired = append(expired, ExpiredBroker{BrokerAddr: addr, Conns: li.connList(), LastUpdate: li.lastUpdate})
		}
	}
	sort.Slice(expired, func(i, j int) bool { return expired[i].BrokerAddr < expired[j].BrokerAddr })
	for _, e := range expired {
		m.removeBrokerAddrLocked(e.BrokerAddr)
	}
	return expired
}

// connList returns li's connections.
func (li *liveInfo) connList() []any {
	out := make([]any, 0, len(li.conns))
	for c := range li.conns {
		out = append(out, c)
	}
	return out
}
