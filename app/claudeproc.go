package main

import (
	"strconv"

	"conductorbridge/bridge/proc"
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

// commandLine returns a process's arguments from the process table, read
// in-process on Linux and macOS alike (bridge/proc): no ps to fork.
func commandLine(pid int) ([]string, bool) {
	args, err := proc.Args(pid)
	return args, err == nil
}
