package processor_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/hastatus"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

type haFake struct{ f *fakes }

func (h haFake) Status() hastatus.Status { return h.f.called("haStatus").haStatus }

func TestHAStatusHandler(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	f.set(func(a *answers) {
		a.haStatus = hastatus.Status{Master: true, CommitLogMaxOffset: 4096, InSyncSlaves: 1, Slaves: []hastatus.Slave{
			{Addr: "10.0.0.2:5000", AckOffset: 4000, Diff: 96, InSync: true, BytesPerSecond: 2048, TransferFrom: 4096},
			{Addr: "10.0.0.3:5000", AckOffset: -1, Diff: 4097, TransferFrom: -1}}}
	})
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerHAStatus, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, "haStatus", f.last())
	info, err := body.DecodeHARuntimeInfo(resp.Body)
	require.NoError(t, err)
	require.Equal(t, &body.HARuntimeInfo{Master: true, MasterCommitLogMaxOffset: 4096, InSyncSlaveNums: 1,
		HAConnectionInfo: []body.HAConnectionRuntimeInfo{
			{Addr: "10.0.0.2:5000", SlaveAckOffset: 4000, Diff: 96, InSync: true, TransferredByteInSecond: 2048, TransferFromWhere: 4096},
			{Addr: "10.0.0.3:5000", SlaveAckOffset: -1, Diff: 4097, TransferFromWhere: -1}}}, info)

	at := time.UnixMilli(1_700_000_000_123)
	f.set(func(a *answers) {
		a.haStatus = hastatus.Status{Replica: hastatus.Replica{MasterAddr: "10.0.0.1:10912", Connected: true,
			MaxOffset: 8192, BytesPerSecond: 10, LastRead: at}}
	})
	resp = c.Call(protocol.NewRequest(protocol.GetBrokerHAStatus, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"haClientRuntimeInfo":{"isActivated":true,"lastReadTimestamp":1700000000123,"lastWriteTimestamp":0,`+
		`"masterAddr":"10.0.0.1:10912","masterFlushOffset":0,"maxOffset":8192,"transferredByteInSecond":10},`+
		`"haConnectionInfo":[],"inSyncSlaveNums":0,"master":false,"masterCommitLogMaxOffset":0}`, string(resp.Body))
}
