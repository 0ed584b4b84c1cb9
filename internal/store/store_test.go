package store_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func body(i int, n int) []byte {
	b := bytes.Repeat([]byte{'.'}, n)
	copy(b, fmt.Sprintf("msg-%d", i))
	return b
}

func mustPut(t *testing.T, s *store.Store, m *store.Message) store.PutResult {
	t.Helper()
	r := s.PutMessage(m)
	require.Equal(t, store.PutOK, r.Status, r.Remark)
	return r
}

// waitDispatched waits until every written record is in the ConsumeQueues.
func waitDispatched(t *testing.T, s *store.Store) {
	t.Helper()
	require.Eventually(t, func() bool { return s.DispatchBehindBytes() == 0 }, 5*time.Second, time.Millisecond)
}

// pullAll reads a whole queue and returns the decoded messages.
func pullAll(t *testing.T, s *store.Store, topic string, qid int32) []*message.MessageExt {
	t.Helper()
	var out []*message.MessageExt
	off := s.MinOffsetInQueue(topic, qid)
	for {
		r := s.GetMessage("g", topic, qid, off, 32, nil)
		require.NotNil(t, r)
		if r.Status != store.Found {
			require.Contains(t, []store.GetStatus{store.OffsetOverflowOne, store.NoMatchedLogicQueue, store.NoMessageInQueue}, r.Status)
			r.Release()
			return out
		}
		for i, rec := range r.Records {
			m, err := message.Decode(rec, true)
			require.NoError(t, err)
			require.Equal(t, r.QueueOffsets[i], m.QueueOffset)
			out = append(out, m)
		}
		off = r.NextBeginOffset
		r.Release()
	}
}

func TestPutGetRoundTrip(t *testing.T) {
	s := storetest.Open(t, storetest.Options(t.TempDir()))
	var puts []store.PutResult
	for i := range 60 {
		m := storetest.Msg("TopicA", int32(i%2), body(i, 1500), map[string]string{"TAGS": "tagA", "UNIQ_KEY": fmt.Sprintf("U%d", i)})
		r := mustPut(t, s, m)
		require.EqualValues(t, i/2, r.QueueOffset)
		require.EqualValues(t, 1, r.MsgNum)
		host, off, err := message.ParseOffsetMsgID(r.MsgID())
		require.NoError(t, err)
		require.Equal(t, storetest.StoreHost, host)
		require.Equal(t, r.WroteOffset, off)
		puts = append(puts, r)
	}
	waitDispatched(t, s)
	require.EqualValues(t, 30, s.MaxOffsetInQueue("TopicA", 0))
	require.EqualValues(t, 0, s.MinOffsetInQueue("TopicA", 1))
	for qid := range int32(2) {
		got := pullAll(t, s, "TopicA", qid)
		require.Len(t, got, 30)
		for j, m := range got {
			i := j*2 + int(qid)
			require.Equal(t, body(i, 1500), m.Body)
			require.Equal(t, puts[i].WroteOffset, m.PhysicalOffset)
			require.Equal(t, puts[i].StoreTimestamp, m.StoreTimestamp)
			require.Equal(t, "tagA", m.Tags())
			require.Equal(t, storetest.StoreHost, m.StoreHost)
		}
	}
	m := s.LookMessageByOffset(puts[7].WroteOffset)
	require.NotNil(t, m)
	require.Equal(t, "U7", m.UniqKey())
	require.Nil(t, s.LookMessageByOffset(puts[7].WroteOffset+1))
	require.Greater(t, s.CommitLogMaxOffset(), int64(storetest.SegmentSize), "crossed a segment")
}

