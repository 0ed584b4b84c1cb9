package namesrv

import "github.com/rocketgo/rocketgo/pkg/protocol/body"

// WipeWritePerm takes the write permission off every queue a broker group has in the route
// table (WIPE_WRITE_PERM_OF_BROKER, the usual way to drain a broker: producers stop choosing
// its queues, consumers go on reading them). It returns how many topics the group has queues
// of. The change lasts until the group registers a changed topic configuration (a new
// DataVersion), which replaces its queues' permissions with the broker's own, as in Java.
func (m *RouteInfoManager) WipeWritePerm(brokerName string) int {
	return m.setPerm(brokerName, func(perm int) int { return perm &^ body.PermWrite })
}

// AddWritePerm makes every queue a broker group has in the route table readable and writable
// (ADD_WRITE_PERM_OF_BROKER, which undoes WipeWritePerm): as in Java the permission becomes
// read and write whatever it was. It returns how many topics the group has queues of.
func (m *RouteInfoManager) AddWritePerm(brokerName string) int {
	return m.setPerm(brokerName, func(int) int { return body.PermRead | body.PermWrite })
}

// setPerm rewrites the permission of a broker group's queues of every topic and counts them.
func (m *RouteInfoManager) setPerm(brokerName string, perm func(int) int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, byBroker := range m.mu.topicQueues {
		qd, ok := byBroker[brokerName]
		if !ok {
			continue
		}
		qd.Perm = perm(qd.Perm)
		byBroker[brokerName] = qd
		n++
	}
	return n
}
