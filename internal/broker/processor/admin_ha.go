package processor

import (
	"context"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/hastatus"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// HAStatus answers the replication status (hastatus.Service).
type HAStatus interface {
	Status() hastatus.Status
}

// getBrokerHAStatus serves GET_BROKER_HA_STATUS.
func (p *Processor) getBrokerHAStatus(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	info := haRuntimeInfo(p.svc.HA.Status())
	data, err := info.Encode()
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}

// haRuntimeInfo is the status in Java's HARuntimeInfo. masterFlushOffset stays 0: it belongs to
// Java's controller mode, which this broker does not run.
func haRuntimeInfo(st hastatus.Status) body.HARuntimeInfo {
	info := body.HARuntimeInfo{Master: st.Master, MasterCommitLogMaxOffset: st.CommitLogMaxOffset,
		InSyncSlaveNums: int32(st.InSyncSlaves), HAConnectionInfo: make([]body.HAConnectionRuntimeInfo, 0, len(st.Slaves))}
	for _, s := range st.Slaves {
		info.HAConnectionInfo = append(info.HAConnectionInfo, body.HAConnectionRuntimeInfo{Addr: s.Addr,
			SlaveAckOffset: s.AckOffset, Diff: s.Diff, InSync: s.InSync, TransferredByteInSecond: s.BytesPerSecond,
			TransferFromWhere: s.TransferFrom})
	}
	r := st.Replica
	info.HAClientRuntimeInfo = body.HAClientRuntimeInfo{MasterAddr: r.MasterAddr, IsActivated: r.Connected,
		MaxOffset: r.MaxOffset, TransferredByteInSecond: r.BytesPerSecond, LastReadTimestamp: millis(r.LastRead),
		LastWriteTimestamp: millis(r.LastWrite)}
	return info
}

// millis is t in unix milliseconds, 0 for the zero time.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
