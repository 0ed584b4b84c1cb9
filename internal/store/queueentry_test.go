package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestQueueEntry(t *testing.T) {
	s := storetest.Open(t, storetest.Options(t.TempDir()))
	var puts []store.PutResult
	for i := range 3 {
		puts = append(puts, mustPut(t, s, storetest.Msg("TopicQ", 1, body(i, 100), map[string]string{"TAGS": "tagQ"})))
	}
	waitDispatched(t, s)
	for i, p := range puts {
		e, ok := s.QueueEntry("TopicQ", 1, int64(i))
		require.True(t, ok)
		require.Equal(t, store.QueueEntry{Offset: p.WroteOffset, Size: p.WroteBytes, TagsCode: int64(message.JavaHash("tagQ"))}, e)
	}
	_, ok := s.QueueEntry("TopicQ", 1, 3)
	require.False(t, ok, "past the end")
	_, ok = s.QueueEntry("TopicQ", 0, 0)
	require.False(t, ok, "an empty queue")
	_, ok = s.QueueEntry("Nope", 0, 0)
	require.False(t, ok)
	_, ok = s.QueueEntry("TopicQ", 1, -1)
	require.False(t, ok)
}
