package policy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestPullRoute(t *testing.T) {
	g := body.SubscriptionGroupConfig{BrokerID: 2, WhichBrokerWhenConsumeSlowly: 1}
	master, slave := Replica{}, Replica{Slave: true}
	masterRead, slaveRead := Replica{SlaveReadEnable: true}, Replica{Slave: true, SlaveReadEnable: true}
	for _, tc := range []struct {
		name    string
		k       outcome.Kind
		r       Replica
		onDisk  bool
		want    outcome.Kind
		suggest int64
	}{
		{"master without slave read: the master", outcome.OK, master, true, outcome.OK, body.MasterID},
		{"master, slave read, in memory: the group's broker", outcome.OK, masterRead, false, outcome.OK, 2},
		{"master, slave read, on disk: the slow-consumer broker", outcome.OK, masterRead, true, outcome.OK, 1},
		{"master keeps an offset move", outcome.PullOffsetMoved, master, false, outcome.PullOffsetMoved, body.MasterID},
		{"slave turns an offset move into a retry", outcome.PullOffsetMoved, slave, false, outcome.PullRetryImmediately, 2},
		{"slave with slave read turns an offset move into a retry", outcome.PullOffsetMoved, slaveRead, true, outcome.PullRetryImmediately, 2},
		{"slave without slave read sends the consumer to the master", outcome.PullNotFound, slave, false, outcome.PullNotFound, body.MasterID},
		{"slave with slave read, on disk", outcome.OK, slaveRead, true, outcome.OK, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, suggest := PullRoute(tc.k, tc.r, g, tc.onDisk)
			require.Equal(t, tc.want, k)
			require.Equal(t, tc.suggest, suggest)
		})
	}
}
