package mqbench

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

func TestParseNamesrv(t *testing.T) {
	got, err := ParseNamesrv(" 127.0.0.1:9876; 10.0.0.2:9876;")
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1:9876", "10.0.0.2:9876"}, got)

	got, err = ParseNamesrv("a:1,b:2 c:3")
	require.NoError(t, err)
	assert.Equal(t, []string{"a:1", "b:2", "c:3"}, got, "separators as mqadmin accepts them")

	got, err = ParseNamesrv("[::1]:9876")
	require.NoError(t, err)
	assert.Equal(t, []string{"[::1]:9876"}, got)

	for _, bad := range []string{"", ";", "localhost", ":9876", "host:"} {
		_, err := ParseNamesrv(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestParseSerialize(t *testing.T) {
	st, err := ParseSerialize("ROCKETMQ")
	require.NoError(t, err)
	assert.Equal(t, protocol.RocketMQ, st)
	st, err = ParseSerialize("json")
	require.NoError(t, err)
	assert.Equal(t, protocol.JSON, st)
	_, err = ParseSerialize("xml")
	assert.ErrorContains(t, err, "xml")
}

func TestValidateDefaults(t *testing.T) {
	o := Options{Mode: ModeProduce, Messages: 10}
	require.NoError(t, o.Validate())
	assert.Equal(t, DefaultTopic, o.Topic)
	assert.Equal(t, 1024, o.Size)
	assert.Equal(t, 4, o.Concurrency)
	assert.Equal(t, 256, o.Window)
	assert.Equal(t, 1, o.Batch)
	assert.Equal(t, 4, o.Connections, "one connection per sender")
	assert.Equal(t, []string{DefaultNamesrv}, o.Namesrv)
	assert.Equal(t, 32, o.PullBatch)
	assert.Equal(t, 10*time.Minute, o.Timeout)
}

func TestValidateRejects(t *testing.T) {
	cases := map[string]struct {
		o    Options
		want string
	}{
		"mode":             {Options{Mode: "pump", Messages: 1}, "mode"},
		"no count":         {Options{Mode: ModeProduce}, "--messages or --duration"},
		"negative":         {Options{Mode: ModeProduce, Messages: -1}, "negative"},
		"topic chars":      {Options{Mode: ModeProduce, Messages: 1, Topic: "a b"}, "allowed are"},
		"topic length":     {Options{Mode: ModeProduce, Messages: 1, Topic: strings.Repeat("t", 128)}, "longer than 127"},
		"size":             {Options{Mode: ModeProduce, Messages: 1, Size: 16 << 20}, "--size"},
		"window":           {Options{Mode: ModeProduce, Messages: 1, Window: 1 << 20}, "--window"},
		"batch too big":    {Options{Mode: ModeProduce, Messages: 1, Batch: 16, Size: 1 << 20}, "over 15728640 bytes"},
		"connections":      {Options{Mode: ModeProduce, Messages: 1, Concurrency: 2, Connections: 3}, "--connections"},
		"overlap":          {Options{Mode: ModeProduce, Messages: 1, Overlap: true}, "--overlap"},
		"missing broker":   {Options{Mode: ModeProduce, Messages: 1, BrokerPID: 1 << 30}, "broker CPU"},
		"consume no count": {Options{Mode: ModeConsume, Messages: -5}, "negative"},
		"tags separator":   {Options{Mode: ModeProduce, Messages: 1, Tags: "a\x01b"}, "--tags"},
		"keys separator":   {Options{Mode: ModeProduce, Messages: 1, Keys: "k\x02{seq}"}, "--keys"},
		"keys length":      {Options{Mode: ModeProduce, Messages: 1, Keys: strings.Repeat("k", 4097)}, "--keys is longer"},
		"keys in a batch": {Options{Mode: ModeProduce, Messages: 1, Batch: 1024, Size: 11 << 10,
			Keys: strings.Repeat("k", 4096)}, "over 15728640 bytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.o.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// consume without a count reads up to the queue ends.
	o := Options{Mode: ModeConsume}
	assert.NoError(t, o.Validate())
}

// parseArgs runs the command line through the real command with a run
// function that only captures what it would run.
func parseArgs(t *testing.T, args ...string) (Options, *cliFlags, error) {
	t.Helper()
	var got Options
	var gotFlags *cliFlags
	cmd := newCommand(func(_ *cobra.Command, o Options, f *cliFlags) error {
		got, gotFlags = o, f
		return nil
	})
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return got, gotFlags, err
}

func TestCommandFlagsBecomeOptions(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "10.1.1.1:9876")
	o, f, err := parseArgs(t, "produce",
		"--topic", "T1", "--messages", "200000", "--size", "100", "--concurrency", "8",
		"--window", "64", "--batch", "16", "--tags", "TagA", "--keys", "k-{seq} fixed", "--serialize", "rocketmq",
		"--broker-pid", strconv.Itoa(os.Getpid()), "--json", "--wait=false")
	require.NoError(t, err)
	assert.Equal(t, ModeProduce, o.Mode)
	assert.Equal(t, []string{"10.1.1.1:9876"}, o.Namesrv, "NAMESRV_ADDR is the default")
	assert.Equal(t, "T1", o.Topic)
	assert.Equal(t, int64(200000), o.Messages)
	assert.Equal(t, 100, o.Size)
	assert.Equal(t, 8, o.Concurrency)
	assert.Equal(t, 8, o.Connections, "one connection per sender by default")
	assert.Equal(t, 64, o.Window)
	assert.Equal(t, 16, o.Batch)
	assert.Equal(t, "TagA", o.Tags)
	assert.Equal(t, "k-{seq} fixed", o.Keys)
	assert.Equal(t, time.Second, o.ProgressEvery, "progress every second by default")
	assert.Equal(t, protocol.RocketMQ, o.Serialize)
	assert.Equal(t, os.Getpid(), o.BrokerPID)
	assert.False(t, o.Wait)
	assert.True(t, f.jsonOut)

	o, _, err = parseArgs(t, "both", "-n", "a:1;b:2", "--duration", "3s", "--group", "G", "--overlap",
		"--pull-window", "2", "--pull-batch", "16", "--from-committed", "--connections", "1")
	require.NoError(t, err)
	assert.Equal(t, ModeBoth, o.Mode)
	assert.Equal(t, []string{"a:1", "b:2"}, o.Namesrv)
	assert.Equal(t, 3*time.Second, o.Duration)
	assert.Equal(t, "G", o.Group)
	assert.True(t, o.Overlap)
	assert.True(t, o.FromCommitted)
	assert.Equal(t, 2, o.PullWindow)
	assert.Equal(t, 16, o.PullBatch)
	assert.Equal(t, 1, o.Connections)
	assert.True(t, o.Wait, "WAIT=true by default")
	assert.True(t, o.CheckCRC)

	o, _, err = parseArgs(t, "consume", "--progress", "0")
	require.NoError(t, err)
	assert.Zero(t, o.ProgressEvery)
	assert.Equal(t, int64(0), o.Messages, "consume alone reads up to the queue ends")
}

// TestNamesrvFlagNames: -n and --namesrvAddr as in mqadmin; the old --namesrv still works but is
// not in the help.
func TestNamesrvFlagNames(t *testing.T) {
	for _, args := range [][]string{
		{"produce", "--messages", "1", "-n", "a:1;b:2"},
		{"produce", "--messages", "1", "--namesrvAddr", "a:1;b:2"},
		{"produce", "--messages", "1", "--namesrv", "a:1;b:2"},
	} {
		o, _, err := parseArgs(t, args...)
		require.NoError(t, err, "%v", args)
		assert.Equal(t, []string{"a:1", "b:2"}, o.Namesrv, "%v", args)
	}
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"produce", "--help"})
	require.NoError(t, cmd.Execute())
	assert.Contains(t, out.String(), "-n, --namesrvAddr string")
	assert.NotContains(t, out.String(), "--namesrv ")
}

func TestCommandRejectsBadFlagsBeforeConnecting(t *testing.T) {
	for _, args := range [][]string{
		{"produce"}, // no --messages or --duration
		{"produce", "--messages", "1", "-n", "nohost"},
		{"both", "--messages", "1", "--batch", "0"},
		{"produce", "--messages", "1", "--serialize", "xml"},
		{"consume", "extra-arg"},
	} {
		cmd := NewCommand()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		assert.Error(t, cmd.Execute(), "%v", args)
	}
}

func TestCommandReportsUnreachableNameServer(t *testing.T) {
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	// Port 1 on loopback refuses connections.
	cmd.SetArgs([]string{"produce", "--messages", "1", "-n", "127.0.0.1:1", "--request-timeout", "2s"})
	err := cmd.Execute()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "127.0.0.1:1")
}
