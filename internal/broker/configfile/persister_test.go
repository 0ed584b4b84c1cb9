package configfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

func decodeJSON(data []byte) error {
	var v map[string]any
	return json.Unmarshal(data, &v)
}

func TestPersisterLoadFallsBackToBak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topics.json")
	p := NewPersister(path)
	found, err := p.Load(decodeJSON, zap.NewNop())
	require.NoError(t, err)
	require.False(t, found, "neither the file nor its backup exists")

	require.NoError(t, p.Write([]byte(`{"v":1}`), 1))
	require.NoError(t, p.Write([]byte(`{"v":2}`), 2))
	require.NoError(t, os.WriteFile(path, []byte(`{"v":`), 0o644))
	var got map[string]any
	found, err = p.Load(func(b []byte) error { return json.Unmarshal(b, &got) }, zap.NewNop())
	require.NoError(t, err)
	require.True(t, found)
	require.EqualValues(t, 1, got["v"], "a torn file loads its backup")

	require.NoError(t, os.WriteFile(path+".bak", []byte("garbage"), 0o644))
	_, err = p.Load(decodeJSON, nil)
	require.Error(t, err, "neither decodes")
}
