package mqadmin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker"
)

const aclYAML = `accounts:
  - accessKey: rocketmq2
    secretKey: 12345678
    admin: true
  - accessKey: appuser1
    secretKey: app-secret
    defaultTopicPerm: PUB|SUB
`

// aclCluster is a name server and a broker with aclEnable over aclYAML.
func aclCluster(t *testing.T) *admintest.Cluster {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(aclYAML), 0o600))
	ns := admintest.StartNamesrv(t)
	cl := &admintest.Cluster{Namesrv: ns, NamesrvAddr: ns.Addr().String()}
	cl.Brokers = append(cl.Brokers, admintest.StartBroker(t, cl.NamesrvAddr, func(o *broker.Options) { o.ACL = &acl.Options{Path: path} }))
	cl.WaitRegistered(t, 1)
	return cl
}

// TestAdminSignsWithACL: against a broker with ACL, mqadmin signs every request with the account
// of --accessKey/--secretKey, or of $ROCKETMQ_HOME/conf/tools.yml as Apache's mqadmin does; the
// admin account's requests are served, a wrong secret or a missing account is refused with the
// broker's AclException.
func TestAdminSignsWithACL(t *testing.T) {
	cl := aclCluster(t)
	t.Setenv("ROCKETMQ_HOME", "")
	addr := admintest.Addr(cl.Brokers[0])
	admin := []string{"--accessKey", "rocketmq2", "--secretKey", "12345678", "-n", cl.NamesrvAddr}

	out := mustRunAdmin(t, append([]string{"updateTopic", "-b", addr, "-t", "Signed", "-r", "2", "-w", "2"}, admin...)...)
	requireLine(t, out, `^create topic to `+addr+` success\.$`)
	cl.WaitRoute(t, "Signed")
	out = mustRunAdmin(t, append([]string{"topicStatus", "-t", "Signed"}, admin...)...)
	requireLine(t, out, `^broker-a\s+1\s+0\s+0\s*$`)
	out = mustRunAdmin(t, append([]string{"clusterList"}, admin...)...)
	requireLine(t, out, `^DefaultCluster\s+broker-a\s+0\s+`+addr+`\s+V4_9_8\s`)

	_, errOut, err := runAdmin(t, "topicStatus", "-t", "Signed", "--accessKey", "rocketmq2", "--secretKey", "wrong", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "AclException: Check signature failed for accessKey=rocketmq2")
	_, errOut, err = runAdmin(t, "topicStatus", "-t", "Signed", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "AclException: No accessKey is configured")
	_, errOut, err = runAdmin(t, "updateTopic", "-b", addr, "-t", "Other", "--accessKey", "appuser1", "--secretKey", "app-secret")
	require.Error(t, err)
	require.Contains(t, errOut, "Need admin permission for request code=17, but accessKey=appuser1 is not")
	_, errOut, err = runAdmin(t, "topicStatus", "-t", "Signed", "--accessKey", "rocketmq2", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "--accessKey and --secretKey go together")

	// Apache's tools.yml, as its distribution ships it.
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, "conf"), 0o755))
	tools := filepath.Join(home, "conf", "tools.yml")
	require.NoError(t, os.WriteFile(tools, []byte("# comment\n\naccessKey: rocketmq2\nsecretKey: 12345678\n"), 0o600))
	t.Setenv("ROCKETMQ_HOME", home)
	out = mustRunAdmin(t, "topicStatus", "-t", "Signed", "-n", cl.NamesrvAddr)
	requireLine(t, out, `^broker-a\s+0\s+0\s+0\s*$`)
	require.NoError(t, os.WriteFile(tools, []byte("accessKey: rocketmq2\nsecretKey: nope\n"), 0o600))
	_, errOut, err = runAdmin(t, "topicStatus", "-t", "Signed", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "Check signature failed")
	out = mustRunAdmin(t, append([]string{"topicStatus", "-t", "Signed"}, admin...)...)
	requireLine(t, out, `^broker-a\s+0\s+0\s+0\s*$`) // the flags win over tools.yml
}
