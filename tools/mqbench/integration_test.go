package mqbench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// The integration test runs mqbench against the real bin/mqnamesrv and
// bin/mqbroker (make build), once per flush mode. It is a test of the tool,
// so it skips when the binaries are absent.
//
// MQBENCH_IT_MESSAGES (default 2000), MQBENCH_IT_SIZE (default 256),
// MQBENCH_IT_CONCURRENCY (2) and MQBENCH_IT_WINDOW (32) scale it up into
// a measurement; the reports are logged (go test -v).
func TestProduceConsumeAgainstRealBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real binaries; not in -short")
	}
	root := repoRoot(t)
	nsBin := filepath.Join(root, "bin", "mqnamesrv")
	brBin := filepath.Join(root, "bin", "mqbroker")
	for _, b := range []string{nsBin, brBin} {
		if _, err := os.Stat(b); err != nil {
			t.Skipf("mqbench integration test needs bin/mqnamesrv and bin/mqbroker (run `make build`): %v", err)
		}
	}
	msgs := envInt(t, "MQBENCH_IT_MESSAGES", 2000)
	size := envInt(t, "MQBENCH_IT_SIZE", 256)
	conc := envInt(t, "MQBENCH_IT_CONCURRENCY", 2)
	window := envInt(t, "MQBENCH_IT_WINDOW", 32)

	for _, flush := range []string{"ASYNC_FLUSH", "SYNC_FLUSH"} {
		t.Run(flush, func(t *testing.T) {
			cl := startCluster(t, nsBin, brBin, flush)
			base := Options{Namesrv: []string{cl.namesrv}, Messages: int64(msgs), Size: size,
				Concurrency: conc, Window: window, CheckCRC: true, Wait: true, BrokerPID: cl.brokerPID,
				Timeout: 5 * time.Minute, RequestTimeout: 15 * time.Second}

			t.Run("single sends, topic auto-created from TBW102", func(t *testing.T) {
				o := base
				o.Mode, o.Topic, o.Keys, o.Tags = ModeBoth, "MqbenchAuto", "it-{seq} mqbench", "TagIT"
				rep := runLogged(t, o)
				assert.Equal(t, int64(msgs), rep.Produce.Messages)
				assert.Equal(t, int64(msgs), rep.Verify.Received)
				// Each message can be found by its own key, and carries the tag.
				found := queryByKey(t, cl.namesrv, o.Topic, "it-"+strconv.Itoa(msgs-1))
				require.Len(t, found, 1)
				assert.Equal(t, []string{"it-" + strconv.Itoa(msgs-1), "mqbench"}, found[0].Keys())
				assert.Equal(t, "TagIT", found[0].Tags())
			})
			t.Run("batches, topic created first", func(t *testing.T) {
				o := base
				o.Mode, o.Topic, o.Batch, o.CreateTopic, o.Queues = ModeBoth, "MqbenchBatch", 16, true, 4
				rep := runLogged(t, o)
				assert.Equal(t, int64(msgs), rep.Produce.Messages)
				assert.Equal(t, 4, rep.Produce.Queues)
			})
			t.Run("consume alone drains the topic and commits", func(t *testing.T) {
				o := base
				o.Mode, o.Topic, o.Messages, o.FromCommitted = ModeConsume, "MqbenchAuto", 0, true
				rep := runLogged(t, o)
				assert.Equal(t, int64(msgs), rep.Consume.Messages)
				// A second run from the committed offsets has nothing left to read.
				rep = runLogged(t, o)
				assert.Equal(t, int64(0), rep.Consume.Messages)
			})
			t.Run("pop acknowledges every message, once, per message and in batches", func(t *testing.T) {
				for _, ack := range []string{PopAckSingle, PopAckBatch} {
					o := base
					o.Mode, o.Topic, o.Messages, o.Group, o.PopAck = ModePop, "MqbenchAuto", 0, "mqbench_pop_"+ack, ack
					rep := runLogged(t, o)
					assert.Equal(t, int64(msgs), rep.Consume.Messages, "%s: every message popped", ack)
					assert.Equal(t, int64(msgs), rep.Consume.Acks, "%s: every message acknowledged", ack)
					// The group's pop offsets are at the ends: a second run has nothing to pop.
					rep = runLogged(t, o)
					assert.Equal(t, int64(0), rep.Consume.Messages, "%s: nothing popped twice", ack)
				}
			})
			t.Run("overlapped produce and consume", func(t *testing.T) {
				o := base
				o.Mode, o.Topic, o.Overlap = ModeBoth, "MqbenchOverlap", true
				o.Messages = int64(min(msgs, 5000))
				runLogged(t, o)
			})
		})
	}
}

