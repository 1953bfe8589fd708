package proc

import (
	"slices"
	"sync"
	"time"
)

// Table reads the process table again and again, as the workspace scan
// does, reading again only what may have changed: a process read twice
// alike (so not caught between its fork and its exec, when it still
// shows its parent's arguments) under the same pid — and, on macOS, the
// same name — keeps what was read then, until Fresh has passed since.
// A new process is read at once, so a new agent is found by the next
// walk as before; only a process that execs another program under its
// pid long after it began (a shell's `exec claude`) waits up to Fresh.
// On Linux a walk of known processes is one directory read instead of
// six system calls a process; on macOS, one sysctl instead of one a
// process.
type Table struct {
	// Fresh is how long a process's reading is trusted (default 1 min).
	Fresh time.Duration

	root  string           // procRoot, or a test's folder
	now   func() time.Time // time.Now, or a test's clock
	mu    sync.Mutex
	known map[int]reading
}

// reading is what a walk read of one process.
type reading struct {
	p    Process
	at   time.Time // when it was read
	sure bool      // read twice alike
}

// NewTable returns a Table of the system's process table.
func NewTable() *Table { return &Table{root: procRoot, now: time.Now} }

// List reads the table, as List does.
func (t *Table) List() ([]Process, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fresh := t.Fresh
	if fresh <= 0 {
		fresh = time.Minute
	}
	now := t.now()
	kept := make(map[int]bool)
	ps, err := list(t.root, func(pid int, comm string) (Process, bool) {
		r, ok := t.known[pid]
		if !ok || !r.sure || now.Sub(r.at) >= fresh || (comm != "" && comm != r.p.Comm) {
			return Process{}, false
		}
		kept[pid] = true
		return r.p, true
	})
	if err != nil {
		return nil, err
	}
	known := make(map[int]reading, len(ps))
	for _, p := range ps {
		if kept[p.PID] {
			known[p.PID] = t.known[p.PID]
			continue
		}
		old, ok := t.known[p.PID]
		known[p.PID] = reading{p: p, at: now, sure: ok && old.p.Comm == p.Comm && slices.Equal(old.p.Args, p.Args)}
	}
	t.known = known
	return ps, nil
}
