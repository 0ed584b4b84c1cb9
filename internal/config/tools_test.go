package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadTools: Apache's tools.yml (license header, blank lines) gives its account; a missing
// file gives none; a blank key signs nothing; a broken file is an error naming it.
func TestLoadTools(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yml")
	require.NoError(t, os.WriteFile(path, []byte("# Licensed to the Apache Software Foundation\n\n\naccessKey: rocketmq2\nsecretKey: 12345678\n    \n"), 0o600))
	tools, err := LoadTools(path)
	require.NoError(t, err)
	require.Equal(t, Tools{AccessKey: "rocketmq2", SecretKey: "12345678"}, tools)
	require.True(t, tools.Signs())

	tools, err = LoadTools(filepath.Join(dir, "none.yml"))
	require.NoError(t, err)
	require.False(t, tools.Signs())

	require.NoError(t, os.WriteFile(path, []byte("accessKey: rocketmq2\nsecretKey: \"\"\n"), 0o600))
	tools, err = LoadTools(path)
	require.NoError(t, err)
	require.False(t, tools.Signs())

	require.NoError(t, os.WriteFile(path, []byte("accessKey: [unclosed\n"), 0o600))
	_, err = LoadTools(path)
	require.ErrorContains(t, err, path)

	require.Equal(t, filepath.Join("/opt/rmq", "conf", "tools.yml"), ToolsPath(func(string) string { return "/opt/rmq" }))
	require.Empty(t, ToolsPath(func(string) string { return "" }))
}
