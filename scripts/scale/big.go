package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"
)

const (
	bigTopic = "ScaleBig"
	bigBody  = 1 << 20
)

// bigCommitLog fills a CommitLog of cfg.commitLogGiB GiB through one topic,
// kills the broker with kill -9 and measures the restart until the last
// message of every queue is readable.
func (w *workload) bigCommitLog() error {
	c := w.cfg
	if err := w.startFresh(); err != nil {
		return err
	}
	p, err := w.brokerPool()
	if err != nil {
		return err
	}
	defer p.close()
	if err := createTopic(p[0], bigTopic, c.queues); err != nil {
		return err
	}
	// 1 MiB messages, ending near the end of the last 1 GiB segment: the
	// recovery scan after kill -9 reads that whole segment (it starts at the
	// segment holding the checkpointed flushed offset).
	n := c.commitLogGiB<<10 - 16
	body := bytes.Repeat([]byte{'x'}, bigBody)
	d, err := step(fmt.Sprintf("send %d × 1 MiB to %s", n, bigTopic), func() error {
		return p.each(n, 4, func(i int, cn *conn) error {
			return send(cn, bigTopic, i%c.queues, body, fmt.Sprintf("%032X", i))
		})
	})
	if err != nil {
		return err
	}
	w.row("write the CommitLog", fmt.Sprintf("%d × 1 MiB in %v (%.0f MiB/s)", n, d.Round(time.Millisecond), float64(n)/d.Seconds()))
	last := (n - 1) / c.queues // every queue has a message at this offset or the one before
	if _, err := step("read the last messages", func() error { return w.readLast(last) }); err != nil {
		return err
	}
	if err := w.killBig(); err != nil {
		return err
	}
	return w.restartBig(last)
}

// killBig kills the broker holding the big CommitLog once its checkpoint had
// time to pass.
func (w *workload) killBig() error {
	time.Sleep(2 * time.Second)
	if _, err := step("kill -9", func() error { w.cl.broker.kill(); return nil }); err != nil {
		return err
	}
	du, err := measureDisk(filepath.Join(w.cl.dir, "store", "commitlog"))
	if err != nil {
		return err
	}
	w.row("CommitLog on disk", mib(du.du))
	return nil
}

// restartBig restarts the broker and measures until offset last of every
// queue is readable.
func (w *workload) restartBig(last int) error {
	c := w.cfg
	d, err := step("restart after kill -9", func() error {
		if err := w.cl.startBroker(); err != nil {
			return err
		}
		if err := waitPort(w.cl.broker, w.cl.brAddr, 5*time.Minute); err != nil {
			return err
		}
		return w.readLast(last)
	})
	w.row("restart after kill -9: last message of every queue readable", "**"+d.Round(time.Millisecond).String()+"**")
	w.row("restart after kill -9: broker log", recoveryLine(filepath.Join(w.cl.dir, "broker.log")))
	if err != nil {
		return err
	}
	w.print(fmt.Sprintf("one topic of %d queues, %d GiB CommitLog, kill -9 restart, on %s", c.queues, c.commitLogGiB, hostInfo()))
	return nil
}

// readLast waits until offset off of every queue of the big topic is readable.
func (w *workload) readLast(off int) error {
	p, err := w.brokerPool()
	if err != nil {
		return err
	}
	defer p.close()
	deadline := time.Now().Add(5 * time.Minute)
	return p.each(w.cfg.queues, 1, func(q int, cn *conn) error {
		for {
			msgs, found, err := pull(cn, bigTopic, q, int64(off), 1)
			if err != nil {
				return err
			}
			if found && len(msgs[0].Body) == bigBody {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s/%d: offset %d not readable", bigTopic, q, off)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}
