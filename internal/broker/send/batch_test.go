package send

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func batchBody(props ...string) []byte {
	var out []byte
	for i, p := range props {
		out = message.AppendBatchEntry(out, int32(i), []byte{byte('a' + i)}, p)
	}
	return out
}

func TestSendBatch(t *testing.T) {
	e := newEnv()
	withKey := string(message.AppendProperty(nil, message.PropertyUniqClientMessageID, "K1"))
	r := request("T")
	r.Body = batchBody(withKey, "")
	res, err := e.svc.SendBatch(*r)
	require.NoError(t, err)
	require.Equal(t, outcome.OK, res.Status)
	require.Len(t, e.store.batches, 1)
	b := e.store.batches[0]
	require.Equal(t, "T", b.Topic)
	require.Equal(t, int32(1), b.QueueID)
	require.Equal(t, stamped, b.Properties, "every entry gets the broker's properties")
	var keys []string
	it := message.NewBatchIterator(b.Body)
	for it.Next() {
		k, ok := message.LookupProperty(it.Entry().Properties, message.PropertyUniqClientMessageID)
		require.True(t, ok)
		keys = append(keys, string(k))
	}
	require.NoError(t, it.Err())
	require.Len(t, keys, 2)
	require.Equal(t, "K1", keys[0], "a key the producer set stays")
	require.Len(t, keys[1], 32, "a missing key is added")
	require.Equal(t, 2, e.metrics.in[0].n, "every message of the batch counts")

	r.Body = batchBody(withKey, withKey)
	_, err = e.svc.SendBatch(*r)
	require.NoError(t, err)
	require.Equal(t, r.Body, e.store.batches[1].Body, "a batch with every key is stored as it came")
}

func TestSendBatchRefusals(t *testing.T) {
	e := newEnv()
	r := request("%RETRY%G")
	r.QueueID = 0
	r.Body = batchBody("")
	_, err := e.svc.SendBatch(*r)
	requireKind(t, err, outcome.MessageIllegal, "batch request does not support retry group %RETRY%G")

	r = request("T")
	r.Body = []byte{0, 0, 0, 9}
	_, err = e.svc.SendBatch(*r)
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.MessageIllegal, k)
	require.Contains(t, remark, "bad batch body: ")

	r.Body = nil
	_, err = e.svc.SendBatch(*r)
	requireKind(t, err, outcome.MessageIllegal, "bad batch body: "+message.ErrBadBatch.Error())

	e = newEnv(func(o *Options) { o.MaxMessageSize = 8 })
	r.Body = batchBody("", "", "")
	_, err = e.svc.SendBatch(*r)
	k, remark = outcome.Of(err)
	require.Equal(t, outcome.MessageIllegal, k)
	require.Contains(t, remark, "exceeds maxMessageSize 8")

	r = request("T")
	r.Topic = "a b"
	_, err = e.svc.SendBatch(*r)
	k, _ = outcome.Of(err)
	require.Equal(t, outcome.MessageIllegal, k, "a batch is checked as a send is")
	require.Empty(t, e.store.batches)
}
