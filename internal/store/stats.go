package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// stats are the counters behind RuntimeInfo (Java StoreStatsService).
type stats struct {
	putMsgs, putBytes, putTimes, putFailed atomic.Int64
	putMaxMs                               atomic.Int64
	putDist                                [len(putDistLabels)]atomic.Int64
	getFound, getMiss, getTransferred      atomic.Int64
	getMaxMs                               atomic.Int64

	mu      sync.Mutex
	samples []sample // one per second, newest last, at most sampleKeep
}

// sample is a snapshot of the cumulative counters, for TPS over a window.
type sample struct {
	at                                       time.Time
	puts, found, miss, transferred, getTotal int64
}

const sampleKeep = 601

var putDistLabels = [...]string{
	"[<=0ms]", "[0~10ms]", "[10~50ms]", "[50~100ms]", "[100~200ms]", "[200~500ms]",
	"[500ms~1s]", "[1~2s]", "[2~3s]", "[3~4s]", "[4~5s]", "[5~10s]", "[10s~]",
}

var putDistBounds = [...]int64{0, 10, 50, 100, 200, 500, 1000, 2000, 3000, 4000, 5000, 10000}

func newStats() *stats { return &stats{} }

func (st *stats) put(status PutStatus, bytes, msgs int64, d time.Duration) {
	if !status.Stored() {
		st.putFailed.Add(1)
		return
	}
	st.putTimes.Add(1)
	st.putMsgs.Add(msgs)
	st.putBytes.Add(bytes)
	ms := d.Milliseconds()
	storeMax(&st.putMaxMs, ms)
	st.putDist[distBucket(ms)].Add(1)
}

// distBucket is Java's putMessageDistributeTime bucket of a latency in ms.
func distBucket(ms int64) int {
	if ms <= 0 {
		return 0
	}
	i := 1
	for i < len(putDistBounds) && ms >= putDistBounds[i] {
		i++
	}
	return i
}

func (st *stats) get(found bool, msgs int, d time.Duration) {
	if found {
		st.getFound.Add(1)
		st.getTransferred.Add(int64(msgs))
	} else {
		st.getMiss.Add(1)
	}
	storeMax(&st.getMaxMs, d.Milliseconds())
}

func storeMax(p *atomic.Int64, v int64) {
	for {
		old := p.Load()
		if v <= old || p.CompareAndSwap(old, v) {
			return
		}
	}
}

// run is the sampling loop: one snapshot a second until stop closes.
func (st *stats) run(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	st.sample(time.Now())
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			st.sample(now)
		}
	}
}

func (st *stats) sample(now time.Time) {
	s := sample{
		at: now, puts: st.putMsgs.Load(), found: st.getFound.Load(), miss: st.getMiss.Load(),
		transferred: st.getTransferred.Load(),
	}
	s.getTotal = s.found + s.miss
	st.mu.Lock()
	defer st.mu.Unlock()
	st.samples = append(st.samples, s)
	if len(st.samples) > sampleKeep {
		st.samples = append(st.samples[:0], st.samples[len(st.samples)-sampleKeep:]...)
	}
}

// tps formats "tps10 tps60 tps600" for one counter, as Java does.
func (st *stats) tps(field func(sample) int64) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var parts []string
	for _, secs := range []int{10, 60, 600} {
		v := 0.0
		if n := len(st.samples); n > 1 {
			last, first := st.samples[n-1], st.samples[max(n-1-secs, 0)]
			if d := last.at.Sub(first.at).Seconds(); d > 0 {
				v = float64(field(last)-field(first)) / d
			}
		}
		parts = append(parts, strconv.FormatFloat(v, 'f', 2, 64))
	}
	return strings.Join(parts, " ")
}

// RuntimeInfo returns the store's part of GET_BROKER_RUNTIME_INFO
// (protocol.md §11.3), with Java's key names and formats.
func (s *Store) RuntimeInfo() map[string]string {
	st := s.stats
	m := map[string]string{}
	i64 := func(k string, v int64) { m[k] = strconv.FormatInt(v, 10) }
	i64("commitLogMinOffset", s.cl.MinOffset())
	i64("commitLogMaxOffset", s.cl.MaxOffset())
	i64("commitLogFlushedOffset", s.cl.FlushedOffset())
	i64("dispatchBehindBytes", s.disp.behind())
	i64("dispatchMaxBuffer", 0)
	i64("pageCacheLockTimeMills", s.cl.LockHeldFor().Milliseconds())
	i64("earliestMessageTimeStamp", s.EarliestMessageTimeInStore())
	i64("startAcceptSendRequestTimeStamp", 0)
	i64("remainTransientStoreBufferNumbs", math.MaxInt32)
	m["remainHowManyDataToFlush"] = humanBytes(s.cl.MaxOffset() - s.cl.FlushedOffset())
	i64("putMessageTimesTotal", st.putMsgs.Load())
	i64("putMessageSizeTotal", st.putBytes.Load())
	i64("putMessageFailedTimes", st.putFailed.Load())
	avg := 0.0
	if n := st.putMsgs.Load(); n > 0 {
		avg = float64(st.putBytes.Load()) / float64(n)
	}
	m["putMessageAverageSize"] = strconv.FormatFloat(avg, 'f', -1, 64)
	i64("putMessageEntireTimeMax", st.putMaxMs.Load())
	i64("getMessageEntireTimeMax", st.getMaxMs.Load())
	var dist []string
	for i, l := range putDistLabels {
		dist = append(dist, l+":"+strconv.FormatInt(st.putDist[i].Load(), 10))
	}
	m["putMessageDistributeTime"] = strings.Join(dist, " ")
	m["putTps"] = st.tps(func(s sample) int64 { return s.puts })
	m["getFoundTps"] = st.tps(func(s sample) int64 { return s.found })
	m["getMissTps"] = st.tps(func(s sample) int64 { return s.miss })
	m["getTotalTps"] = st.tps(func(s sample) int64 { return s.getTotal })
	m["getTransferedTps"] = st.tps(func(s sample) int64 { return s.transferred })
	m["getTransferredTps"] = m["getTransferedTps"]
	s.diskInfo(m)
	return m
}

// diskInfo adds the disk usage keys.
func (s *Store) diskInfo(m map[string]string) {
	m["commitLogDiskRatio"] = strconv.FormatFloat(s.diskRatio("commitlog"), 'f', -1, 64)
	m["consumeQueueDiskRatio"] = strconv.FormatFloat(s.diskRatio("consumequeue"), 'f', -1, 64)
	if total, free, err := s.opts.FS.DiskUsage(s.opts.CommitLogDir); err == nil {
		m["commitLogDirCapacity"] = fmt.Sprintf("Total : %s, Free : %s.", humanBytes(int64(total)), humanBytes(int64(free)))
	}
}

// humanBytes is Java's MixAll.humanReadableByteCount(bytes, false).
func humanBytes(b int64) string {
	if b < 1024 {
		return strconv.FormatInt(b, 10) + " B"
	}
	exp := int(math.Log(float64(b)) / math.Log(1024))
	return fmt.Sprintf("%.1f %ciB", float64(b)/math.Pow(1024, float64(exp)), "KMGTPE"[exp-1])
}
