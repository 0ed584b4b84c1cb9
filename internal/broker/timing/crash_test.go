package timing

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sendBatch sends n messages k<from>.. due at due.
func sendBatch(r *rig, from, n int, due int64) {
	for i := from; i < from+n; i++ {
		r.sendAt("k"+strconv.Itoa(i), due)
	}
}

// assertOnce requires every key k0..k<n-1> delivered exactly once.
func assertOnce(t *testing.T, r *rig, n int) {
	t.Helper()
	got := keys(r.delivered())
	lost, twice := 0, 0
	for i := range n {
		switch c := got["k"+strconv.Itoa(i)]; {
		case c == 0:
			lost++
		case c > 1:
			twice += c - 1
		}
	}
	assert.Equal(t, 0, lost, "lost")
	assert.Equal(t, 0, twice, "delivered twice")
	assert.Len(t, got, n)
}

// A crash after a slot was delivered and before a checkpoint recorded it: recovery finds every
// delivery in the CommitLog and writes none again.
func TestCrashAfterDeliveryBeforeCheckpoint(t *testing.T) {
	r := newRig(t)
	due := r.clk.millis() + 300
	sendBatch(r, 0, 50, due)
	r.settle() // a checkpoint before the delivery
	r.clk.at(due + 200)
	r.step()
	require.Len(t, r.delivered(), 50)
	require.Less(t, r.svc.Checkpoint().ReadMs, due, "no checkpoint after the delivery")

	r.crash()
	assert.Equal(t, map[string]int64{"T": 50}, r.svc.Pending(), "the checkpoint's count")
	r.step()
	assertOnce(t, r, 50)
	assert.Empty(t, r.svc.Pending())
	assert.Nil(t, r.svc.loop.dedup, "the check ended with the deliveries found")
}

// A crash in the middle of a slot: the delivered part is found, the rest delivered once.
func TestCrashInTheMiddleOfASlot(t *testing.T) {
	r := newRig(t)
	due := r.clk.millis() + 300
	sendBatch(r, 0, 50, due)
	r.settle()
	r.clk.at(due + 200)
	r.cutAfter(17)
	r.step()
	require.Len(t, r.delivered(), 17)

	r.crash()
	r.step()
	assertOnce(t, r, 50)
}

// Crashes again while recovery is still matching, and after it: still once each.
func TestCrashDuringRecovery(t *testing.T) {
	r := newRig(t)
	due := r.clk.millis() + 300
	sendBatch(r, 0, 40, due)
	sendBatch(r, 40, 40, due+500)
	r.settle()
	r.clk.at(due + 200)
	r.cutAfter(10)
	r.step()
	r.crash()
	r.clk.at(due + 900)
	r.cutAfter(45) // 10 found again, then 35 new, cut in the second slot
	r.step()
	r.crash()
	r.settle()
	assertOnce(t, r, 80)
}

// Messages taken in after the last checkpoint are replayed from the log (with their counts) when
// their records reached the file, taken in again when they had not; delivered once either way.
func TestCrashReplaysTheLogAfterTheCheckpoint(t *testing.T) {
	for _, written := range []bool{true, false} {
		t.Run("written="+strconv.FormatBool(written), func(t *testing.T) {
			r := newRig(t)
			due := r.clk.millis() + 400
			sendBatch(r, 0, 10, due)
			r.settle()
			sendBatch(r, 10, 15, due)
			r.step() // taken in, no checkpoint
			require.Equal(t, int64(10), r.svc.Checkpoint().QueueOffset)
			if written {
				require.NoError(t, r.svc.log.Flush())
			}
			r.crash()
			want := map[bool]int64{true: 25, false: 10}[written]
			assert.Equal(t, map[string]int64{"T": want}, r.svc.Pending())
			r.clk.at(due + 200)
			r.step()
			assertOnce(t, r, 25)
		})
	}
}

// Random crash moments over several slots (the seed is logged): nothing lost, nothing twice.
func TestRandomCrashes(t *testing.T) {
	seed := rand.Uint64()
	if v, err := strconv.ParseUint(os.Getenv("TIMER_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (TIMER_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	r := newRig(t)
	start := r.clk.millis() + 200
	n := 0
	for slot := range 6 {
		k := 5 + rng.IntN(30)
		sendBatch(r, n, k, start+int64(slot)*100+int64(rng.IntN(100)))
		n += k
	}
	for r.clk.millis() < start+900 {
		r.clk.at(r.clk.millis() + int64(50+rng.IntN(150)))
		cut := rng.IntN(3) == 0 // the crash comes in the middle of the step's deliveries
		if cut {
			r.cutAfter(int64(rng.IntN(20)))
		}
		r.step()
		if !cut && rng.IntN(2) == 0 {
			r.settle()
		}
		if cut || rng.IntN(2) == 0 {
			r.crash()
		}
	}
	r.settle()
	assertOnce(t, r, n)
	assert.Empty(t, r.svc.Pending())
}

// A power loss keeps only what was synced: the CommitLog up to its last flush, the timer files up
// to their last sync. Every timer message the store kept is delivered exactly once afterwards,
// whatever part of the deliveries before the loss survived it.
func TestPowerLossAfterDeliveries(t *testing.T) {
	for _, flushFirst := range []bool{false, true} {
		t.Run("flushedBeforeTheLoss="+strconv.FormatBool(flushFirst), func(t *testing.T) {
			r, fs := newRigOnFS(t)
			due := r.clk.millis() + 300
			sendBatch(r, 0, 40, due)
			r.settle() // the timer messages are flushed and in a checkpoint
			r.clk.at(due + 200)
			r.step()
			require.Len(t, r.delivered(), 40)
			if flushFirst {
				require.Eventually(t, func() bool { return r.st.CommitLogFlushedOffset() == r.st.CommitLogMaxOffset() },
					5*time.Second, time.Millisecond)
			}
			r.powerLoss(fs)
			t.Logf("%d of the 40 deliveries survived the power loss", len(r.delivered()))
			r.step()
			assertOnce(t, r, 40)
		})
	}
}
