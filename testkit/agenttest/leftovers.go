package agenttest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// KillLeftoversOf makes t's cleanup kill every process still working in
// or on home once the test is done: one whose working directory is under
// home, or whose environment names it (XDG_DATA_HOME=<home>/…). An agent
// run the bridge started for a test (an `opencode run --session`
// delivering a message, in a process group of its own so that it outlives
// the bridge, as it must for a person) otherwise keeps retrying the fake
// model server that closed with the test, for hours, at 500 MB each.
// Register it before the bridge and the fake model, so it runs after
// their cleanups. It reads /proc; where there is none it does nothing.
func KillLeftoversOf(t testing.TB, home string) {
	t.Helper()
	t.Cleanup(func() {
		for _, pid := range processesOn(home) {
			syscall.Kill(-pid, syscall.SIGKILL) // its group: what it started too
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// processesOn lists the processes other than this one whose working
// directory is under dir or whose environment names dir.
func processesOn(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if on(pid, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func on(pid int, dir string) bool {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err == nil {
		cwd = strings.TrimSuffix(cwd, " (deleted)")
		if cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
			return true
		}
	}
	env, err := os.ReadFile(filepath.Join(proc, "environ"))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if _, v, ok := bytes.Cut(kv, []byte{'='}); ok && bytes.Contains(v, []byte(dir)) {
			return true
		}
	}
	return false
}
