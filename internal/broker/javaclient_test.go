package broker_test

import (
	"testing"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// checkClientRequest is a Java push consumer's CHECK_CLIENT_CONFIG for one subscription.
func checkClientRequest(typ, expr string) *protocol.Command {
	data := `{"clientId":"127.0.0.1@42","group":"G_CHECK","subscriptionData":{"classFilterMode":false,"codeSet":[],` +
		`"expressionType":"` + typ + `","subString":"` + expr + `","subVersion":1700000000000,"tagsSet":[],"topic":"T_CHECK"}}`
	return protocol.NewRequest(protocol.CheckClientConfig, nil, []byte(data))
}

// TestCheckClientConfig: a Java push consumer asks before it starts whether the broker can filter
// by its subscription (MQClientInstance.checkClientInBroker); SQL92 only with
// enablePropertyFilter, and only an expression that compiles.
func TestCheckClientConfig(t *testing.T) {
	plain := brokertest.Start(t).Dial(t)
	requireCode(t, plain.Call(checkClientRequest("TAG", "a || b")), protocol.Success)
	requireCode(t, plain.Call(checkClientRequest("SQL92", "a > 1")), protocol.SystemError,
		"The broker does not support consumer to filter message by SQL92")

	sql := brokertest.Start(t, func(o *broker.Options) { o.EnablePropertyFilter = true }).Dial(t)
	requireCode(t, sql.Call(checkClientRequest("SQL92", "a > 1 AND b = 'x'")), protocol.Success)
	requireCode(t, sql.Call(checkClientRequest("SQL92", "a >")), protocol.SubscriptionParseFailed,
		"parse the consumer's subscription failed")
	requireCode(t, sql.Call(checkClientRequest("CLASS", "x")), protocol.SystemError, "by CLASS")
	requireCode(t, sql.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, nil)), protocol.Success)
}
