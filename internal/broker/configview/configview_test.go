package configview

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestParseProperties moved here from internal/broker/processor with the parser.
func TestParseProperties(t *testing.T) {
	got := ParseProperties("# comment\n! also\n\nbrokerName=broker-a\r\n  listenPort : 10911\nflag\n" +
		"deleteWhen 04\nempty=\nnamesrvAddr=a:1;b:2\n")
	require.Equal(t, map[string]string{
		"brokerName": "broker-a", "listenPort": "10911", "flag": "", "deleteWhen": "04", "empty": "",
		"namesrvAddr": "a:1;b:2",
	}, got)
}

// FuzzParseProperties: any text parses without a panic, and a key=value line written from what
// was parsed reads back the same. Moved here from internal/broker/processor with the parser.
func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{
		"brokerClusterName=DefaultCluster\nbrokerName=broker-a\nbrokerId=0\n",
		"deleteWhen = 04\nfileReservedTime : 48\n# c\n! c\n",
		"a\\\n  b=c\n", "=x\n", ":\n", " \t\f\n", "k=v=w\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		props := ParseProperties(text)
		for k, v := range props {
			if k == "" || strings.ContainsAny(k, "=: \t\f\n\r") || strings.ContainsAny(v, "\n\r") ||
				strings.TrimLeft(v, " \t\f=:") != v || !utf8.ValidString(k+v) {
				continue
			}
			require.Equal(t, map[string]string{k: v}, ParseProperties(k+"="+v+"\n"))
		}
	})
}

var boot = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestText(t *testing.T) {
	s := New(Options{Keys: map[string]string{"brokerName": "broker-a", "brokerId": "0"}, BootTime: boot}, nil)
	require.Equal(t, "brokerId=0\nbrokerName=broker-a\n", s.Text(), "sorted key=value lines")
	require.Equal(t, body.NewDataVersion(boot), s.Version())
	s = New(Options{Text: func() string { return "a=b\n" }, Keys: map[string]string{"x": "y"}}, nil)
	require.Equal(t, "a=b\n", s.Text(), "the effective configuration wins")
}

func TestUpdate(t *testing.T) {
	s := New(Options{Text: func() string { return "brokerName=broker-a\nflushDiskType=ASYNC_FLUSH\n" }}, nil)
	for _, tc := range []struct {
		name string
		text string
		want error
	}{
		{"empty", "", nil},
		{"unknown keys are ignored", "noSuchKey=1\n", nil},
		{"the values it has", "brokerName=broker-a\n", nil},
		{"a black-listed key", "rocketmqHome=/x\n", &outcome.Error{Kind: outcome.NoPermission, Remark: "Can not update config in black list."}},
		{"a change", "flushDiskType=SYNC_FLUSH\nbrokerName=b\n", &outcome.Error{Kind: outcome.SystemError,
			Remark: "updating the broker configuration at run time is not supported (brokerName=b, flushDiskType=SYNC_FLUSH): " +
				"change broker.conf and restart the broker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(tc.text, "10.0.0.1:1")
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.Equal(t, tc.want, err)
		})
	}
}
