package body

import "fmt"

// HARuntimeInfo is GET_BROKER_HA_STATUS's body (Java HARuntimeInfo): a master's view of its
// slaves, or a slave's view of its master. Keys are in fastjson's order.
type HARuntimeInfo struct {
	HAClientRuntimeInfo      HAClientRuntimeInfo       `json:"haClientRuntimeInfo"`
	HAConnectionInfo         []HAConnectionRuntimeInfo `json:"haConnectionInfo"`
	InSyncSlaveNums          int32                     `json:"inSyncSlaveNums"`
	Master                   bool                      `json:"master"`
	MasterCommitLogMaxOffset int64                     `json:"masterCommitLogMaxOffset"`
}

// HAConnectionRuntimeInfo is one slave connection of a master (Java
// HARuntimeInfo.HAConnectionRuntimeInfo).
type HAConnectionRuntimeInfo struct {
	Addr           string `json:"addr"`
	Diff           int64  `json:"diff"`
	InSync         bool   `json:"inSync"`
	SlaveAckOffset int64  `json:"slaveAckOffset"`
	// TransferFromWhere is where the next frame to the slave starts, -1 before the first.
	TransferFromWhere       int64 `json:"transferFromWhere"`
	TransferredByteInSecond int64 `json:"transferredByteInSecond"`
}

// HAClientRuntimeInfo is a slave's replication client (Java HARuntimeInfo.HAClientRuntimeInfo).
// Timestamps are unix milliseconds.
type HAClientRuntimeInfo struct {
	// IsActivated: whether the slave's connection to its master is up. Java declares the field
	// without a getter, so its fastjson never writes it; Java readers ignore it.
	IsActivated             bool   `json:"isActivated"`
	LastReadTimestamp       int64  `json:"lastReadTimestamp"`
	LastWriteTimestamp      int64  `json:"lastWriteTimestamp"`
	MasterAddr              string `json:"masterAddr,omitempty"`
	MasterFlushOffset       int64  `json:"masterFlushOffset"`
	MaxOffset               int64  `json:"maxOffset"`
	TransferredByteInSecond int64  `json:"transferredByteInSecond"`
}

// Encode is the body; the connection list is [] rather than null.
func (h *HARuntimeInfo) Encode() ([]byte, error) {
	c := *h
	if c.HAConnectionInfo == nil {
		c.HAConnectionInfo = []HAConnectionRuntimeInfo{}
	}
	return Marshal(c)
}

// DecodeHARuntimeInfo reads a body as Java's broker or Encode writes it.
func DecodeHARuntimeInfo(data []byte) (*HARuntimeInfo, error) {
	var h HARuntimeInfo
	if err := Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("body: decode HARuntimeInfo: %w", err)
	}
	return &h, nil
}
