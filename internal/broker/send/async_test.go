package send

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/store"
)

// fakeAsyncStore leaves every put pending (unless noWait) and lets the test complete it, before
// or after PutMessageAsync returns.
type fakeAsyncStore struct {
	fakeStore
	noWait  bool
	early   bool // FlushDone(PutOK) from inside PutMessageAsync
	pending []store.Completion
}

func (f *fakeAsyncStore) PutMessageAsync(m *store.Message, done store.Completion) (store.PutResult, bool) {
	r := f.PutMessage(m)
	if f.noWait {
		return r, false
	}
	if f.early {
		done.FlushDone(store.PutOK)
	} else {
		f.pending = append(f.pending, done)
	}
	return r, true
}

func (f *fakeAsyncStore) SettlePut(r *store.PutResult, st store.PutStatus) {
	r.Status = st
	if st != store.PutOK {
		r.Remark = "settled " + st.String()
	}
}

// replies records what a Reply is told.
type replies struct {
	got  []Result
	errs []error
}

func (r *replies) Sent(res Result, err error) {
	r.got, r.errs = append(r.got, res), append(r.errs, err)
}

func asyncEnv() (*env, *fakeAsyncStore) {
	e := newEnv()
	as := &fakeAsyncStore{}
	e.svc = New(*e.svc.options(), Deps{Store: as, Topics: e.topics, Groups: e.groups, Transactions: e.tx, Metrics: e.metrics})
	e.svc.pick = func(n int32) int32 { return n - 1 }
	return e, as
}

// A pending send is answered once, through its Reply, when the store tells the flush outcome:
// before or after PutMessageAsync returned.
func TestSendAsyncAnswersOnFlush(t *testing.T) {
	e, as := asyncEnv()
	var rep replies
	_, pending, err := e.svc.SendAsync(*request("T"), &rep)
	require.NoError(t, err)
	require.True(t, pending)
	require.Empty(t, rep.got, "nothing before the flush")
	require.Len(t, as.puts, 1)
	as.pending[0].FlushDone(store.PutOK)
	require.Len(t, rep.got, 1)
	require.NoError(t, rep.errs[0])
	require.Equal(t, outcome.OK, rep.got[0].Status)
	require.Equal(t, int64(7), rep.got[0].Put.QueueOffset)
	require.Equal(t, []counted{{"T", metrics.Normal, 1, 50}}, e.metrics.in)

	as.early = true
	rep = replies{}
	_, pending, err = e.svc.SendAsync(*request("T"), &rep)
	require.NoError(t, err)
	require.True(t, pending)
	require.Len(t, rep.got, 1, "a flush that came before the put returned answers once it has")
	require.Equal(t, outcome.OK, rep.got[0].Status)
}

// A flush timeout answers a stored send with FLUSH_DISK_TIMEOUT; a failed sync is an error; a put
// that needs no wait is answered at once, without the Reply.
func TestSendAsyncOutcomes(t *testing.T) {
	e, as := asyncEnv()
	var rep replies
	_, _, err := e.svc.SendAsync(*request("T"), &rep)
	require.NoError(t, err)
	as.pending[0].FlushDone(store.FlushDiskTimeout)
	require.NoError(t, rep.errs[0], "stored but not flushed is no error")
	require.Equal(t, outcome.FlushDiskTimeout, rep.got[0].Status)

	_, _, err = e.svc.SendAsync(*request("T"), &rep)
	require.NoError(t, err)
	as.pending[1].FlushDone(store.ServiceNotAvailable)
	requireKind(t, rep.errs[1], outcome.ServiceNotAvailable, "settled SERVICE_NOT_AVAILABLE")

	as.noWait = true
	res, pending, err := e.svc.SendAsync(*request("T"), &rep)
	require.NoError(t, err)
	require.False(t, pending)
	require.Equal(t, outcome.OK, res.Status)
	require.Len(t, rep.got, 2)

	_, pending, err = e.svc.SendAsync(*request(""), &rep)
	require.Error(t, err, "a refused send is refused at once")
	require.False(t, pending)
}

// Without PutMessageAsync the service blocks as Send does.
func TestSendAsyncWithoutAsyncStore(t *testing.T) {
	e := newEnv()
	res, pending, err := e.svc.SendAsync(*request("T"), &replies{})
	require.NoError(t, err)
	require.False(t, pending)
	require.Equal(t, outcome.OK, res.Status)
	require.Len(t, e.store.puts, 1)
}