func TestPutRefusals(t *testing.T) {
	s := storetest.Open(t, storetest.Options(t.TempDir()))
	for _, topic := range []string{"", "a/b", "..", strings.Repeat("t", 128)} {
		r := s.PutMessage(storetest.Msg(topic, 0, nil, nil))
		require.Equal(t, store.MessageIllegal, r.Status, topic)
		require.NotEmpty(t, r.Remark)
	}
	r := s.PutMessage(storetest.Msg("T", 0, make([]byte, storetest.SegmentSize), nil))
	require.Equal(t, store.MessageIllegal, r.Status)
	r = s.PutMessage(storetest.Msg("T", 0, nil, map[string]string{"big": strings.Repeat("x", 33000)}))
	require.Equal(t, store.PropertiesSizeExceeded, r.Status)
	require.NoError(t, s.Close())
	r = s.PutMessage(storetest.Msg("T", 0, nil, nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.False(t, s.IsWritable())
	require.Nil(t, s.GetMessage("g", "T", 0, 0, 1, nil))
}

type tagFilter struct{ codes map[int64]bool }

func (f tagFilter) MatchByConsumeQueue(code int64) bool { return f.codes[code] }
func (f tagFilter) MatchByCommitLog([]byte) bool        { return true }

type propFilter struct{ want string }

func (f propFilter) MatchByConsumeQueue(int64) bool { return true }
func (f propFilter) MatchByCommitLog(p []byte) bool {
	v, _ := message.LookupProperty(p, "color")
	return string(v) == f.want
}

func TestGetMessageStatusesAndLimits(t *testing.T) {
	o := storetest.Options(t.TempDir())
	s := storetest.Open(t, o)
	for i := range 1100 {
		tag := "odd"
		if i%2 == 0 {
			tag = "even"
		}
		color := "red"
		if i == 1050 {
			color = "blue"
		}
		mustPut(t, s, storetest.Msg("Q", 0, body(i, 10), map[string]string{"TAGS": tag, "color": color}))
	}
	waitDispatched(t, s)
	even := tagFilter{map[int64]bool{int64(message.JavaHash("even")): true}}
	none := tagFilter{map[int64]bool{}}
	for _, tc := range []struct {
		name   string
		topic  string
		offset int64
		max    int32
		filter store.MessageFilter
		status store.GetStatus
		count  int
		next   int64
	}{
		{"missing queue", "nope", 5, 32, nil, store.NoMatchedLogicQueue, 0, 0},
		{"found, in-memory count limit", "Q", 0, 64, nil, store.Found, 32, 32},
		{"found, maxMsgNums", "Q", 10, 5, nil, store.Found, 5, 15},
		{"at least one", "Q", 10, 0, nil, store.Found, 1, 11},
		{"overflow one", "Q", 1100, 32, nil, store.OffsetOverflowOne, 0, 1100},
		{"overflow badly", "Q", 5000, 32, nil, store.OffsetOverflowBadly, 0, 1100},
		{"tag filter", "Q", 0, 4, even, store.Found, 4, 7},
		{"nothing matches: scan stops at the ConsumeQueue file end", "Q", 300, 32, none, store.NoMatchedMessage, 0, 1000},
		{"nothing matches: scan limit 800 entries", "Q", 0, 32, none, store.NoMatchedMessage, 0, 800},
		{"property filter", "Q", 1000, 32, propFilter{"blue"}, store.Found, 1, 1100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.GetMessage("g", tc.topic, 0, tc.offset, tc.max, tc.filter)
			defer r.Release()
			require.Equal(t, tc.status, r.Status, r.Status.String())
			require.Equal(t, tc.count, r.MessageCount())
			require.Equal(t, tc.next, r.NextBeginOffset)
			if tc.topic == "Q" {
				require.EqualValues(t, 0, r.MinOffset)
				require.EqualValues(t, 1100, r.MaxOffset)
			}
			if tc.name == "tag filter" {
				for _, rec := range r.Records {
					v, err := message.Parse(rec)
					require.NoError(t, err)
					tags, _ := v.Property("TAGS")
					require.Equal(t, "even", string(tags))
				}
			}
		})
	}
}

func TestGetMessageByteLimits(t *testing.T) {
	o := storetest.Options(t.TempDir())
	s := storetest.Open(t, o)
	for i := range 20 {
		mustPut(t, s, storetest.Msg("Big", 0, body(i, 20<<10), nil))
	}
	waitDispatched(t, s)
	r := s.GetMessage("g", "Big", 0, 0, 32, nil)
	require.Equal(t, store.Found, r.Status)
	require.Equal(t, 12, r.MessageCount(), "256 KiB in memory")
	require.LessOrEqual(t, r.BufferTotalSize, 256<<10)
	require.EqualValues(t, 12, r.NextBeginOffset)
	r.Release()

	// With no memory at all every message counts as on disk: 64 KiB / 8 messages.
	o2 := storetest.Options(t.TempDir())
	o2.TotalMemory = 1
	o2.AccessMessageInMemoryMaxRatio = 1
	s2 := storetest.Open(t, o2)
	for i := range 20 {
		mustPut(t, s2, storetest.Msg("Big", 0, body(i, 20<<10), nil))
		mustPut(t, s2, storetest.Msg("Small", 0, body(i, 10), nil))
	}
	waitDispatched(t, s2)
	r = s2.GetMessage("g", "Big", 0, 0, 32, nil)
	require.Equal(t, 3, r.MessageCount())
	require.True(t, r.SuggestPullingFromSlave)
	r.Release()
	r = s2.GetMessage("g", "Small", 0, 0, 32, nil)
	require.Equal(t, 8, r.MessageCount())
	r.Release()
}

func TestDispatchHookTagsAndSchedule(t *testing.T) {
	o := storetest.Options(t.TempDir())
	var mu sync.Mutex
	var infos []store.DispatchInfo
	o.OnDispatch = func(d store.DispatchInfo) {
		mu.Lock()
		defer mu.Unlock()
		d.Properties = append([]byte(nil), d.Properties...)
		infos = append(infos, d)
	}
	s := storetest.Open(t, o)
	r1 := mustPut(t, s, storetest.Msg("T", 2, []byte("a"), map[string]string{"TAGS": "TagA"}))
	r2 := mustPut(t, s, storetest.Msg(message.ScheduleTopic, 2, []byte("b"), map[string]string{"DELAY": "3", "TAGS": "x"}))
	r3 := mustPut(t, s, storetest.Msg(message.ScheduleTopic, 17, []byte("c"), map[string]string{"DELAY": "99"}))
	prep := storetest.Msg("T", 2, []byte("half"), nil)
	prep.SysFlag = message.SysFlagTransactionPrep
	r4 := mustPut(t, s, prep)
	require.Zero(t, r4.QueueOffset)
	r5 := mustPut(t, s, storetest.Msg("T", 2, nil, nil))
	require.EqualValues(t, 1, r5.QueueOffset, "a prepared record does not take a queue offset")
	waitDispatched(t, s)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, infos, 4, "prepared records are not dispatched to queues")
	require.Equal(t, "T", infos[0].Topic)
	require.EqualValues(t, 2, infos[0].QueueID)
	require.EqualValues(t, 0, infos[0].QueueOffset)
	require.Equal(t, r1.WroteOffset, infos[0].CommitLogOffset)
	require.Equal(t, r1.WroteBytes, infos[0].Size)
	require.Equal(t, r1.StoreTimestamp, infos[0].StoreTimestamp)
	require.EqualValues(t, message.JavaHash("TagA"), infos[0].TagsCode)
	require.Contains(t, string(infos[0].Properties), "TAGS\x01TagA")
	require.Equal(t, r2.StoreTimestamp+10_000, infos[1].TagsCode, "level 3 = 10 s after the store time")
	require.Equal(t, r3.StoreTimestamp+2*3600_000, infos[2].TagsCode, "levels clamp to the last (2 h)")
	require.Equal(t, r5.WroteOffset, infos[3].CommitLogOffset)
	require.NotNil(t, s.LookMessageByOffset(r4.WroteOffset), "the half message is in the log")
}

