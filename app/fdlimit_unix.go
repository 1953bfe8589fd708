//go:build linux || darwin

package main

import (
	"fmt"
	"syscall"
)

// maxFileLimit bounds how far the soft descriptor limit is raised: far
// more than 1,000 workspaces need (a few descriptors per live session),
// and small enough that a runaway leak still hits a wall.
const maxFileLimit = 1 << 16

// darwinOpenMax is macOS's OPEN_MAX: setrlimit refuses a soft limit above
// kern.maxfilesperproc, whatever the hard limit says (often unlimited).
const darwinOpenMax = 10240

// raiseFileLimit raises the soft RLIMIT_NOFILE towards the hard limit,
// bounded by maxFileLimit: a launchd agent starts with 256, which kqueue
// (a descriptor per watched path) and 500 SSE clients would exhaust. It
// returns the limit before and after.
func raiseFileLimit() (before, after uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, fmt.Errorf("read the descriptor limit: %w", err)
	}
	before = uint64(r.Cur)
	want := min(uint64(r.Max), maxFileLimit)
	if want <= before {
		return before, before, nil
	}
	for _, try := range []uint64{want, min(want, darwinOpenMax)} {
		r.Cur = try
		if err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err == nil {
			return before, try, nil
		}
	}
	return before, before, fmt.Errorf("raise the descriptor limit from %d to %d: %w", before, want, err)
}

// fileLimit is the soft descriptor limit now (after raiseFileLimit).
func fileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return uint64(r.Cur), true
}
