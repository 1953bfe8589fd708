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

// raiseFileLimit raises the soft RLIMIT_NOFILE towards the hard limit,
// bounded by maxFileLimit: a launchd agent starts with 256, which kqueue
// (a descriptor per watched path) and 500 SSE clients would exhaust. It
// returns the soft limit before and after.
//
// One call is enough on every macOS this binary runs on (Go 1.25 and
// later need macOS 12): since macOS 11 setrlimit accepts any soft limit
// up to the hard one, and the kernel itself holds the process to
// kern.maxfilesperproc; httplimit.FileLimit says how many that leaves.
// (Before, a soft limit above kern.maxfilesperproc was refused with
// EINVAL, which a retry at 10240, OPEN_MAX, worked around.)
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
	r.Cur = want
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return before, before, fmt.Errorf("raise the descriptor limit from %d to %d: %w", before, want, err)
	}
	return before, want, nil
}