func TestPutBatch(t *testing.T) {
	s := storetest.Open(t, storetest.Options(t.TempDir()))
	var b []byte
	for i := range 5 {
		b = message.AppendBatchEntry(b, 0, body(i, 100), message.EncodeProperties(map[string]string{"KEYS": fmt.Sprintf("k%d", i)}))
	}
	r := s.PutMessages(&store.Batch{Topic: "B", QueueID: 1, Body: b, Properties: "WAIT\x01true\x02"})
	require.Equal(t, store.PutOK, r.Status, r.Remark)
	require.EqualValues(t, 5, r.MsgNum)
	ids := strings.Split(string(r.AppendMsgIDs(nil)), ",")
	require.Len(t, ids, 5)
	for i, id := range ids {
		_, off, err := message.ParseOffsetMsgID(id)
		require.NoError(t, err)
		m := s.LookMessageByOffset(off)
		require.Equal(t, fmt.Sprintf("k%d", i), m.Props["KEYS"])
		require.Equal(t, "true", m.Props["WAIT"])
		require.EqualValues(t, i, m.QueueOffset)
	}
	waitDispatched(t, s)
	require.Len(t, pullAll(t, s, "B", 1), 5)
	bad := s.PutMessages(&store.Batch{Topic: "B", Body: []byte{1, 2, 3}})
	require.Equal(t, store.MessageIllegal, bad.Status)
}

