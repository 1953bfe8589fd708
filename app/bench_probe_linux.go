//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// cpuTime is the CPU time (user and system, all threads, living and
// exited) process pid has used.
func cpuTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	st, err2 := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * time.Second / clockTicks, true
}

// contextSwitches sums every thread's voluntary and involuntary context
// switches: each is a wake-up of that thread.
func contextSwitches(pid int) (int64, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	var n int64
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/status")
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return n, true
}

// openFDs counts process pid's open descriptors. Since Linux 6.2 the size
// of /proc/<pid>/fd is that count: one stat, where listing the folder
// walks every descriptor of a bridge holding hundreds, fifty times a
// second, on the CPUs the bridge is being measured on.
func openFDs(pid int) int {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	if fi, err := os.Stat(dir); err == nil && fi.Size() > 0 {
		return int(fi.Size())
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	return len(es)
}

// peakResidentKB is the kernel's high-water mark of pid's resident memory.
func peakResidentKB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// treeResidentKB is the resident memory of pid and every process below it
// now: a tool that starts a worker (ccusage's launcher runs node again)
// is measured whole.
func treeResidentKB(pid int) int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after its ')'.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) >= 2 {
				pp, _ := strconv.Atoi(f[1])
				children[pp] = append(children[pp], p)
			}
		}
	}
	var sum int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = append(queue[1:], children[p]...)
		sum += residentKB(p)
	}
	return sum
}
