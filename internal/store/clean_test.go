package store_test

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

// clock is a settable store clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// at returns the first time at hour:30 at least d after now.
func at(hour int, d time.Duration) time.Time {
	t := time.Now().Add(d)
	t = time.Date(t.Year(), t.Month(), t.Day(), hour, 30, 0, 0, time.Local)
	if t.Before(time.Now().Add(d)) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// cleanStore opens a store whose clean service only runs when the test says
// (CleanOnce), with a settable clock and disk usage, and ~6 CommitLog
// segments of messages in queues "Big"/0 (1000-byte bodies) and "Keyed"/0
// (small, with keys, enough for several IndexFiles).
func cleanStore(t *testing.T, mod func(*store.Options)) (*store.Store, *clock, *atomic.Int64) {
	t.Helper()
	o := storetest.Options(t.TempDir())
	clk, used := newClock(), new(atomic.Int64)
	used.Store(10)
	o.Now, o.FS = clk.Now, storetest.WithDiskUsage(vfs.Default, storetest.DiskAt(used))
	o.CleanResourceInterval = time.Hour
	o.MaxIndexNum = 100
	if mod != nil {
		mod(&o)
	}
	s := storetest.Open(t, o)
	for i := range 330 {
		mustPut(t, s, storetest.Msg("Big", 0, body(i, 1000), nil))
		mustPut(t, s, storetest.Msg("Keyed", 0, body(i, 10), map[string]string{"KEYS": fmt.Sprintf("k%d", i)}))
	}
	waitDispatched(t, s)
	return s, clk, used
}

func TestCleanDeletesExpiredSegmentsAtDeleteWhen(t *testing.T) {
	var cleaned []store.CleanResult
	var mu sync.Mutex
	s, clk, _ := cleanStore(t, func(o *store.Options) {
		o.DeleteWhen = []int{4}
		o.OnCleaned = func(r store.CleanResult) { mu.Lock(); cleaned = append(cleaned, r); mu.Unlock() }
	})
	segments := int(s.CommitLogMaxOffset() / storetest.SegmentSize)
	require.GreaterOrEqual(t, segments, 5)

	clk.Set(at(4, 0))
	require.False(t, s.CleanOnce().Deleted(), "deleteWhen, but nothing is 72 hours old")
	clk.Set(at(13, 73*time.Hour))
	require.False(t, s.CleanOnce().Deleted(), "expired, but not deleteWhen and the disk has room")
	require.Zero(t, s.CommitLogMinOffset())

	clk.Set(at(4, 73*time.Hour))
	r := s.CleanOnce()
	require.Equal(t, segments, r.CommitLogSegments, "every segment but the one being written")
	require.False(t, r.Forced)
	require.EqualValues(t, segments*storetest.SegmentSize, s.CommitLogMinOffset())
	require.Equal(t, s.CommitLogMinOffset(), r.CommitLogMinOffset)
	require.Positive(t, r.IndexFiles, "IndexFiles wholly below the new min offset go too")
	mu.Lock()
	require.Equal(t, []store.CleanResult{r}, cleaned, "OnCleaned is told")
	mu.Unlock()

	// Queue min offsets advanced; a consumer below them is sent to the new
	// minimum, never to 0.
	for _, topic := range []string{"Big", "Keyed"} {
		lo, hi, ok := s.QueueBounds(topic, 0)
		require.True(t, ok)
		require.Positive(t, lo, topic)
		require.EqualValues(t, 330, hi)
		g := s.GetMessage("g", topic, 0, 0, 32, nil)
		require.Equal(t, store.OffsetTooSmall, g.Status)
		require.Equal(t, lo, g.NextBeginOffset)
		g.Release()
		got := pullAll(t, s, topic, 0)
		require.Len(t, got, int(330-lo))
		require.GreaterOrEqual(t, got[0].PhysicalOffset, s.CommitLogMinOffset())
	}
	q := s.QueryMessage("Keyed", "k329", 4, 0, time.Now().Add(time.Hour).UnixMilli())
	require.Len(t, q.Records, 1, "the newest IndexFile stays")
	q.Release()
	require.NoError(t, s.CheckConsistency())
	require.False(t, s.CleanOnce().Deleted(), "nothing left to delete")
	mustPut(t, s, storetest.Msg("Big", 0, nil, nil))
}

func TestCleanAtMostABatchPerPass(t *testing.T) {
	s, clk, _ := cleanStore(t, func(o *store.Options) { o.CommitLogSegmentSize = 16 << 10 })
	segments := int(s.CommitLogMaxOffset() / (16 << 10))
	require.Greater(t, segments, 20)
	clk.Set(at(4, 73*time.Hour))
	require.Equal(t, 10, s.CleanOnce().CommitLogSegments, "Java's DELETE_FILES_BATCH_MAX")
	require.Equal(t, 10, s.CleanOnce().CommitLogSegments)
	require.Equal(t, segments-20, s.CleanOnce().CommitLogSegments)
}

func TestCleanOnDiskRatios(t *testing.T) {
	for _, tc := range []struct {
		name     string
		used     int64
		expired  bool
		forcibly bool // CleanFileForciblyEnable
		deleted  bool
		forced   bool
	}{
		{"under diskMaxUsedSpaceRatio", 75, true, true, false, false},
		{"over diskMaxUsedSpaceRatio, young files", 76, false, true, false, false},
		{"over diskMaxUsedSpaceRatio, expired files", 76, true, true, true, false},
		{"over diskSpaceCleanForciblyRatio", 86, false, true, true, true},
		{"over diskSpaceCleanForciblyRatio, forcibly disabled", 86, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clk, used := cleanStore(t, func(o *store.Options) { o.CleanFileForciblyEnable = tc.forcibly })
			clk.Set(at(13, 0)) // not deleteWhen
			if tc.expired {
				clk.Set(at(13, 73*time.Hour))
			}
			used.Store(tc.used)
			r := s.CleanOnce()
			require.Equal(t, tc.deleted, r.CommitLogSegments > 0, "%+v", r)
			require.Equal(t, tc.forced, r.Forced)
			if tc.deleted {
				require.Equal(t, s.CommitLogMinOffset(), s.CommitLogMaxOffset()-s.CommitLogMaxOffset()%storetest.SegmentSize,
					"all but the segment being written")
				require.NoError(t, s.CheckConsistency())
			}
			require.True(t, s.IsWritable(), "under diskSpaceWarningLevelRatio")
		})
	}
}