func TestQueriesByTime(t *testing.T) {
	o := storetest.Options(t.TempDir())
	var mu sync.Mutex
	now := time.UnixMilli(1_700_000_000_000)
	o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := storetest.Open(t, o)
	require.EqualValues(t, -1, s.EarliestMessageTime("T", 0))
	for i := range 50 {
		mu.Lock()
		now = time.UnixMilli(1_700_000_000_000 + int64(i)*1000)
		mu.Unlock()
		mustPut(t, s, storetest.Msg("T", 0, body(i, 10), nil))
	}
	waitDispatched(t, s)
	base := int64(1_700_000_000_000)
	require.Equal(t, base, s.EarliestMessageTime("T", 0))
	require.Equal(t, base+7000, s.MessageStoreTime("T", 0, 7))
	require.EqualValues(t, -1, s.MessageStoreTime("T", 0, 50))
	require.EqualValues(t, 7, s.OffsetInQueueByTime("T", 0, base+7000))
	require.EqualValues(t, 7, s.OffsetInQueueByTime("T", 0, base+7400))
	require.EqualValues(t, 8, s.OffsetInQueueByTime("T", 0, base+7600))
	require.EqualValues(t, 0, s.OffsetInQueueByTime("T", 0, 0))
	require.EqualValues(t, 49, s.OffsetInQueueByTime("T", 0, base+1e9))
	require.EqualValues(t, 0, s.OffsetInQueueByTime("nope", 0, base))
	require.Equal(t, base, s.EarliestMessageTimeInStore())
}

func TestDeleteTopic(t *testing.T) {
	o := storetest.Options(t.TempDir())
	s := storetest.Open(t, o)
	for i := range 300 {
		mustPut(t, s, storetest.Msg("Keep", 0, body(i, 1000), nil))
		mustPut(t, s, storetest.Msg("Drop", 0, body(i, 10), nil))
	}
	waitDispatched(t, s)
	require.NoError(t, s.DeleteTopic("Drop"))
	require.Zero(t, s.MaxOffsetInQueue("Drop", 0))
	_, _, ok := s.QueueBounds("Drop", 0)
	require.False(t, ok)
	_, err := os.Stat(filepath.Join(o.RootDir, "consumequeue", "Drop"))
	require.ErrorIs(t, err, os.ErrNotExist)
	r := mustPut(t, s, storetest.Msg("Drop", 0, nil, nil))
	require.Zero(t, r.QueueOffset, "a deleted topic starts again at 0")
	require.EqualValues(t, 300, s.MaxOffsetInQueue("Keep", 0))

	// Names that are not topics never reach the file system: the store and what is beside it stay.
	for _, bad := range []string{"", "..", "../..", "../../victim", "Keep/../..", "."} {
		require.Error(t, s.DeleteTopic(bad), "%q", bad)
	}
	for _, p := range []string{"commitlog", "consumequeue/Keep"} {
		_, err := os.Stat(filepath.Join(o.RootDir, p))
		require.NoError(t, err, p)
	}
	require.EqualValues(t, 300, s.MaxOffsetInQueue("Keep", 0))
}

