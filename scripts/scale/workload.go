package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// workload drives the cluster and collects the figures.
type workload struct {
	cfg  config
	cl   *cluster
	rows [][2]string
}

func (w *workload) row(name, value string) { w.rows = append(w.rows, [2]string{name, value}) }

func (w *workload) print(title string) {
	fmt.Printf("\n%s\n\n| measure | value |\n|---|---|\n", title)
	for _, r := range w.rows {
		fmt.Printf("| %s | %s |\n", r[0], r[1])
	}
}

// queues is the number of queues in the run.
func (w *workload) queues() int { return w.cfg.topics * w.cfg.queues }

// queue maps a run index to its topic and queue id.
func (w *workload) queue(i int) (string, int) { return topicName(i / w.cfg.queues), i % w.cfg.queues }

func (w *workload) brokerPool() (pool, error) { return dialPool(w.cl.brAddr, w.cfg.conns) }

// manyTopics is the 10,000-topic run.
func (w *workload) manyTopics() error {
	c := w.cfg
	if err := w.begin(); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // let a ConsumeQueue flush pass
	if err := w.measure("after sending and reading"); err != nil {
		return err
	}
	if err := w.stopClean("clean stop (SIGTERM → exit)"); err != nil {
		return err
	}
	if err := w.restart("restart after the clean stop"); err != nil {
		return err
	}
	if err := w.measure("after the restart and reading every queue"); err != nil {
		return err
	}
	if _, err := step("kill -9", func() error { w.cl.broker.kill(); return nil }); err != nil {
		return err
	}
	if err := w.restart("restart after kill -9"); err != nil {
		return err
	}
	if err := w.secondRound(); err != nil {
		return err
	}
	if err := w.stopClean("clean stop after writing every queue again"); err != nil {
		return err
	}
	w.print(fmt.Sprintf("%d topics × %d queues, one message each (%d queues), on %s", c.topics, c.queues, w.queues(), hostInfo()))
	return nil
}

// begin starts the broker on the kept store (-reuse), or on an empty one
// that it fills and reads back.
func (w *workload) begin() error {
	if w.cfg.reuse {
		return w.restart("start on the kept store")
	}
	if err := w.startFresh(); err != nil {
		return err
	}
	if err := w.populate(); err != nil {
		return err
	}
	_, err := step("read every queue", func() error { return w.readAll(time.Now().Add(5 * time.Minute)) })
	return err
}

// startFresh starts the broker on the empty store and waits for it.
func (w *workload) startFresh() error {
	d, err := step("start the broker on an empty store", func() error {
		if err := w.cl.startBroker(); err != nil {
			return err
		}
		return waitPort(w.cl.broker, w.cl.brAddr, time.Minute)
	})
	w.row("fresh start: broker listening", d.Round(time.Millisecond).String())
	return err
}

// populate creates the topics and sends one message to every queue.
func (w *workload) populate() error {
	c := w.cfg
	p, err := w.brokerPool()
	if err != nil {
		return err
	}
	defer p.close()
	d, err := step(fmt.Sprintf("create %d topics of %d queues", c.topics, c.queues), func() error {
		return p.each(c.topics, min(c.window, 8), func(i int, cn *conn) error { return createTopic(cn, topicName(i), c.queues) })
	})
	if err != nil {
		return err
	}
	w.row("create topics", fmt.Sprintf("%v (%.0f/s)", d.Round(time.Millisecond), float64(c.topics)/d.Seconds()))
	d, err = step(fmt.Sprintf("send one message to each of %d queues", w.queues()), func() error {
		return p.each(w.queues(), c.window, func(i int, cn *conn) error {
			t, q := w.queue(i)
			return send(cn, t, q, bodyOf(t, q), fmt.Sprintf("%032X", i))
		})
	})
	if err != nil {
		return err
	}
	w.row("send one message per queue", fmt.Sprintf("%v (%.0f msgs/s)", d.Round(time.Millisecond), float64(w.queues())/d.Seconds()))
	return nil
}

