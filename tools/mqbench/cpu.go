package mqbench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// readProcCPU returns the user plus system CPU time of process pid from
// /proc/pid/stat (utime and stime, fields 14 and 15, in clock ticks).
func readProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("mqbench: broker CPU: %w", err)
	}
	return parseProcStat(b, clockTicks())
}

// parseProcStat reads utime+stime from a /proc/pid/stat line. The command
// name (field 2) is in parentheses and may hold spaces, so fields are
// counted from the last ')'.
func parseProcStat(b []byte, hz int64) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("mqbench: broker CPU: malformed stat line")
	}
	// After ") ": field 3 (state) is index 0, so utime (14) is index 11.
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("mqbench: broker CPU: stat line has %d fields after the name", len(f))
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || hz <= 0 {
		return 0, fmt.Errorf("mqbench: broker CPU: bad utime %q or stime %q", f[11], f[12])
	}
	ticks := utime + stime
	return time.Duration(ticks) * time.Second / time.Duration(hz), nil
}

var clockTicks = sync.OnceValue(func() int64 {
	// AT_CLKTCK (17) in the auxiliary vector is sysconf(_SC_CLK_TCK);
	// Linux's USER_HZ is 100 everywhere that matters, the fallback.
	const atClkTck = 17
	if b, err := os.ReadFile("/proc/self/auxv"); err == nil {
		for ; len(b) >= 16; b = b[16:] {
			k, v := binary.NativeEndian.Uint64(b), binary.NativeEndian.Uint64(b[8:])
			if k == atClkTck && v > 0 && v < 1e6 {
				return int64(v)
			}
		}
	}
	return 100
})

// selfCPU is this process's user plus system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter samples the broker's and our own CPU time at the start of a
// phase.
type cpuMeter struct {
	pid         int
	broker, own time.Duration
	brokerErr   error
}

func startCPU(pid int) cpuMeter {
	m := cpuMeter{pid: pid, own: selfCPU()}
	if pid > 0 {
		m.broker, m.brokerErr = readProcCPU(pid)
	}
	return m
}

// CPUReport is the CPU a phase cost, in seconds and µs per message.
type CPUReport struct {
	BrokerSeconds     float64 `json:"broker_cpu_s,omitempty"`
	BrokerUsPerMsg    float64 `json:"broker_cpu_us_per_msg,omitempty"`
	BrokerError       string  `json:"broker_cpu_error,omitempty"`
	MqbenchSeconds    float64 `json:"mqbench_cpu_s"`
	MqbenchUsPerMsg   float64 `json:"mqbench_cpu_us_per_msg"`
	brokerWasMeasured bool
}

func (m cpuMeter) stop(msgs int64) CPUReport {
	var r CPUReport
	own := selfCPU() - m.own
	r.MqbenchSeconds = own.Seconds()
	if msgs > 0 {
		r.MqbenchUsPerMsg = float64(own.Microseconds()) / float64(msgs)
	}
	if m.pid <= 0 {
		return r
	}
	r.brokerWasMeasured = true
	end, err := readProcCPU(m.pid)
	if err == nil {
		err = m.brokerErr
	}
	if err != nil {
		r.BrokerError = err.Error()
		return r
	}
	d := end - m.broker
	r.BrokerSeconds = d.Seconds()
	if msgs > 0 {
		r.BrokerUsPerMsg = float64(d.Microseconds()) / float64(msgs)
	}
	return r
}