func TestQueryMessageByKey(t *testing.T) {
	s := storetest.Open(t, storetest.Options(t.TempDir()))
	for i := range 40 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 10), map[string]string{
			"KEYS": fmt.Sprintf("order-%d shared", i), "UNIQ_KEY": fmt.Sprintf("UNIQ%03d", i),
		}))
		mustPut(t, s, storetest.Msg("Other", 0, body(i, 10), map[string]string{"KEYS": "shared"}))
	}
	waitDispatched(t, s)
	now := time.Now().UnixMilli()
	q := s.QueryMessage("T", "order-7", 32, 0, now+1000)
	require.Len(t, q.Records, 1)
	m, err := message.Decode(q.Records[0], true)
	require.NoError(t, err)
	require.Equal(t, "UNIQ007", m.UniqKey())
	require.Positive(t, q.IndexLastUpdateTimestamp)
	q.Release()
	q = s.QueryMessage("T", "UNIQ039", 32, 0, now+1000)
	require.Len(t, q.Records, 1)
	q.Release()
	q = s.QueryMessage("T", "shared", 10, 0, now+1000)
	require.Len(t, q.Records, 10, "capped by maxNum, only topic T")
	for _, rec := range q.Records {
		v, _ := message.Parse(rec)
		require.Equal(t, "T", string(v.Topic()))
	}
	q.Release()
	q = s.QueryMessage("T", "missing", 10, 0, now+1000)
	require.Empty(t, q.Records)
	q.Release()
}

func TestRuntimeInfoAndMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := storetest.Options(t.TempDir())
	s, err := store.Open(o, zaptest.NewLogger(t), reg)
	require.NoError(t, err)
	s.Start()
	for i := range 10 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 100), nil))
	}
	waitDispatched(t, s)
	s.GetMessage("g", "T", 0, 0, 32, nil).Release()
	info := s.RuntimeInfo()
	for _, k := range []string{"commitLogMinOffset", "commitLogMaxOffset", "dispatchBehindBytes", "putMessageTimesTotal",
		"putMessageSizeTotal", "putMessageEntireTimeMax", "getMessageEntireTimeMax", "earliestMessageTimeStamp",
		"pageCacheLockTimeMills", "remainTransientStoreBufferNumbs", "dispatchMaxBuffer", "startAcceptSendRequestTimeStamp"} {
		_, err := strconv.ParseInt(info[k], 10, 64)
		require.NoError(t, err, "%s=%q", k, info[k])
	}
	for _, k := range []string{"commitLogDiskRatio", "consumeQueueDiskRatio", "putMessageAverageSize"} {
		_, err := strconv.ParseFloat(info[k], 64)
		require.NoError(t, err, "%s=%q", k, info[k])
	}
	for _, k := range []string{"putTps", "getFoundTps", "getMissTps", "getTotalTps", "getTransferedTps"} {
		require.Len(t, strings.Fields(info[k]), 3, k)
	}
	require.Equal(t, "10", info["putMessageTimesTotal"])
	require.Regexp(t, `^\d+ B$|^\d+\.\d [KMGTPE]iB$`, info["remainHowManyDataToFlush"])
	require.Regexp(t, `^Total : .*, Free : .*\.$`, info["commitLogDirCapacity"])
	require.Len(t, strings.Fields(info["putMessageDistributeTime"]), 13)

	mfs, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	require.True(t, names["rocketgo_store_put_messages_total"])
	require.True(t, names["rocketgo_store_commitlog_flush_seconds"])
	require.True(t, names["rocketgo_store_consumequeue_mapped_files"])
	require.NoError(t, s.Close())
	// Closing unregisters, so a reopened store can use the same registry.
	s2, err := store.Open(o, zaptest.NewLogger(t), reg)
	require.NoError(t, err)
	require.NoError(t, s2.Close())
}

func TestLockRefusesSecondOpen(t *testing.T) {
	dir := t.TempDir()
	storetest.Open(t, storetest.Options(dir))
	_, err := store.Open(storetest.Options(dir), zaptest.NewLogger(t), nil)
	require.ErrorContains(t, err, "another broker")
}

func TestParseDelayLevels(t *testing.T) {
	l, err := store.ParseDelayLevels(store.DefaultDelayLevels)
	require.NoError(t, err)
	require.Len(t, l, 18)
	require.Equal(t, 10*time.Second, l[2])
	require.Equal(t, 2*time.Hour, l[17])
	l, err = store.ParseDelayLevels("1d 0s")
	require.NoError(t, err)
	require.Equal(t, []time.Duration{24 * time.Hour, 0}, l)
	for _, bad := range []string{"1x", "s", "-1s"} {
		_, err := store.ParseDelayLevels(bad)
		require.Error(t, err, bad)
	}
}