func TestDiskFullRefusesPutsUntilSpaceReturns(t *testing.T) {
	o := storetest.Options(t.TempDir())
	used := new(atomic.Int64)
	used.Store(91)
	o.FS = storetest.WithDiskUsage(vfs.Default, storetest.DiskAt(used))
	o.CleanResourceInterval = 5 * time.Millisecond
	o.CleanFileForciblyEnable = false
	s := storetest.Open(t, o)

	// Measured at Start: the very first put is refused.
	r := s.PutMessage(storetest.Msg("T", 0, []byte("refused"), nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Contains(t, r.Remark, "disk space is 91.0% used, over diskSpaceWarningLevelRatio 90%")
	require.Contains(t, r.Remark, "refuses writes until space is freed")
	require.ErrorIs(t, r.Err, store.ErrDiskFull)
	require.False(t, s.IsWritable())
	b := s.PutMessages(&store.Batch{Topic: "T", Body: []byte("irrelevant")})
	require.Equal(t, store.ServiceNotAvailable, b.Status)

	// The clean service clears the mark by itself once usage falls back.
	used.Store(89)
	require.Eventually(t, s.IsWritable, 5*time.Second, time.Millisecond)
	ok := mustPut(t, s, storetest.Msg("T", 0, []byte("accepted"), nil))
	require.Zero(t, ok.QueueOffset)

	used.Store(95)
	require.Eventually(t, func() bool { return !s.IsWritable() }, 5*time.Second, time.Millisecond)
	r = s.PutMessage(storetest.Msg("T", 0, nil, nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Contains(t, r.Remark, "95.0% used")
	used.Store(50)
	require.Eventually(t, s.IsWritable, 5*time.Second, time.Millisecond)
	require.EqualValues(t, 1, mustPut(t, s, storetest.Msg("T", 0, nil, nil)).QueueOffset)
	waitDispatched(t, s)
	require.Len(t, pullAll(t, s, "T", 0), 2, "refused puts stored nothing")
}

func TestCleanReportsSegmentsStillMapped(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	o := storetest.Options(t.TempDir())
	clk, used := newClock(), new(atomic.Int64)
	used.Store(86) // forcibly
	o.Now, o.FS, o.CleanResourceInterval = clk.Now, storetest.WithDiskUsage(vfs.Default, storetest.DiskAt(used)), time.Hour
	s, err := store.Open(o, zap.New(core), nil)
	require.NoError(t, err)
	s.Start()
	t.Cleanup(func() { _ = s.Close() })
	for i := range 100 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 1000), nil))
	}
	waitDispatched(t, s)
	held := s.GetMessage("g", "T", 0, 0, 4, nil) // maps the first segment
	require.Equal(t, store.Found, held.Status)
	require.Positive(t, s.CleanOnce().CommitLogSegments)
	require.Equal(t, []byte("msg-0"), held.Records[0][88:93], "a deleted segment stays readable for its holder")

	clk.Set(clk.Now().Add(2 * time.Minute)) // destroyMapedFileIntervalForcibly
	s.CleanOnce()
	require.Equal(t, 1, logs.FilterMessageSnippet("still mapped by readers").Len())
	s.CleanOnce()
	require.Equal(t, 1, logs.FilterMessageSnippet("still mapped by readers").Len(), "reported once")
	held.Release()
}

