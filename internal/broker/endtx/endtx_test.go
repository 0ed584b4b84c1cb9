package endtx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/store"
)

type fakeTx struct {
	err   error
	asked []transaction.EndRequest
}

func (f *fakeTx) End(r transaction.EndRequest) error {
	f.asked = append(f.asked, r)
	return f.err
}

func TestEnd(t *testing.T) {
	req := transaction.EndRequest{ProducerGroup: "PG", CommitLogOffset: 9, CommitOrRollback: 8, MsgID: "M"}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"done", nil, nil},
		{"not its half", &transaction.EndError{Reason: "no such half"},
			&outcome.Error{Kind: outcome.SystemError, Remark: "no such half"}},
		{"the commit's message is too big",
			&transaction.CommitPutError{Result: store.PutResult{Status: store.PropertiesSizeExceeded, Remark: "props"}},
			&outcome.Error{Kind: outcome.MessageIllegal}},
		{"the store is read-only",
			&transaction.CommitPutError{Result: store.PutResult{Status: store.ServiceNotAvailable}},
			&outcome.Error{Kind: outcome.ServiceNotAvailable}},
		{"the timer refuses the committed message",
			&outcome.Error{Kind: outcome.MessageIllegal, Remark: "timer message illegal"},
			&outcome.Error{Kind: outcome.MessageIllegal, Remark: "timer message illegal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := &fakeTx{err: tc.err}
			err := New(Options{BrokerName: "broker-a"}, tx).End(req)
			require.Equal(t, []transaction.EndRequest{req}, tx.asked)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			want := tc.want.(*outcome.Error)
			if want.Remark == "" {
				want.Remark = tc.err.Error()
			}
			require.Equal(t, want, err)
		})
	}
}

func TestEndOnSlave(t *testing.T) {
	tx := &fakeTx{}
	err := New(Options{BrokerName: "broker-a", Slave: true}, tx).End(transaction.EndRequest{})
	require.Equal(t, &outcome.Error{Kind: outcome.SlaveNotAvailable,
		Remark: "the broker[broker-a] is a slave: end transaction is forbidden"}, err)
	require.Empty(t, tx.asked)
}