func runLogged(t *testing.T, o Options) *Report {
	t.Helper()
	rep, err := Run(context.Background(), o, zap.NewNop())
	require.NoError(t, err)
	t.Logf("\n%s", rep)
	require.False(t, rep.Failed(), "the run had failures:\n%s", rep)
	return rep
}

// cluster is a running name server and broker.
type cluster struct {
	namesrv   string
	broker    string
	brokerPID int
}

func startCluster(t *testing.T, nsBin, brBin, flush string) *cluster {
	dir := t.TempDir()
	nsPort := freePort(t)
	brPort := freePort(t)
	haPort := freePort(t)
	cl := &cluster{namesrv: fmt.Sprintf("127.0.0.1:%d", nsPort), broker: fmt.Sprintf("127.0.0.1:%d", brPort)}

	nsConf := filepath.Join(dir, "namesrv.conf")
	writeFile(t, nsConf, fmt.Sprintf("listenPort=%d\nkvConfigPath=%s\n", nsPort, filepath.Join(dir, "kvConfig.json")))
	brConf := filepath.Join(dir, "broker.conf")
	writeFile(t, brConf, strings.Join([]string{
		"brokerClusterName=MqbenchCluster",
		"brokerName=mqbench-a",
		"brokerId=0",
		"brokerIP1=127.0.0.1",
		"listenPort=" + strconv.Itoa(brPort),
		"haListenPort=" + strconv.Itoa(haPort),
		"namesrvAddr=" + cl.namesrv,
		"storePathRootDir=" + filepath.Join(dir, "store"),
		"flushDiskType=" + flush,
		"autoCreateTopicEnable=true",
		"autoCreateSubscriptionGroup=true",
		"",
	}, "\n"))

	startProc(t, dir, "namesrv", nsBin, "-c", nsConf)
	waitDial(t, cl.namesrv)
	br := startProc(t, dir, "broker", brBin, "-c", brConf, "-n", cl.namesrv)
	cl.brokerPID = br.Process.Pid
	waitDial(t, cl.broker)

	// Ready once the broker has registered TBW102 with the name server.
	adm := admin.New(admin.Options{NamesrvAddrs: []string{cl.namesrv}, Timeout: 2 * time.Second}, nil)
	defer func() { _ = adm.Close() }()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		qs, _, err := produceRoute(context.Background(), adm, systopic.AutoCreate)
		require.NoError(c, err)
		require.NotEmpty(c, qs)
	}, 30*time.Second, 100*time.Millisecond, "broker never registered TBW102 with the name server")
	return cl
}

// startProc starts a binary with its output in dir/name.log; the process
// is stopped (SIGTERM, then SIGKILL) when the test ends, and its log shown
// if the test failed.
func startProc(t *testing.T, dir, name, bin string, args ...string) *exec.Cmd {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "HOME="+dir) // defaults under ~ stay in the test's directory
	require.NoError(t, cmd.Start(), "start %s", bin)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			t.Errorf("%s did not stop within 15 s of SIGTERM; killing it", name)
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("%s log (last 4 KiB):\n%s", name, tail(b, 4096))
			}
		}
	})
	return cmd
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}

func waitDial(t *testing.T, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "nothing listens on %s", addr)
}

// freePort returns a port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// repoRoot is the directory holding go.mod, above this package.
// queryByKey asks the broker's index for the messages of topic under key, waiting for the
// index to catch up.
func queryByKey(t *testing.T, namesrv, topic, key string) []*message.MessageExt {
	t.Helper()
	adm := admin.New(admin.Options{NamesrvAddrs: []string{namesrv}}, nil)
	defer func() { _ = adm.Close() }()
	var found []*message.MessageExt
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var err error
		found, err = adm.QueryMessageByKey(context.Background(), topic, key, 32, 0, math.MaxInt64)
		require.NoError(c, err)
		require.NotEmpty(c, found)
	}, 10*time.Second, 50*time.Millisecond, "no message under key %q", key)
	return found
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test's directory")
		dir = parent
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	require.NoError(t, err, "%s", name)
	return v
}
