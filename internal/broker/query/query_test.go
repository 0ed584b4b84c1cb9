package query

import (
	"errors"
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
	rec, err := s.Record(64, nil)
	require.NoError(t, err)
	back, err := message.Decode(rec, false)
	require.NoError(t, err)
	require.Equal(t, "T", back.Topic)
	require.Equal(t, []byte("hi"), back.Body)

	_, err = s.Record(65, nil)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "can not find message by the offset, 65"}, err)

	rec2, err := s.RecordByID(message.OffsetMsgID(host, 64), nil)
	require.NoError(t, err)
	require.Equal(t, rec, rec2)
	_, err = s.RecordByID("nonsense", nil)
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.SystemError, k)
	require.Contains(t, remark, `bad msgId "nonsense": `)
}

// TestReadsAskAboutTheTopicRead: the check handed in is asked about the topic of what was read,
// and a refusal returns nothing of it.
func TestReadsAskAboutTheTopicRead(t *testing.T) {
	m := &message.MessageExt{Message: message.Message{Topic: "Secret", Body: []byte("hi"), PhysicalOffset: 64,
		StoreHost: host, BornHost: host}}
	rec := make([]byte, m.EncodedSize())
	_, err := message.Encode(rec, &m.Message)
	require.NoError(t, err)
	st := &fakeStore{msgs: map[int64]*message.MessageExt{64: m}, records: [][]byte{rec}}
	s := New(Options{}, st)
	var asked []string
	refused := errors.New("refused")
	may := func(topic string) error {
		asked = append(asked, topic)
		if topic == "Secret" {
			return refused
		}
		return nil
	}
	got, err := s.Record(64, may)
	require.Nil(t, got)
	require.Same(t, refused, err)
	_, err = s.RecordByID(message.OffsetMsgID(host, 64), may)
	require.Same(t, refused, err)
	_, err = s.ByKey(KeyQuery{Topic: "Public", Key: "k", MaxNum: 1, MayRead: may})
	require.Same(t, refused, err, "a record of another topic in the index answer refuses the query")
	require.Equal(t, []string{"Secret", "Secret", "Secret"}, asked)

	m.Topic = "Public"
	_, err = s.Record(64, may)
	require.NoError(t, err)
}
