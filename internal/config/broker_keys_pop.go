package config

import (
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker"
)

func popKeys() []brokerKey {
	pop := func(o *BrokerOptions) *broker.PopOptions { return &o.Broker.Pop }
	return section("POP and server-side assignment (RocketMQ 5)",
		brokerKey{name: "reviveQueueNum", def: "8", check: positive,
			doc:   "Queues of the revive topic `rmq_sys_REVIVE_LOG_<cluster>`, where POP keeps its checkpoints and acks.",
			field: func(c *Broker) any { return &c.ReviveQueueNum },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).ReviveQueueNum = c.ReviveQueueNum }},
		brokerKey{name: "reviveInterval", def: "1000", check: positive,
			doc:   "How often messages popped and not acknowledged in time are revived (ms).",
			field: func(c *Broker) any { return &c.ReviveInterval },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).ReviveInterval = c.ReviveInterval.Duration() }},
		brokerKey{name: "popFromRetryProbability", def: "20", check: percent,
			doc:   "% of POPs that read the group's POP retry topic before the topic.",
			field: func(c *Broker) any { return &c.PopFromRetryProbability },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).PopFromRetryProbability = c.PopFromRetryProbability }},
		brokerKey{name: "popPollingSize", def: "1024", check: positive,
			doc:   "POPs held per group, topic and queue; beyond it POLLING_FULL.",
			field: func(c *Broker) any { return &c.PopPollingSize },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).PollingSize = c.PopPollingSize }},
		brokerKey{name: "maxPopPollingSize", def: "100000", check: positive,
			doc:   "POPs and NOTIFICATIONs held in all.",
			field: func(c *Broker) any { return &c.MaxPopPollingSize },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).MaxPollingSize = c.MaxPopPollingSize }},
		brokerKey{name: "serverLoadBalancerEnable", def: "true",
			doc:   "QUERY_ASSIGNMENT splits a topic's queues among a group's clients; false gives each all of them.",
			field: func(c *Broker) any { return &c.ServerLoadBalancerEnable },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).NoServerLoadBalancer = !c.ServerLoadBalancerEnable }},
		brokerKey{name: "defaultMessageRequestMode", def: string(RequestModePull),
			doc:   "PULL or POP: the request mode of a group's topic that SET_MESSAGE_REQUEST_MODE never set.",
			field: func(c *Broker) any { return &c.DefaultMessageRequestMode },
			to: func(c *Broker, o *BrokerOptions) {
				pop(o).DefaultMessageRequestMode = strings.ToUpper(string(c.DefaultMessageRequestMode))
			}},
		brokerKey{name: "defaultPopShareQueueNum", def: "-1", check: signed,
			doc:   "popShareQueueNum of that default POP mode; ≤ 0: every consumer pops every queue.",
			field: func(c *Broker) any { return &c.DefaultPopShareQueueNum },
			to:    func(c *Broker, o *BrokerOptions) { pop(o).DefaultPopShareQueueNum = c.DefaultPopShareQueueNum }},
	)
}
