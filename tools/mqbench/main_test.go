package mqbench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// peerEnv makes the test binary run as a scripted peer process (see
// startPeerProcess) instead of running tests.
const peerEnv = "MQBENCH_SCRIPTED_PEER"

func TestMain(m *testing.M) {
	if os.Getenv(peerEnv) != "" {
		runPeerProcess()
		return
	}
	goleak.VerifyTestMain(m)
}

// runPeerProcess serves as a scripted peer, prints its address and exits
// when stdin closes.
func runPeerProcess() {
	t := &peerProcessTB{}
	p := startPeer(t, &scriptedPeer{keys: testKeys(), dropSeq: -1, dupSeq: -1})
	fmt.Println(p.addr)
	_, _ = io.Copy(io.Discard, os.Stdin)
	t.cleanup()
}

// startPeerProcess runs a scripted peer in a child process, so that the
// benchmark's CPU time and profile are mqbench's alone.
func startPeerProcess(b *testing.B) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("peer process: %v", err)
	}
	return strings.TrimSpace(line)
}

// peerProcessTB is the little of testing.TB that startPeer uses, for the
// peer process.
type peerProcessTB struct {
	testing.TB
	cleanups []func()
}

func (p *peerProcessTB) Helper()                   {}
func (p *peerProcessTB) Cleanup(f func())          { p.cleanups = append(p.cleanups, f) }
func (p *peerProcessTB) Errorf(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
func (p *peerProcessTB) FailNow()                  { os.Exit(2) }
func (p *peerProcessTB) cleanup() {
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
}
