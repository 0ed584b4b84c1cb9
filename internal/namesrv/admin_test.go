package namesrv

import (
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// rawFrame is a JSON-header frame as Java's admin tools write it: total length, header length,
// the header text, then the body.
func rawFrame(header string, payload []byte) []byte {
	b := make([]byte, 8, 8+len(header)+len(payload))
	binary.BigEndian.PutUint32(b, uint32(4+len(header)+len(payload)))
	binary.BigEndian.PutUint32(b[4:], uint32(len(header)))
	return append(append(b, header...), payload...)
}

// javaRequest is the header Java's DefaultMQAdminExt sends for code with ext fields.
func javaRequest(code, opaque int, ext string) string {
	return `{"code":` + strconv.Itoa(code) + `,"extFields":{` + ext + `},"flag":0,"language":"JAVA","opaque":` + strconv.Itoa(opaque) +
		`,"serializeTypeCurrentRPC":"JSON","version":453}`
}

// queuePerms maps each broker name of a topic's route to its queues' perm.
func queuePerms(t *testing.T, conn *remotingtest.RawConn, topic string) map[string]int {
	t.Helper()
	resp := conn.RoundTrip(routeRequest(topic))
	requireCode(t, resp, protocol.Success)
	route, err := body.DecodeTopicRouteData(resp.Body)
	require.NoError(t, err)
	perms := map[string]int{}
	for _, qd := range route.QueueDatas {
		perms[qd.BrokerName] = qd.Perm
	}
	return perms
}

// TestWipeAndAddWritePermOverTCP: WIPE_WRITE_PERM_OF_BROKER, as Java's tool sends it, takes the
// write bit off every queue of the broker group in the routes and answers how many topics it
// touched; other groups keep theirs; a re-registration with the same DataVersion keeps the wipe,
// ADD_WRITE_PERM_OF_BROKER restores read and write; a changed DataVersion brings the broker's own
// permissions back, as in Java.
func TestWipeAndAddWritePermOverTCP(t *testing.T) {
	s := startServer(t, nil)
	connA, connB := remotingtest.Dial(t, s.addr), remotingtest.Dial(t, s.addr)
	tableA := topics(1, topicCfg("T", 4, 6), topicCfg("RX", 2, 7))
	requireCode(t, connA.RoundTrip(registerRequest(brokerA, tableA, false, nil)), protocol.Success)
	requireCode(t, connB.RoundTrip(registerRequest(brokerB, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)

	admin := remotingtest.Dial(t, s.addr)
	admin.WriteRaw(rawFrame(javaRequest(205, 7, `"brokerName":"broker-a"`), nil))
	resp := admin.Read()
	requireCode(t, resp, protocol.Success)
	require.Equal(t, int32(7), resp.Opaque)
	require.Equal(t, "2", resp.ExtFields.Get("wipeTopicCount"))
	require.Equal(t, map[string]int{"broker-a": 4, "broker-b": 6}, queuePerms(t, admin, "T"))
	require.Equal(t, map[string]int{"broker-a": 5}, queuePerms(t, admin, "RX"), "RWX loses W only")

	requireCode(t, connA.RoundTrip(registerRequest(brokerA, tableA, false, nil)), protocol.Success)
	require.Equal(t, 4, queuePerms(t, admin, "T")["broker-a"], "the same DataVersion keeps the wipe")

	admin.WriteRaw(rawFrame(javaRequest(327, 8, `"brokerName":"broker-a"`), nil))
	resp = admin.Read()
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "2", resp.ExtFields.Get("addTopicCount"))
	require.Equal(t, map[string]int{"broker-a": 6, "broker-b": 6}, queuePerms(t, admin, "T"))
	require.Equal(t, map[string]int{"broker-a": 6}, queuePerms(t, admin, "RX"), "Java sets read and write")

	resp = admin.RoundTrip(protocol.NewHeaderRequest(protocol.WipeWritePermOfBroker,
		&protocol.WipeWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}, nil))
	require.Equal(t, "2", resp.ExtFields.Get("wipeTopicCount"))
	requireCode(t, connA.RoundTrip(registerRequest(brokerA, topics(2, topicCfg("T", 4, 6), topicCfg("RX", 2, 7)), false, nil)),
		protocol.Success)
	require.Equal(t, map[string]int{"broker-a": 6, "broker-b": 6}, queuePerms(t, admin, "T"), "a new DataVersion")
	require.Equal(t, 7, queuePerms(t, admin, "RX")["broker-a"])

	resp = admin.RoundTrip(protocol.NewHeaderRequest(protocol.WipeWritePermOfBroker,
		&protocol.WipeWritePermOfBrokerRequestHeader{BrokerName: "broker-z"}, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "0", resp.ExtFields.Get("wipeTopicCount"))

	admin.WriteRaw(rawFrame(javaRequest(205, 9, ``), nil))
	resp = admin.Read()
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, "the custom field <brokerName> is null", resp.Remark)
	admin.WriteRaw(rawFrame(javaRequest(327, 10, `"brokerName":"a/../b"`), nil))
	requireCode(t, admin.Read(), protocol.SystemError)
}

func configRequest(text string) *protocol.Command {
	return protocol.NewRequest(protocol.UpdateNamesrvConfig, nil, []byte(text))
}

// namesrvConfig reads GET_NAMESRV_CONFIG into a map.
func namesrvConfig(t *testing.T, conn *remotingtest.RawConn) map[string]string {
	t.Helper()
	resp := conn.RoundTrip(protocol.NewRequest(protocol.GetNamesrvConfig, nil, nil))
	requireCode(t, resp, protocol.Success)
	props, err := body.ParseProperties(resp.Body)
	require.NoError(t, err)
	m := map[string]string{}
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m
}

// TestNamesrvConfigOverTCP: GET_NAMESRV_CONFIG answers every key with its value; the keys the
// handlers read on every request change at run time and take effect at once; keys fixed at start
// are refused unless unchanged, unknown keys and bad values too, all or nothing.
func TestNamesrvConfigOverTCP(t *testing.T) {
	s := startServer(t, func(o *Options) {
		o.ConfigKeys = []ConfigKey{{"listenPort", "9876"}, {"kvConfigPath", o.KVConfigPath}, {"orderMessageEnable", "stale"}}
	})
	conn := remotingtest.Dial(t, s.addr)
	conn.WriteRaw(rawFrame(javaRequest(319, 3, ``), nil))
	resp := conn.Read()
	requireCode(t, resp, protocol.Success)
	text := string(resp.Body)
	require.True(t, strings.HasPrefix(text, "deleteTopicWithBrokerRegistration=false\nenableAllTopicList=true\n"), text)
	require.Contains(t, text, "\nlistenPort=9876\n")
	require.Contains(t, text, "\norderMessageEnable=false\n", "run-time keys show the value in use")
	require.Contains(t, text, "\nwaitSecondsForService=45\n")

	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(kvPut(NamespaceOrderTopicConfig, "T", "broker-a:4")), protocol.Success)
	conn.WriteRaw(rawFrame(javaRequest(318, 4, ``), []byte("orderMessageEnable=true\nenableAllTopicList=false\nlistenPort=9876\n")))
	requireCode(t, conn.Read(), protocol.Success)
	resp = conn.RoundTrip(routeRequest("T"))
	route, err := body.DecodeTopicRouteData(resp.Body)
	require.NoError(t, err)
	require.Equal(t, "broker-a:4", route.OrderTopicConf)
	resp = conn.RoundTrip(protocol.NewRequest(protocol.GetAllTopicListFromNameserver, nil, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, "disable", resp.Remark)
	cfg := namesrvConfig(t, conn)
	require.Equal(t, "true", cfg["orderMessageEnable"])
	require.Equal(t, "false", cfg["enableAllTopicList"])

	for body, want := range map[string]string{
		"listenPort=1":                     "listenPort cannot change at run time",
		"noSuchKey=1":                      `"noSuchKey" is not a name server key`,
		"enableTopicList=yes":              `enableTopicList="yes": want true or false`,
		"waitSecondsForService=-1":         "waitSecondsForService",
		"enableTopicList=false\nbad=\\u12": "malformed",
	} {
		resp := conn.RoundTrip(configRequest(body))
		requireCode(t, resp, protocol.SystemError)
		require.Contains(t, resp.Remark, want, body)
	}
	require.Equal(t, "true", namesrvConfig(t, conn)["enableTopicList"], "a refused update changes nothing")
	resp = conn.RoundTrip(configRequest("enableTopicList=false\nlistenPort=2"))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "the keys that change at run time: orderMessageEnable, ")
	require.Equal(t, "true", namesrvConfig(t, conn)["enableTopicList"])
	requireCode(t, conn.RoundTrip(configRequest("")), protocol.Success)
	requireCode(t, conn.RoundTrip(configRequest("ENABLETOPICLIST = FALSE")), protocol.Success)
	require.Equal(t, "false", namesrvConfig(t, conn)["enableTopicList"])
}

