package stream

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"conductorbridge/bridge/lru"
	"conductorbridge/bridge/regular"
)

// DefaultOpenJournals is how many journal files a hub keeps open at once,
// unless told otherwise (Hub.SetOpenJournals).
const DefaultOpenJournals = 128

// OpenJournalsFor is the budget for a process allowed limit descriptors: an
// eighth of them, at least 32 and at most 256. With launchd's soft 256 a
// bridge that could not raise it keeps 32; raised, two hundred busy
// workspaces each keep their file (a reopen per write cost a tenth of the
// bridge's CPU at 200 workspaces × 10 lines/s), and a cold start on a
// thousand still holds no more than 256 (Hub.ReleaseIdle gives them back
// once unwritten for a minute).
func OpenJournalsFor(limit uint64) int {
	return int(min(max(limit/8, 32), 256))
}

// fdBudget bounds the journal files a hub keeps open, so descriptors grow
// with the workspaces being written to, not with every workspace there
// is: at a thousand workspaces (and launchd's soft limit of 256) one open
// journal each is too many. Journals written most recently keep their
// file; the least recently written one past the bound has its file
// closed, and reopens it on its next write.
type fdBudget struct {
	lru *lru.List[*Journal] // most recently written first
	now func() time.Time    // time.Now; tests set it

	lines sync.Pool // *[]byte: journal line buffers, shared by the hub's journals
}

// lineBuffer returns a buffer for one journal line (b may be nil: a
// journal opened on its own).
func (b *fdBudget) lineBuffer() *[]byte {
	if b != nil {
		if p, ok := b.lines.Get().(*[]byte); ok {
			return p
		}
	}
	return new([]byte)
}

// putLine gives a line's buffer back, unless it grew large (a backlog's
// batch).
func (b *fdBudget) putLine(p *[]byte, line []byte) {
	if b != nil && cap(line) <= maxKeptLine {
		*p = line[:0]
		b.lines.Put(p)
	}
}

func newFDBudget(max int) *fdBudget {
	return &fdBudget{lru: lru.New[*Journal](max), now: time.Now}
}

// use marks j as just written and returns the journal whose file must be
// closed to stay within the budget, if any. The caller closes it without
// holding j's own file lock: two journals' locks are never held together.
func (b *fdBudget) use(j *Journal) *Journal {
	if victim, ok := b.lru.Use(j, b.now()); ok {
		return victim
	}
	return nil
}

// idle takes out of the budget every journal last written before before,
// for the caller to release: descriptors follow the workspaces being
// written to now, not every one written since the start.
func (b *fdBudget) idle(before time.Time) []*Journal { return b.lru.Idle(before) }

// forget drops j (closed for good, or its file released).
func (b *fdBudget) forget(j *Journal) { b.lru.Forget(j) }

// openFiles is how many journal files the budget holds open.
func (b *fdBudget) openFiles() int { return b.lru.Len() }

// release closes j's file until its next write.
func (j *Journal) release() {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	if j.f != nil && !j.closed {
		j.f.Close()
		j.f, j.raw.ok = nil, false
	}
}

// reopen opens j's file again where its whole lines end. Callers hold fmu.
func (j *Journal) reopen() error {
	if j.f != nil {
		return nil
	}
	if j.closed {
		return fmt.Errorf("journal closed")
	}
	f, _, err := regular.OpenFile(j.Path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("reopen journal: %w", err)
	}
	if _, err := f.Seek(j.size, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("reopen journal: %w", err)
	}
	j.setFile(f)
	return nil
}
