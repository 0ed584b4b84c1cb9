package namesrv

import (
	"sort"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TopicRoute returns the route of a topic: its queues per broker group (sorted by broker name) and
// those groups' addresses. ok is false when no live broker group serves the topic.
func (m *RouteInfoManager) TopicRoute(topic string) (route *body.TopicRouteData, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	byBroker := m.mu.topicQueues[topic]
	if len(byBroker) == 0 {
		return nil, false
	}
	names := make([]string, 0, len(byBroker))
	for name := range byBroker {
		names = append(names, name)
	}
	sort.Strings(names)
	route = &body.TopicRouteData{
		QueueDatas:        make([]body.QueueData, 0, len(names)),
		BrokerDatas:       make([]body.BrokerData, 0, len(names)),
		FilterServerTable: map[string][]string{},
	}
	for _, name := range names {
		route.QueueDatas = append(route.QueueDatas, byBroker[name])
		entry := m.mu.brokers[name]
		if entry == nil {
			continue
		}
		bd := entry.brokerData()
		route.BrokerDatas = append(route.BrokerDatas, bd)
		for _, addr := range bd.BrokerAddrs {
			if fs := m.mu.filterServers[addr]; len(fs) > 0 {
				route.FilterServerTable[addr] = append([]string(nil), fs...)
			}
		}
	}
	if len(route.BrokerDatas) == 0 {
		return nil, false
	}
	return route, true
}

func (e *brokerEntry) brokerData() body.BrokerData {
	addrs := make(body.BrokerAddrs, len(e.addrs))
	for id, addr := range e.addrs {
		addrs[id] = addr
	}
	return body.BrokerData{
		Cluster:            e.cluster,
		BrokerName:         e.name,
		BrokerAddrs:        addrs,
		ZoneName:           e.zoneName,
		EnableActingMaster: e.enableActingMaster,
	}
}

// ClusterInfo returns every broker group and cluster (GET_BROKER_CLUSTER_INFO).
func (m *RouteInfoManager) ClusterInfo() *body.ClusterInfo {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ci := &body.ClusterInfo{
		BrokerAddrTable:  make(map[string]body.BrokerData, len(m.mu.brokers)),
		ClusterAddrTable: make(map[string][]string, len(m.mu.clusters)),
	}
	for name, entry := range m.mu.brokers {
		ci.BrokerAddrTable[name] = entry.brokerData()
	}
	for cluster, names := range m.mu.clusters {
		ci.ClusterAddrTable[cluster] = sortedKeys(names)
	}
	return ci
}

// Topics returns every topic with queues, sorted.
func (m *RouteInfoManager) Topics() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.mu.topicQueues))
	for topic := range m.mu.topicQueues {
		out = append(out, topic)
	}
	sort.Strings(out)
	return out
}

// TopicsByCluster returns the topics with queues on any broker group of a cluster, sorted.
func (m *RouteInfoManager) TopicsByCluster(cluster string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := m.mu.clusters[cluster]
	var out []string
	for topic, byBroker := range m.mu.topicQueues {
		for name := range byBroker {
			if _, ok := names[name]; ok {
				out = append(out, topic)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// DeleteTopic removes a topic's route. With a cluster name only that cluster's broker groups are
// removed from it (5.x); without one the whole topic goes (4.9).
func (m *RouteInfoManager) DeleteTopic(topic, cluster string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cluster == "" {
		delete(m.mu.topicQueues, topic)
		return
	}
	byBroker := m.mu.topicQueues[topic]
	for name := range m.mu.clusters[cluster] {
		delete(byBroker, name)
	}
	if len(byBroker) == 0 {
		delete(m.mu.topicQueues, topic)
	}
}

// LiveBrokers returns how many broker addresses are registered.
func (m *RouteInfoManager) LiveBrokers() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.mu.live)
}

// TopicCount returns how many topics have queues.
func (m *RouteInfoManager) TopicCount() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.mu.topicQueues)
}

func sortedKeys(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