// secondRound sends a second message to every queue, so that every queue is
// mapped for writing under the broker's cap, measures, and reads them back.
func (w *workload) secondRound() error {
	p, err := w.brokerPool()
	if err != nil {
		return err
	}
	defer p.close()
	d, err := step(fmt.Sprintf("send a second message to each of %d queues", w.queues()), func() error {
		return p.each(w.queues(), w.cfg.window, func(i int, cn *conn) error {
			t, q := w.queue(i)
			return send(cn, t, q, secondBody(t, q), fmt.Sprintf("%032X", w.queues()+i))
		})
	})
	if err != nil {
		return err
	}
	w.row("send a second message per queue", fmt.Sprintf("%v (%.0f msgs/s)", d.Round(time.Millisecond), float64(w.queues())/d.Seconds()))
	deadline := time.Now().Add(5 * time.Minute)
	_, err = step("read every second message", func() error {
		return p.each(w.queues(), w.cfg.window, func(i int, cn *conn) error {
			t, q := w.queue(i)
			return readBackAt(cn, t, q, 1, secondBody(t, q), deadline)
		})
	})
	if err != nil {
		return err
	}
	return w.measure("after writing every queue again")
}

// readAll pulls every queue until its message is there and checks it.
func (w *workload) readAll(deadline time.Time) error {
	p, err := w.brokerPool()
	if err != nil {
		return err
	}
	defer p.close()
	return p.each(w.queues(), w.cfg.window, func(i int, cn *conn) error {
		t, q := w.queue(i)
		return readBack(cn, t, q, deadline)
	})
}

// measure records disk, memory, descriptors and mappings.
func (w *workload) measure(when string) error {
	cq := filepath.Join(w.cl.dir, "store", "consumequeue")
	du, err := measureDisk(cq)
	if err != nil {
		return err
	}
	pu, err := measureProc(w.cl.broker.pid())
	if err != nil {
		return err
	}
	w.row("consume queue disk, "+when+": du -s", fmt.Sprintf("**%s** (%d files: %s, %d directories: %s; files' length %s)",
		mib(du.du), du.nFiles, mib(du.files), du.nDirs, mib(du.dirs), mib(du.logical)))
	w.row("broker RssAnon, "+when, fmt.Sprintf("**%s** (RssFile %s, RssShmem %s)", mib(pu.rssAnon), mib(pu.rssFile), mib(pu.rssShmem)))
	w.row("broker open fds / mappings, "+when, fmt.Sprintf("%d / %d", pu.fds, pu.maps))
	return nil
}

// stopClean stops the broker with SIGTERM.
func (w *workload) stopClean(what string) error {
	var took time.Duration
	_, err := step(what, func() error {
		var err error
		took, err = w.cl.broker.stop(60 * time.Second)
		return err
	})
	w.row(what, "**"+took.Round(time.Millisecond).String()+"**")
	return err
}

// restart starts the broker on its store and measures the time until it
// listens, until the name server routes the last topic to it, and until
// every queue is readable with its message.
func (w *workload) restart(what string) error {
	ns, err := dial(w.cl.nsAddr)
	if err != nil {
		return err
	}
	defer ns.close()
	begin := time.Now()
	var listen, route, all time.Duration
	_, err = step(what, func() error {
		if err := w.cl.startBroker(); err != nil {
			return err
		}
		if err := waitPort(w.cl.broker, w.cl.brAddr, 5*time.Minute); err != nil {
			return err
		}
		listen = time.Since(begin)
		errc := make(chan error, 1)
		go func() { errc <- w.readAll(time.Now().Add(5 * time.Minute)) }()
		if err := waitRoute(ns, topicName(w.cfg.topics-1), w.cl.brokerName, time.Now().Add(5*time.Minute)); err != nil {
			return err
		}
		route = time.Since(begin)
		err := <-errc
		all = time.Since(begin)
		return err
	})
	ready := max(route, all)
	w.row(what+": ready (route served, every queue read back)",
		fmt.Sprintf("**%v** (listening %v, route %v, all %d queues read %v)", ready.Round(time.Millisecond),
			listen.Round(time.Millisecond), route.Round(time.Millisecond), w.queues(), all.Round(time.Millisecond)))
	w.row(what+": broker log", recoveryLine(filepath.Join(w.cl.dir, "broker.log")))
	return err
}

// recoveryLine is the store's last recovery summary in the broker log.
func recoveryLine(log string) string {
	b, err := os.ReadFile(log)
	if err != nil {
		return "?"
	}
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "store recovered") {
			l := lines[i]
			if j := strings.Index(l, "store recovered"); j >= 0 {
				l = l[j:]
			}
			return "`" + strings.ReplaceAll(l, "|", "/") + "`"
		}
	}
	return "(no recovery line)"
}

func hostInfo() string {
	load, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(load))
	if len(f) >= 3 {
		return fmt.Sprintf("load average %s %s %s", f[0], f[1], f[2])
	}
	return "this machine"
}