func TestCleanOptionsValidated(t *testing.T) {
	o := storetest.Options(t.TempDir())
	o.DeleteWhen = []int{4, 24}
	_, err := store.Open(o, zap.NewNop(), nil)
	require.ErrorContains(t, err, "deleteWhen hour 24")
	d := store.DefaultOptions("x")
	require.Equal(t, []int{4}, d.DeleteWhen)
	require.Equal(t, 72*time.Hour, d.FileReservedTime)
	require.Equal(t, []int{75, 85, 90}, []int{d.DiskMaxUsedSpaceRatio, d.DiskSpaceCleanForciblyRatio, d.DiskSpaceWarningLevelRatio})
	require.Equal(t, 10*time.Second, d.CleanResourceInterval)
	require.Equal(t, 120*time.Second, d.DestroyMapedFileIntervalForcibly)
	require.True(t, d.CleanFileForciblyEnable)
}

// The real disk (statfs) is measured on the production FS.
func TestDiskUsageDefault(t *testing.T) {
	o := storetest.Options(t.TempDir())
	o.FS = nil
	o.DiskSpaceWarningLevelRatio = 100 // whatever this machine's disk holds
	s := storetest.Open(t, o)
	mustPut(t, s, storetest.Msg("T", 0, nil, nil))
	ratio, err := strconv.ParseFloat(s.RuntimeInfo()["commitLogDiskRatio"], 64)
	require.NoError(t, err)
	require.True(t, ratio > 0 && ratio < 1, "%v", ratio)
}

// CleanExpired deletes on request, with the same follow-up as the service.
func TestCleanExpiredOnRequest(t *testing.T) {
	var told atomic.Int64
	s, _, _ := cleanStore(t, func(o *store.Options) {
		o.OnCleaned = func(r store.CleanResult) { told.Add(int64(r.CommitLogSegments)) }
	})
	n, err := s.CleanExpired(time.Hour, false, 0)
	require.NoError(t, err)
	require.Zero(t, n, "nothing is an hour old")
	n, err = s.CleanExpired(time.Hour, true, 2)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.EqualValues(t, 2, told.Load())
	require.EqualValues(t, 2*storetest.SegmentSize, s.CommitLogMinOffset())
	lo, _, _ := s.QueueBounds("Big", 0)
	require.Positive(t, lo, "queue min offsets advance")
	require.NoError(t, s.CheckConsistency())
}