// fakeIndexer records what the dispatcher feeds the Indexer seam.
type fakeIndexer struct {
	mu      sync.Mutex
	offsets map[string][]int64 // topic#key → offsets
	closed  bool
}

func (f *fakeIndexer) Index(info store.DispatchInfo) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.offsets == nil {
		f.offsets = map[string][]int64{}
	}
	for _, k := range strings.Fields(info.Keys()) {
		f.offsets[info.Topic+"#"+k] = append(f.offsets[info.Topic+"#"+k], info.CommitLogOffset)
	}
	return nil
}

func (f *fakeIndexer) Query(topic, key string, maxNum int, _, _ int64) store.IndexQueryResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	offs := f.offsets[topic+"#"+key]
	return store.IndexQueryResult{PhyOffsets: offs[:min(maxNum, len(offs))]}
}

func (f *fakeIndexer) Flush() error                     { return nil }
func (f *fakeIndexer) FlushedTimestamp() int64          { return 0 }
func (f *fakeIndexer) ResumeOffset() (int64, bool)      { return 0, false }
func (f *fakeIndexer) Truncate(int64) error             { return nil }
func (f *fakeIndexer) DeleteExpired(int64) (int, error) { return 0, nil }
func (f *fakeIndexer) Close() error                     { f.closed = true; return nil }

func TestIndexerSeam(t *testing.T) {
	o := storetest.Options(t.TempDir())
	idx := &fakeIndexer{}
	o.Indexer = idx
	s, err := store.Open(o, zaptest.NewLogger(t), nil)
	require.NoError(t, err)
	s.Start()
	mustPut(t, s, storetest.Msg("T", 0, []byte("a"), map[string]string{"KEYS": "k1 k2"}))
	half := storetest.Msg("T", 0, []byte("half"), map[string]string{"KEYS": "k2"})
	half.SysFlag = message.SysFlagTransactionPrep
	mustPut(t, s, half)
	waitDispatched(t, s)
	q := s.QueryMessage("T", "k2", 10, 0, 1<<62)
	require.Len(t, q.Records, 2, "prepared records are indexed too")
	q.Release()
	require.NoError(t, s.Close())
	require.True(t, idx.closed)
}

// A deleted topic's records stay in the CommitLog, but no recovery brings
// them back: not a crash re-dispatching from before the deletion, not a
// rebuild of lost ConsumeQueues. The tombstone goes once they have expired.
func TestDeletedTopicStaysDeleted(t *testing.T) {
	dir := t.TempDir()
	o := storetest.Options(dir)
	s := storetest.Open(t, o)
	for i := range 100 {
		mustPut(t, s, storetest.Msg("Gone", 0, body(i, 1000), nil))
		mustPut(t, s, storetest.Msg("Kept", 0, body(i, 10), nil))
	}
	waitDispatched(t, s)
	require.NoError(t, s.DeleteTopic("Gone"))
	mustPut(t, s, storetest.Msg("Gone", 0, []byte("new"), nil))
	waitDispatched(t, s)

	for name, damage := range map[string]func(dir string){
		"crash, checkpoint lost": func(dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "checkpoint"))) },
		"consume queues lost":    func(dir string) { require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue"))) },
	} {
		t.Run(name, func(t *testing.T) {
			crashed := t.TempDir()
			storetest.CopyDir(t, dir, crashed)
			damage(crashed)
			s2 := storetest.Open(t, storetest.Options(crashed))
			got := pullAll(t, s2, "Gone", 0)
			require.Len(t, got, 1)
			require.Equal(t, "new", string(got[0].Body))
			require.Len(t, pullAll(t, s2, "Kept", 0), 100)
			require.EqualValues(t, 1, mustPut(t, s2, storetest.Msg("Gone", 0, nil, nil)).QueueOffset)
		})
	}

	path := filepath.Join(dir, "deletedTopics.json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), `"Gone"`)
	for i := range 70 { // past the segment the deletion happened in
		mustPut(t, s, storetest.Msg("Kept", 0, body(i, 1000), nil))
	}
	_, err = s.CleanExpired(0, true, 0)
	require.NoError(t, err)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{}", string(b), "every record of the deleted topic has expired")
}
