package pull

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestCheckSubscription(t *testing.T) {
	sql := func(o *Options) { o.EnablePropertyFilter = true }
	for _, tc := range []struct {
		name   string
		opts   func(*Options)
		typ    string
		expr   string
		kind   outcome.Kind
		remark string
	}{
		{"tags, no type", nil, "", "a || b", outcome.OK, ""},
		{"tags", nil, body.ExpressionTag, "*", outcome.OK, ""},
		{"SQL92 without enablePropertyFilter", nil, body.ExpressionSQL92, "a > 1",
			outcome.SystemError, "The broker does not support consumer to filter message by SQL92"},
		{"SQL92", sql, body.ExpressionSQL92, "a > 1 AND b = 'x'", outcome.OK, ""},
		{"SQL92 that does not compile", sql, body.ExpressionSQL92, "a >",
			outcome.SubscriptionParseFailed, "parse the consumer's subscription failed: "},
		{"an unknown type", sql, "CLASS", "x",
			outcome.SystemError, "The broker does not support consumer to filter message by CLASS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edits []func(*Options)
			if tc.opts != nil {
				edits = append(edits, tc.opts)
			}
			e := newEnv(edits...)
			err := e.svc.CheckSubscription(body.SubscriptionData{Topic: "T", SubString: tc.expr, ExpressionType: tc.typ})
			k, remark := outcome.Of(err)
			require.Equal(t, tc.kind, k, remark)
			require.Contains(t, remark, tc.remark)
			require.Empty(t, e.store.reads, "nothing is read")
		})
	}
}
