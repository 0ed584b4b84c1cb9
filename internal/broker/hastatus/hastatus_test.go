package hastatus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/ha"
)

type fakeLog int64

func (l fakeLog) CommitLogMaxOffset() int64 { return int64(l) }

type fakeMaster []ha.SlaveStatus

func (m fakeMaster) Slaves() []ha.SlaveStatus { return m }
func (fakeMaster) InSync(end, ack int64) bool { return end-ack < 100 }

type fakeClient struct{ read, write time.Time }

func (fakeClient) MasterAddr() string     { return "10.0.0.1:10912" }
func (fakeClient) Connected() bool        { return true }
func (c fakeClient) LastRead() time.Time  { return c.read }
func (c fakeClient) LastWrite() time.Time { return c.write }
func (fakeClient) BytesPerSecond() int64  { return 512 }

func TestMasterCountsSlavesInSync(t *testing.T) {
	s := New(Deps{Log: fakeLog(1000), Master: fakeMaster{
		{Addr: "a:1", AckOffset: 950, SentOffset: 1000, BytesPerSecond: 9},
		{Addr: "b:2", AckOffset: 100, SentOffset: 132},
		{Addr: "c:3", AckOffset: -1, SentOffset: -1},
	}})
	require.Equal(t, Status{Master: true, CommitLogMaxOffset: 1000, InSyncSlaves: 1, Slaves: []Slave{
		{Addr: "a:1", AckOffset: 950, Diff: 50, InSync: true, BytesPerSecond: 9, TransferFrom: 1000},
		{Addr: "b:2", AckOffset: 100, Diff: 900, TransferFrom: 132},
		{Addr: "c:3", AckOffset: -1, Diff: 1001, TransferFrom: -1},
	}}, s.Status())
}

func TestMasterWithoutHAServiceHasNoSlaves(t *testing.T) {
	require.Equal(t, Status{Master: true, CommitLogMaxOffset: 7}, New(Deps{Log: fakeLog(7)}).Status())
}

func TestSlaveReportsItsMaster(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	s := New(Deps{Log: fakeLog(4096), Client: fakeClient{read: at, write: at.Add(time.Second)}})
	require.Equal(t, Status{Replica: Replica{MasterAddr: "10.0.0.1:10912", Connected: true, MaxOffset: 4096,
		BytesPerSecond: 512, LastRead: at, LastWrite: at.Add(time.Second)}}, s.Status())
}
