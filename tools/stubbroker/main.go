// Command stubbroker is a no-op RocketMQ broker for benchmarks (docs/benchmarks.md, "Side by
// side with NATS JetStream"): it registers with the name servers like a master, so that mqbench
// and the official clients route to it, and answers SEND_MESSAGE, SEND_MESSAGE_V2 and
// SEND_BATCH_MESSAGE with SUCCESS and a plausible position (queue offset, offset message id)
// without storing anything; every other request gets SUCCESS with no body. Measured against it,
// a client shows what it costs by itself, so that "ours ÷ stub" says how much the broker slows it.
// It is a tool, not a broker: nothing is kept, nothing can be read back.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/nsreg"
	"github.com/rocketgo/rocketgo/internal/remoting"
)

type config struct {
	addr, namesrv, cluster, name, topics string
	queues                               int
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:10911", "host:port to listen on (the address registered)")
	flag.StringVar(&c.namesrv, "n", "127.0.0.1:9876", "name servers, host:port separated by ';'")
	flag.StringVar(&c.cluster, "cluster", "StubCluster", "cluster name registered")
	flag.StringVar(&c.name, "name", "stub-a", "broker name registered")
	flag.StringVar(&c.topics, "topics", "BenchTopic", "topics registered from the start, comma-separated (more are added by UPDATE_AND_CREATE_TOPIC and by sends)")
	flag.IntVar(&c.queues, "queues", 8, "read and write queues of every topic")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "stubbroker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	host, err := netip.ParseAddrPort(c.addr)
	if err != nil {
		return fmt.Errorf("-addr %q is not ip:port: %w", c.addr, err)
	}
	st := newStub(host, int32(c.queues), strings.Split(c.topics, ","))
	srv := remoting.NewServer(remoting.ServerOptions{Addr: c.addr}, zap.NewNop())
	st.routes(srv)
	if err := srv.Start(); err != nil {
		return fmt.Errorf("listen on %s: %w", c.addr, err)
	}
	defer srv.Close()
	cli := remoting.NewClient(remoting.ClientOptions{}, zap.NewNop())
	defer cli.Close()
	reg := nsreg.New(nsreg.Options{NamesrvAddrs: splitAddrs(c.namesrv), ClusterName: c.cluster, BrokerName: c.name,
		BrokerAddr: c.addr, HAServerAddr: haAddr(c.addr), Period: 10 * time.Second}, cli, st.topicTable, nil, zap.NewNop())
	st.onNewTopic = reg.Trigger
	reg.Start()
	defer reg.Close()
	fmt.Fprintf(os.Stderr, "stubbroker %s listening on %s, registered with %s\n", c.name, c.addr, c.namesrv)
	<-ctx.Done()
	return nil
}

func splitAddrs(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
}

// haAddr is a placeholder HA address (port+1) for the registration; nothing listens there.
func haAddr(addr string) string {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	var port int
	_, _ = fmt.Sscan(p, &port)
	return net.JoinHostPort(h, fmt.Sprint(port+1))
}
