package configview

import (
	"strconv"
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
			Remark: "brokerName, flushDiskType take effect at start-up only: change broker.conf and restart the broker"}},
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

// runtimeService has brokerPermission and slaveReadEnable as runtime keys, recording what was applied.
func runtimeService(applied *[]string) *Service {
	s := New(Options{BootTime: boot, Text: func() string {
		return "brokerName=broker-a\nbrokerPermission=6\nslaveReadEnable=false\nstorePathRootDir=/data\n"
	}, Runtime: map[string]RuntimeKey{
		"brokerPermission": IntKey(0, 15, func(v int) { *applied = append(*applied, "perm "+strconv.Itoa(v)) }),
		"slaveReadEnable":  BoolKey(func(v bool) { *applied = append(*applied, "slaveRead "+strconv.FormatBool(v)) }),
	}}, nil)
	s.now = func() time.Time { return boot.Add(time.Minute) }
	return s
}

// TestUpdateRuntimeKeys: the runtime keys are applied, shown by GET_BROKER_CONFIG's text and move
// the data version on; a request with a start-up key or a bad value applies nothing.
func TestUpdateRuntimeKeys(t *testing.T) {
	var applied []string
	s := runtimeService(&applied)
	require.NoError(t, s.Update("brokerPermission=4\nslaveReadEnable=TRUE\nnoSuchKey=1\n", "10.0.0.1:1"))
	require.Equal(t, []string{"perm 4", "slaveRead true"}, applied)
	require.Equal(t, "brokerName=broker-a\nbrokerPermission=4\nslaveReadEnable=TRUE\nstorePathRootDir=/data\n", s.Text())
	v := s.Version()
	require.Equal(t, body.NewDataVersion(boot).Next(boot.Add(time.Minute)), v, "the version moved on")

	require.NoError(t, s.Update("brokerPermission=4\n", ""), "the value in effect")
	require.Len(t, applied, 2, "nothing to apply")
	require.Equal(t, v, s.Version())

	for _, tc := range []struct{ text, remark string }{
		{"brokerPermission=16\n", `bad value "16" for brokerPermission: want a whole number 0-15`},
		{"brokerPermission=x\n", `bad value "x" for brokerPermission: want a whole number 0-15`},
		{"slaveReadEnable=1\n", `bad value "1" for slaveReadEnable: want true or false`},
		{"brokerPermission=2\nbrokerName=b\n", "brokerName take effect at start-up only: change broker.conf and restart " +
			"the broker (keys that change at run time: brokerPermission, slaveReadEnable)"},
	} {
		err := s.Update(tc.text, "")
		require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: tc.remark}, err, tc.text)
	}
	require.Len(t, applied, 2, "a refused request applies nothing")
	require.Contains(t, s.Text(), "brokerPermission=4\n")
}

// TestUpdateRefusesPathsAndBlackList: the keys the CVE-2023-33246 class of attacks sets
// (rocketmqHome, filterServerNums), Java's black list and any key naming a path or directory are
// refused with NoPermission, whatever their case, even beside a good runtime key, and change
// nothing.
func TestUpdateRefusesPathsAndBlackList(t *testing.T) {
	var applied []string
	s := runtimeService(&applied)
	for _, line := range []string{
		"rocketmqHome=/tmp/evil", "ROCKETMQHOME=/tmp/evil", "filterServerNums=1", "brokerConfigPath=/etc/x",
		"configBlackList=x", "storePathRootDir=/tmp", "storePathCommitLog=/tmp/cl", "aclConfigPath=/tmp/acl.yml",
		"tls.server.certPath=/tmp/c.pem", "kvConfigPath=/tmp/kv", "storePathRootDir=/data",
	} {
		err := s.Update("brokerPermission=2\n"+line+"\n", "10.6.6.6:1")
		require.Equal(t, &outcome.Error{Kind: outcome.NoPermission, Remark: "Can not update config in black list."}, err, line)
	}
	require.Empty(t, applied)
	require.Contains(t, s.Text(), "storePathRootDir=/data\n")
}
