package stream

import (
	"container/list"
	"fmt"
	"io"
	"os"
	"sync"
)

// DefaultOpenJournals is how many journal files a hub keeps open at once.
const DefaultOpenJournals = 128

// fdBudget bounds the journal files a hub keeps open, so descriptors grow
// with the workspaces being written to, not with every workspace there
// is: at a thousand workspaces (and launchd's soft limit of 256) one open
// journal each is too many. Journals written most recently keep their
// file; the least recently written one past the bound has its file
// closed, and reopens it on its next write.
type fdBudget struct {
	max int

	mu   sync.Mutex
	lru  *list.List // of *Journal, most recently written first
	open map[*Journal]*list.Element

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
	return &fdBudget{max: max, lru: list.New(), open: make(map[*Journal]*list.Element)}
}

// use marks j as just written and returns the journal whose file must be
// closed to stay within the budget, if any. The caller closes it without
// holding j's own file lock: two journals' locks are never held together.
func (b *fdBudget) use(j *Journal) *Journal {
	b.mu.Lock()
	defer b.mu.Unlock()
	if el, ok := b.open[j]; ok {
		b.lru.MoveToFront(el)
		return nil
	}
	b.open[j] = b.lru.PushFront(j)
	if b.lru.Len() <= b.max {
		return nil
	}
	el := b.lru.Back()
	b.lru.Remove(el)
	victim := el.Value.(*Journal)
	delete(b.open, victim)
	return victim
}

// forget drops j (closed for good, or its file released).
func (b *fdBudget) forget(j *Journal) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if el, ok := b.open[j]; ok {
		b.lru.Remove(el)
		delete(b.open, j)
	}
}

// openFiles is how many journal files the budget holds open.
func (b *fdBudget) openFiles() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lru.Len()
}

// release closes j's file until its next write.
func (j *Journal) release() {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	if j.f != nil && !j.closed {
		j.f.Close()
		j.f = nil
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
	f, err := os.OpenFile(j.Path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("reopen journal: %w", err)
	}
	if _, err := f.Seek(j.size, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("reopen journal: %w", err)
	}
	j.f = f
	return nil
}
