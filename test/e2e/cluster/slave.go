package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Slave is a broker started with brokerRole=SLAVE under a master's brokerName. It is not in
// Cluster.Brokers (which Broker(name) searches for masters), but the cluster stops it and prints
// its log like any other process.
type Slave struct {
	*Broker
	ID int // brokerId, > 0
}

// AddSlave starts a slave of the master called masterName with brokerId id (> 0): the same
// brokerName, brokerRole=SLAVE, its own ports and store, overrides on top. It waits until the
// nameserver lists it as brokerAddrs[id] of that brokerName (GET_BROKER_CLUSTER_INFO): a slave is
// never in a route's master slot, which Broker.WaitReady checks.
func (c *Cluster) AddSlave(masterName string, id int, overrides map[string]string) *Slave {
	t := c.t
	t.Helper()
	if id <= 0 {
		t.Fatalf("e2e: a slave's brokerId must be > 0, got %d", id)
	}
	bin := Binary(t, BrokerBinary)
	dir := filepath.Join(c.dir, fmt.Sprintf("%s-slave%d", masterName, id))
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		b := &Broker{c: c, Name: masterName, StoreDir: store, Conf: filepath.Join(dir, "broker.conf"),
			Port: mustBrokerPort(t), HAPort: mustFreePort(t)}
		b.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port))
		props := DefaultBrokerProps()
		props["brokerClusterName"] = c.Name
		props["brokerName"] = masterName
		props["brokerId"] = strconv.Itoa(id)
		props["brokerRole"] = "SLAVE"
		props["namesrvAddr"] = c.Namesrv.Addr
		props["listenPort"] = strconv.Itoa(b.Port)
		props["haListenPort"] = strconv.Itoa(b.HAPort)
		props["storePathRootDir"] = store
		props["storePathCommitLog"] = filepath.Join(store, "commitlog")
		for k, v := range overrides {
			props[k] = v
		}
		b.Props = props
		writeConf(t, b.Conf, "broker.conf of a slave, written by test/e2e/cluster", props)
		b.Process = newProcess(attemptName(fmt.Sprintf("%s-slave%d", masterName, id), attempt), bin, dir,
			append([]string{"-c", b.Conf}, c.brokerArgs...))
		if err := b.start(); err != nil {
			t.Fatalf("e2e: %v", err)
		}
		c.track(b.Process)
		s := &Slave{Broker: b, ID: id}
		lastErr = s.WaitReady()
		if lastErr == nil {
			return s
		}
		if !portClash(b.Process) {
			break
		}
		_ = b.Process.Stop()
		b.Process.acceptExit()
	}
	t.Fatalf("e2e: slave %d of %s not ready: %v", id, masterName, lastErr)
	return nil
}

// WaitReady waits until the slave accepts connections and the nameserver lists it as
// brokerAddrs[ID] of its brokerName.
func (s *Slave) WaitReady() error {
	deadline := time.Now().Add(BrokerReadyTimeout)
	last := "nothing tried"
	for time.Now().Before(deadline) {
		select {
		case <-s.Exited():
			return fmt.Errorf("slave %s/%d exited during start-up (%s)", s.Name, s.ID, s.ExitStatus())
		default:
		}
		if err := s.listed(); err != nil {
			last = err.Error()
			pause(s.Exited(), 100*time.Millisecond)
			continue
		}
		return nil
	}
	return fmt.Errorf("slave %s/%d (%s) not ready within %v: %s", s.Name, s.ID, s.Addr, BrokerReadyTimeout, last)
}

func (s *Slave) listed() error {
	conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return fmt.Errorf("slave does not accept connections: %v", err)
	}
	_ = conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	info, resp, err := GetClusterInfo(ctx, s.c.Namesrv.Addr)
	switch {
	case err != nil:
		return fmt.Errorf("cluster info: %v", err)
	case info == nil:
		return fmt.Errorf("cluster info: %v", resp)
	}
	if got := info.BrokerAddrTable[s.Name].BrokerAddrs[strconv.Itoa(s.ID)]; got != s.Addr {
		return fmt.Errorf("cluster info lists %q as %s/%d, want %s: %v", got, s.Name, s.ID, s.Addr, resp)
	}
	return nil
}

// StartAgain starts a stopped or killed slave with the same broker.conf and waits until it is
// listed again.
func (s *Slave) StartAgain() {
	t := s.c.t
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	if err := s.WaitReady(); err != nil {
		t.Fatalf("e2e: slave %s/%d not ready after restart: %v", s.Name, s.ID, err)
	}
}
