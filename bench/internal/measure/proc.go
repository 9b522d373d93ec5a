package measure

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the times in /proc/PID/stat: 100 on
// every Linux architecture Go runs on (the kernel fixes it for user space,
// whatever its own HZ).
const clockTicks = 100

// CPUTime is the processor time a process has used so far, in user and
// kernel mode together (utime + stime of /proc/PID/stat).
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return ParseStatCPU(string(data))
}

// ParseStatCPU reads utime + stime from a /proc/PID/stat line. The command
// name (field 2, in parentheses) may hold spaces and parentheses itself,
// so the fields are counted from the last ')'.
func ParseStatCPU(stat string) (time.Duration, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, errors.New("no command name in the stat line")
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("the stat line has %d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("a CPU time in the stat line: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// RSSMB reads VmRSS of a process, in MiB.
func RSSMB(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	kb, err := ParseVmRSS(string(data))
	if err != nil {
		return 0, err
	}
	return Round(float64(kb)/1024, 1), nil
}

// ParseVmRSS finds "VmRSS:  12345 kB" in a /proc/PID/status text.
func ParseVmRSS(status string) (int64, error) {
	return parseStatusKB(status, "VmRSS")
}

// RSSPartsMB reads the anonymous and the file-backed parts of a process's
// VmRSS, in MiB: its heap and stacks against the pages of its binary and
// libraries it touched (which move with the binary's layout).
func RSSPartsMB(pid int) (anon, file float64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	a, err := parseStatusKB(string(data), "RssAnon")
	if err != nil {
		return 0, 0, err
	}
	f, err := parseStatusKB(string(data), "RssFile")
	if err != nil {
		return 0, 0, err
	}
	return Round(float64(a)/1024, 1), Round(float64(f)/1024, 1), nil
}

// parseStatusKB finds "name:  12345 kB" in a /proc/PID/status text.
func parseStatusKB(status, name string) (int64, error) {
	for line := range strings.SplitSeq(status, "\n") {
		rest, ok := strings.CutPrefix(line, name+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("unexpected %s line %q", name, line)
		}
		return strconv.ParseInt(fields[0], 10, 64)
	}
	return 0, fmt.Errorf("no %s line", name)
}
