package query

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

type fakeStore struct {
	asked   []int
	records [][]byte
	msgs    map[int64]*message.MessageExt
}

func (f *fakeStore) QueryMessage(_, _ string, maxNum int, _, _ int64) *store.QueryResult {
	f.asked = append(f.asked, maxNum)
	return &store.QueryResult{Records: f.records, IndexLastUpdateTimestamp: 5}
}

func (f *fakeStore) LookMessageByOffset(off int64) *message.MessageExt { return f.msgs[off] }

var host = netip.MustParseAddrPort("10.0.0.9:10911")

func TestByKey(t *testing.T) {
	st := &fakeStore{}
	s := New(Options{}, st)
	_, err := s.ByKey(KeyQuery{Topic: "T", Key: "k", MaxNum: 5})
	require.Equal(t, &outcome.Error{Kind: outcome.QueryNotFound, Remark: "can not find message, maybe time range not correct"}, err)

	st.records = [][]byte{[]byte("r")}
	r, err := s.ByKey(KeyQuery{Topic: "T", Key: "k", MaxNum: 5})
	require.NoError(t, err)
	require.Equal(t, int64(5), r.IndexLastUpdateTimestamp)
	r.Release()
	_, err = s.ByKey(KeyQuery{Topic: "T", Key: "k", MaxNum: 5, Unique: true})
	require.NoError(t, err)
	require.Equal(t, []int{5, 5, 32}, st.asked, "a unique-key query takes defaultQueryMaxNum")
}

func TestRecord(t *testing.T) {
	m := &message.MessageExt{Message: message.Message{Topic: "T", Body: []byte("hi"), PhysicalOffset: 64,
		StoreHost: host, BornHost: host}}
	st := &fakeStore{msgs: map[int64]*message.MessageExt{64: m}}
	s := New(Options{DefaultQueryMaxNum: 8}, st)
	rec, err := s.Record(64)
	require.NoError(t, err)
	back, err := message.Decode(rec, false)
	require.NoError(t, err)
	require.Equal(t, "T", back.Topic)
	require.Equal(t, []byte("hi"), back.Body)

	_, err = s.Record(65)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "can not find message by the offset, 65"}, err)

	rec2, err := s.RecordByID(message.OffsetMsgID(host, 64))
	require.NoError(t, err)
	require.Equal(t, rec, rec2)
	_, err = s.RecordByID("nonsense")
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.SystemError, k)
	require.Contains(t, remark, `bad msgId "nonsense": `)
}
