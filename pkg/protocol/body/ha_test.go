package body

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// javaMasterHAStatus is what a Java 5.3.3 master writes: fastjson's sorted keys, no masterAddr
// (null) and no isActivated (the field has no getter).
const javaMasterHAStatus = `{"haClientRuntimeInfo":{"lastReadTimestamp":0,"lastWriteTimestamp":0,"masterFlushOffset":0,` +
	`"maxOffset":0,"transferredByteInSecond":0},"haConnectionInfo":[{"addr":"10.0.0.2:52110","diff":0,"inSync":true,` +
	`"slaveAckOffset":4096,"transferFromWhere":4096,"transferredByteInSecond":1024}],"inSyncSlaveNums":1,` +
	`"master":true,"masterCommitLogMaxOffset":4096}`

func TestHARuntimeInfoJavaMaster(t *testing.T) {
	h, err := DecodeHARuntimeInfo([]byte(javaMasterHAStatus))
	require.NoError(t, err)
	want := &HARuntimeInfo{Master: true, MasterCommitLogMaxOffset: 4096, InSyncSlaveNums: 1,
		HAConnectionInfo: []HAConnectionRuntimeInfo{{Addr: "10.0.0.2:52110", SlaveAckOffset: 4096, InSync: true,
			TransferFromWhere: 4096, TransferredByteInSecond: 1024}}}
	require.Equal(t, want, h)
	data, err := h.Encode()
	require.NoError(t, err)
	// Ours adds isActivated, which Java's reader ignores; the rest is Java's text.
	require.Equal(t, `{"haClientRuntimeInfo":{"isActivated":false,`+javaMasterHAStatus[len(`{"haClientRuntimeInfo":{`):], string(data))
}

func TestHARuntimeInfoSlaveRoundTrip(t *testing.T) {
	h := &HARuntimeInfo{HAClientRuntimeInfo: HAClientRuntimeInfo{MasterAddr: "10.0.0.1:10912", IsActivated: true,
		MaxOffset: 8192, LastReadTimestamp: 1_700_000_000_123, LastWriteTimestamp: 1_700_000_000_456,
		TransferredByteInSecond: 77, MasterFlushOffset: 3}}
	data, err := h.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"haClientRuntimeInfo":{"isActivated":true,"lastReadTimestamp":1700000000123,`+
		`"lastWriteTimestamp":1700000000456,"masterAddr":"10.0.0.1:10912","masterFlushOffset":3,"maxOffset":8192,`+
		`"transferredByteInSecond":77},"haConnectionInfo":[],"inSyncSlaveNums":0,"master":false,`+
		`"masterCommitLogMaxOffset":0}`, string(data))
	back, err := DecodeHARuntimeInfo(data)
	require.NoError(t, err)
	h.HAConnectionInfo = []HAConnectionRuntimeInfo{}
	require.Equal(t, h, back)

	_, err = DecodeHARuntimeInfo([]byte(`{"master":"yes"}`))
	require.ErrorContains(t, err, "HARuntimeInfo")
	_, err = DecodeHARuntimeInfo([]byte(`{"haConnectionInfo":[`))
	require.Error(t, err)
}

// FuzzDecodeHARuntimeInfo: anything decoded re-encodes and decodes to the same value.
func FuzzDecodeHARuntimeInfo(f *testing.F) {
	f.Add([]byte(javaMasterHAStatus))
	f.Add([]byte(`{"haClientRuntimeInfo":{"masterAddr":"a:1","isActivated":true},"master":false}`))
	f.Add([]byte(`{"haConnectionInfo":null,"inSyncSlaveNums":-1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := DecodeHARuntimeInfo(in)
		if err != nil {
			return
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeHARuntimeInfo(enc)
		if err != nil {
			t.Fatalf("re-decode %q: %v", enc, err)
		}
		if h.HAConnectionInfo == nil {
			h.HAConnectionInfo = []HAConnectionRuntimeInfo{}
		}
		require.Equal(t, h, back)
	})
}
