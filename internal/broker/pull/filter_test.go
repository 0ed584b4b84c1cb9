package pull

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/filter"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestCheckFilter: which subscriptions the broker can filter by, and what it answers otherwise.
func TestCheckFilter(t *testing.T) {
	compiled, err := filter.Compile("a > 1")
	require.NoError(t, err)
	bad := errors.New("syntax error")
	tag := &client.Subscription{ExpressionType: body.ExpressionTag}
	sqlOK := &client.Subscription{ExpressionType: body.ExpressionSQL92, Filter: compiled}
	sqlBad := &client.Subscription{ExpressionType: body.ExpressionSQL92, FilterErr: bad}
	other := &client.Subscription{ExpressionType: "XPATH"}
	for _, tc := range []struct {
		name       string
		sub        *client.Subscription
		own, sql   bool
		kind       outcome.Kind
		remarkHead string
	}{
		{"TAG, SQL off", tag, true, false, outcome.OK, ""},
		{"TAG from a heartbeat", tag, false, true, outcome.OK, ""},
		{"SQL92 that compiles", sqlOK, true, true, outcome.OK, ""},
		{"SQL92 with SQL off", sqlOK, true, false, outcome.SystemError, "The broker does not support consumer to filter message by SQL92"},
		{"another type", other, true, true, outcome.SystemError, "The broker does not support consumer to filter message by XPATH"},
		{"the pull's bad SQL92", sqlBad, true, true, outcome.SubscriptionParseFailed, "parse the consumer's subscription failed: syntax error"},
		{"the heartbeat's bad SQL92", sqlBad, false, true, outcome.FilterDataNotExist,
			"The broker's consumer filter data is not exist!Your expression may be wrong! syntax error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, remark := outcome.Of(checkFilter(tc.sub, tc.own, tc.sql))
			require.Equal(t, tc.kind, k)
			require.Equal(t, tc.remarkHead, remark)
		})
	}
}

func TestMessageFilter(t *testing.T) {
	require.True(t, messageFilter(nil).MatchByConsumeQueue(5), "no subscription takes everything")
	all := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "*"})
	require.True(t, messageFilter(all).MatchByConsumeQueue(5))
	tags := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "a"})
	require.False(t, messageFilter(tags).MatchByConsumeQueue(5))
	require.True(t, messageFilter(tags).MatchByCommitLog([]byte("x")), "tags are matched on the ConsumeQueue only")
}
