// Package mqshutdown is the mqshutdown command, as Apache RocketMQ's distribution/bin/mqshutdown:
// `mqshutdown broker` or `mqshutdown namesrv` finds the running mqbroker or mqnamesrv processes
// and sends each SIGTERM, which makes it shut down cleanly (see internal/cli/clicommon). Beyond
// Apache's script, -c picks the processes started with one configuration file (two brokers on one
// host) and --wait waits until they have exited.
package mqshutdown

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// errNoneRunning is returned when no process matched, after "No mqbroker running." was printed.
var errNoneRunning = errors.New("no matching process running")

// targets maps mqshutdown's argument to the binary it stops.
var targets = map[string]string{"broker": "mqbroker", "namesrv": "mqnamesrv"}

type flags struct {
	conf     string
	wait     time.Duration
	procRoot string
}

// NewCommand is mqshutdown: `mqshutdown broker|namesrv [-c file] [--wait 60s]`.
func NewCommand() *cobra.Command {
	f := &flags{procRoot: "/proc"}
	cmd := &cobra.Command{
		Use:   "mqshutdown broker | namesrv",
		Short: "Send SIGTERM to the running mqbroker or mqnamesrv processes, as Apache's mqshutdown",
		Long: `mqshutdown broker (or namesrv) finds every running mqbroker (mqnamesrv) process of
this host and sends it SIGTERM: the server unregisters from the name servers,
closes its store cleanly and exits. It exits 1 when none is running.`,
		Args:          cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs:     []string{"broker", "namesrv"},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.OutOrStdout(), targets[args[0]])
		},
	}
	cmd.Flags().StringVarP(&f.conf, "configFile", "c", "", "only the processes started with this configuration file (-c)")
	cmd.Flags().DurationVarP(&f.wait, "wait", "w", 0, "wait up to this long for them to exit (0: do not wait, as Apache's)")
	return cmd
}

// run finds the processes of binary, signals each and, with --wait, waits for them.
func (f *flags) run(out io.Writer, binary string) error {
	pids, err := findProcesses(f.procRoot, binary, f.conf)
	if err != nil {
		return err
	}
	if len(pids) == 0 {
		fmt.Fprintf(out, "No %s running.\n", binary)
		return errNoneRunning
	}
	fmt.Fprintf(out, "The %s(%s) is running...\n", binary, pidList(pids))
	var failed []error
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			failed = append(failed, fmt.Errorf("SIGTERM to %s(%d): %w", binary, pid, err))
		}
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	fmt.Fprintf(out, "Send shutdown request to %s(%s) OK\n", binary, pidList(pids))
	if f.wait <= 0 {
		return nil
	}
	return waitGone(out, binary, pids, f.wait)
}

// waitGone polls until every pid has exited, or timeout.
func waitGone(out io.Writer, binary string, pids []int, timeout time.Duration) error {
	begin := time.Now()
	for {
		var alive []int
		for _, pid := range pids {
			if running(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			fmt.Fprintf(out, "%s(%s) stopped after %v\n", binary, pidList(pids), time.Since(begin).Round(time.Millisecond))
			return nil
		}
		if time.Since(begin) >= timeout {
			return fmt.Errorf("%s(%s) still running after %v", binary, pidList(alive), timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// running reports whether pid is a live process (a zombie counts as gone: it has exited).
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || !isZombie(st)
}

func pidList(pids []int) string {
	s := ""
	for i, p := range pids {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprint(p)
	}
	return s
}

// Reported reports whether err was already told to the user on stdout ("No mqbroker running.").
func Reported(err error) bool { return errors.Is(err, errNoneRunning) }
