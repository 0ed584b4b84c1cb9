package policy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
)

func TestPutOutcome(t *testing.T) {
	for _, tc := range []struct {
		st     store.PutStatus
		remark string
		kind   outcome.Kind
		want   string
	}{
		{store.PutOK, "", outcome.OK, ""},
		{store.FlushDiskTimeout, "ignored", outcome.FlushDiskTimeout, "flush disk timeout"},
		{store.FlushSlaveTimeout, "", outcome.FlushSlaveTimeout, "flush slave timeout"},
		{store.SlaveNotAvailable, "", outcome.SlaveNotAvailable, "slave not available"},
		{store.MessageIllegal, "", outcome.MessageIllegal, "the message is illegal: body or properties too long"},
		{store.MessageIllegal, "body 5 > 4", outcome.MessageIllegal, "body 5 > 4"},
		{store.PropertiesSizeExceeded, "properties 32768 > 32767", outcome.MessageIllegal, "properties 32768 > 32767"},
		{store.ServiceNotAvailable, "", outcome.ServiceNotAvailable, "service not available now: the message store is not writable"},
		{store.ServiceNotAvailable, "disk full", outcome.ServiceNotAvailable, "disk full"},
		{store.CreateMappedFileFailed, "", outcome.ServiceNotAvailable, "create mapped file failed, the disk may be full"},
		{store.OSPageCacheBusy, "x", outcome.SystemBusy, "[PC_SYNCHRONIZED]broker busy, start flow control for a while"},
		{store.UnknownError, "", outcome.SystemError, "unknown error storing the message"},
		{store.UnknownError, "boom", outcome.SystemError, "boom"},
	} {
		t.Run(tc.st.String()+"/"+tc.remark, func(t *testing.T) {
			k, remark := PutOutcome(tc.st, tc.remark)
			require.Equal(t, tc.kind, k)
			require.Equal(t, tc.want, remark)
		})
	}
}

func TestPutFailure(t *testing.T) {
	for _, st := range []store.PutStatus{store.PutOK, store.FlushDiskTimeout, store.FlushSlaveTimeout, store.SlaveNotAvailable} {
		require.NoError(t, PutFailure(&store.PutResult{Status: st}), "%s stored the message", st)
	}
	err := PutFailure(&store.PutResult{Status: store.ServiceNotAvailable, Remark: "read-only"})
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.ServiceNotAvailable, k)
	require.Equal(t, "read-only", remark)
}

func TestCommitPutKind(t *testing.T) {
	for st, want := range map[store.PutStatus]outcome.Kind{
		store.MessageIllegal:         outcome.MessageIllegal,
		store.PropertiesSizeExceeded: outcome.MessageIllegal,
		store.ServiceNotAvailable:    outcome.ServiceNotAvailable,
		store.CreateMappedFileFailed: outcome.SystemError,
		store.OSPageCacheBusy:        outcome.SystemError,
		store.UnknownError:           outcome.SystemError,
	} {
		require.Equal(t, want, CommitPutKind(st), "%s", st)
	}
}

func TestPullStatus(t *testing.T) {
	for _, tc := range []struct {
		st        store.GetStatus
		requested int64
		want      outcome.Kind
	}{
		{store.Found, 5, outcome.OK},
		{store.NoMatchedMessage, 5, outcome.PullRetryImmediately},
		{store.MessageWasRemoving, 5, outcome.PullRetryImmediately},
		{store.NoMatchedLogicQueue, 0, outcome.PullNotFound},
		{store.NoMatchedLogicQueue, 5, outcome.PullOffsetMoved},
		{store.NoMessageInQueue, 0, outcome.PullNotFound},
		{store.NoMessageInQueue, 5, outcome.PullOffsetMoved},
		{store.OffsetFoundNull, 5, outcome.PullNotFound},
		{store.OffsetOverflowOne, 5, outcome.PullNotFound},
		{store.OffsetOverflowBadly, 5, outcome.PullOffsetMoved},
		{store.OffsetTooSmall, 5, outcome.PullOffsetMoved},
		{store.GetStatus(99), 5, outcome.SystemError},
	} {
		require.Equal(t, tc.want, PullStatus(tc.st, tc.requested), "%s from %d", tc.st, tc.requested)
	}
}
