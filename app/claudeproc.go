package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// canWaitForRewake reports whether the Claude Code that runs this hook
// runs asyncRewake hooks in the background, so that waiting for a message
// cannot stall it. Verified on the real binaries: 2.1 does, in interactive
// and stream-json sessions; 2.1 in plain -p mode, and every 2.0 and 1.x
// release, run the hook synchronously at the end of each turn. 2.1 is
// recognised by the CLAUDE_PID it gives its hooks.
func canWaitForRewake(getenv func(string) string) (pid int, ok bool) {
	pid, err := strconv.Atoi(getenv("CLAUDE_PID"))
	if err != nil || pid <= 0 {
		return 0, false
	}
	args, ok := commandLine(pid)
	if !ok {
		return 0, false // cannot tell: never risk stalling the agent
	}
	print, streamIn := false, false
	for i, a := range args {
		switch {
		case a == "-p" || a == "--print":
			print = true
		case a == "--input-format=stream-json", a == "--input-format" && i+1 < len(args) && args[i+1] == "stream-json":
			streamIn = true
		}
	}
	return pid, !print || streamIn
}

// commandLine returns a process's arguments: /proc where there is one, ps
// elsewhere (macOS; arguments with spaces are split, which the flags
// looked for survive).
func commandLine(pid int) ([]string, bool) {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), true
	}
	out, err := exec.Command("ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil, false
	}
	return strings.Fields(string(out)), true
}

// alive reports whether process pid still runs.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}
