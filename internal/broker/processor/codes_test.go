package processor

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestResponseCodes: every outcome has its RocketMQ code, and no two share one.
func TestResponseCodes(t *testing.T) {
	want := map[outcome.Kind]protocol.ResponseCode{
		outcome.OK: protocol.Success, outcome.SystemError: protocol.SystemError, outcome.SystemBusy: protocol.SystemBusy,
		outcome.NoPermission: protocol.NoPermission, outcome.TopicNotExist: protocol.TopicNotExist,
		outcome.GroupNotExist: protocol.SubscriptionGroupNotExist, outcome.MessageIllegal: protocol.MessageIllegal,
		outcome.SubscriptionNotExist: protocol.SubscriptionNotExist, outcome.SubscriptionNotLatest: protocol.SubscriptionNotLatest,
		outcome.SubscriptionParseFailed: protocol.SubscriptionParseFailed, outcome.FilterDataNotExist: protocol.FilterDataNotExist,
		outcome.QueryNotFound: protocol.QueryNotFound, outcome.ConsumerNotOnline: protocol.ConsumerNotOnline,
		outcome.ClientTimeout: protocol.ConsumeMsgTimeout, outcome.SlaveNotAvailable: protocol.SlaveNotAvailable,
		outcome.FlushDiskTimeout: protocol.FlushDiskTimeout, outcome.FlushSlaveTimeout: protocol.FlushSlaveTimeout,
		outcome.ServiceNotAvailable: protocol.ServiceNotAvailable, outcome.PullNotFound: protocol.PullNotFound,
		outcome.PullRetryImmediately: protocol.PullRetryImmediately, outcome.PullOffsetMoved: protocol.PullOffsetMoved,
		outcome.IllegalOperation: protocol.IllegalOperation,
	}
	seen := map[protocol.ResponseCode]outcome.Kind{}
	for _, k := range outcome.Kinds() {
		code, ok := want[k]
		require.True(t, ok, "the test lacks %s", k)
		require.Equal(t, code, responseCode(k), "%s", k)
		_, dup := seen[code]
		require.False(t, dup, "%s and %s share %s", k, seen[code], code)
		seen[code] = k
	}
	require.Len(t, responseCodes, len(outcome.Kinds()), "one entry per kind")
	require.Equal(t, protocol.SystemError, responseCode(outcome.Kind(250)), "a kind the table lacks")
}

func TestFailure(t *testing.T) {
	req := &protocol.Command{Opaque: 7, SerializeType: protocol.RocketMQ}
	for _, tc := range []struct {
		name   string
		err    error
		code   protocol.ResponseCode
		remark string
	}{
		{"an outcome", outcome.Errorf(outcome.NoPermission, "no"), protocol.NoPermission, "no"},
		{"a wrapped outcome", fmt.Errorf("x: %w", outcome.Errorf(outcome.TopicNotExist, "t")), protocol.TopicNotExist, "t"},
		{"a bad field", fmt.Errorf("decode: %w", &protocol.FieldError{Field: "topic", Missing: true}), protocol.SystemError,
			"the custom field <topic> is null"},
		{"any other error", errors.New("disk on fire"), protocol.SystemError, "disk on fire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := respond(req, nil, tc.err)
			require.Equal(t, tc.code, resp.ResponseCode())
			require.Equal(t, tc.remark, resp.Remark)
			require.Equal(t, int32(7), resp.Opaque)
			require.True(t, resp.IsResponse())
			require.Equal(t, protocol.RocketMQ, resp.SerializeType)
		})
	}
	ok := success(req)
	require.Same(t, ok, respond(req, ok, nil))
}
