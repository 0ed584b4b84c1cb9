package outcome

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		kind   Kind
		remark string
	}{
		{"nil is OK", nil, OK, ""},
		{"an Error", Errorf(TopicNotExist, "topic[%s] not exist", "T"), TopicNotExist, "topic[T] not exist"},
		{"a wrapped Error", fmt.Errorf("put: %w", Errorf(NoPermission, "no")), NoPermission, "no"},
		{"any other error", errors.New("disk on fire"), SystemError, "disk on fire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, remark := Of(tc.err)
			require.Equal(t, tc.kind, k)
			require.Equal(t, tc.remark, remark)
		})
	}
}

func TestIs(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", Errorf(QueryNotFound, "x"))
	require.True(t, Is(err, QueryNotFound))
	require.False(t, Is(err, SystemError))
	require.False(t, Is(errors.New("plain"), SystemError), "a plain error is no *Error")
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		name := k.String()
		require.NotEmpty(t, name)
		require.False(t, seen[name], "duplicate name %s", name)
		seen[name] = true
	}
	require.Equal(t, "Kind(200)", Kind(200).String())
	require.Equal(t, "NoPermission: the topic[T] sending message is forbidden",
		Errorf(NoPermission, "the topic[%s] sending message is forbidden", "T").Error())
}