// TestNamesrvConfigBlackList: no update may name a path or the black list itself
// (CVE-2023-37582: UPDATE_NAMESRV_CONFIG set configStorePath, then the name server wrote the
// request's text there). The fixed keys, configBlackList's own and case variants are refused
// with NO_PERMISSION and Java's remark; nothing of the request is applied and no file appears.
func TestNamesrvConfigBlackList(t *testing.T) {
	s := startServer(t, func(o *Options) { o.ConfigBlackList = []string{"enableTopicList", ""} })
	conn := remotingtest.Dial(t, s.addr)
	dir := t.TempDir()
	evil := filepath.Join(dir, "cron", "evil")
	for _, text := range []string{
		"configStorePath=" + evil + "\norderMessageEnable=true",
		"kvConfigPath=" + evil,
		"rocketmqHome=" + dir,
		"configBlackList=",
		"enableTopicList=false",
		"KvConfigPath=" + evil,
		"orderMessageEnable=true\nconfigStorePath " + evil,
		"configStorePath\\\n  =" + evil,
	} {
		resp := conn.RoundTrip(configRequest(text))
		requireCode(t, resp, protocol.NoPermission)
		require.Equal(t, "Can not update config in black list.", resp.Remark, text)
	}
	cfg := namesrvConfig(t, conn)
	require.Equal(t, "false", cfg["orderMessageEnable"])
	require.Equal(t, "true", cfg["enableTopicList"])
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

// TestAdminWritesNeedTheAllowlist: with adminWriteAllowlist set, WIPE/ADD_WRITE_PERM_OF_BROKER
// and UPDATE_NAMESRV_CONFIG from another address are refused; GET_NAMESRV_CONFIG stays open.
func TestAdminWritesNeedTheAllowlist(t *testing.T) {
	s := startServer(t, func(o *Options) { o.AdminAllowlist = []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")} })
	conn := remotingtest.Dial(t, s.addr)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	for _, req := range []*protocol.Command{
		protocol.NewHeaderRequest(protocol.WipeWritePermOfBroker, &protocol.WipeWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}, nil),
		protocol.NewHeaderRequest(protocol.AddWritePermOfBroker, &protocol.AddWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}, nil),
		configRequest("orderMessageEnable=true"),
	} {
		resp := conn.RoundTrip(req)
		requireCode(t, resp, protocol.NoPermission)
		require.Contains(t, resp.Remark, "not in adminWriteAllowlist")
	}
	require.Equal(t, 6, queuePerms(t, conn, "T")["broker-a"])
	require.Equal(t, "false", namesrvConfig(t, conn)["orderMessageEnable"])
}

// TestDeleteTopicWithBrokerRegistrationAtRunTime: turned on by UPDATE_NAMESRV_CONFIG, the next
// registration with a new DataVersion drops the topics it no longer lists.
func TestDeleteTopicWithBrokerRegistrationAtRunTime(t *testing.T) {
	s := startServer(t, nil)
	conn := remotingtest.Dial(t, s.addr)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6), topicCfg("Gone", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(2, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(routeRequest("Gone")), protocol.Success)
	requireCode(t, conn.RoundTrip(configRequest("deleteTopicWithBrokerRegistration=true")), protocol.Success)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(3, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(routeRequest("Gone")), protocol.TopicNotExist)
}
