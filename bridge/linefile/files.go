package linefile

import (
	"io/fs"
	"os"
	"sync"
	"time"

	"conductorbridge/bridge/lru"
	"conductorbridge/bridge/regular"
)

// Files bounds the records Readers keep open between reads. Opening,
// statting and closing a record for every line an agent writes cost a
// tenth of the bridge's CPU at 200 agents × 10 lines/s; a Reader given
// Files keeps its file open and looks at it with one fstat instead (and
// at its path when it has not grown), or, told Unchanged, at nothing:
// one pread is a line.
// The records read most recently keep their file; past the bound the
// least recently read one is closed (and opened again on its next read),
// and ReleaseIdle closes those not read for a while: descriptors follow
// the agents at work, not the sessions there are. Safe for concurrent use.
type Files struct {
	lru *lru.List[*heldFile] // most recently read first
	now func() time.Time     // time.Now; tests set it
}

// DefaultOpenFiles is how many records a Files keeps open unless the
// descriptor limit says otherwise (OpenFilesFor).
const DefaultOpenFiles = 128

// NewFiles keeps at most max records open.
func NewFiles(max int) *Files {
	return &Files{lru: lru.New[*heldFile](max), now: time.Now}
}

// OpenFilesFor is the budget for a process allowed limit descriptors: an
// eighth of them, at least 32 and at most 256, as for the journals (two
// hundred busy sessions keep their record, a thousand idle ones do not).
func OpenFilesFor(limit uint64) int {
	return int(min(max(limit/8, 32), 256))
}

// heldFile is one Reader's open record. Its owner reads under mu; the
// budget closes it under mu too, so never in the middle of a read.
type heldFile struct {
	mu   sync.Mutex
	f    *os.File // nil: closed
	info fs.FileInfo
	raw  rawRecord // f's calls made raw where they cannot wait (raw_linux.go)
}

// use marks h as just read and returns the file to close to stay within
// the budget, if any. The caller closes it without holding h.mu: two held
// files' locks are never held together.
func (b *Files) use(h *heldFile) *heldFile {
	if victim, ok := b.lru.Use(h, b.now()); ok {
		return victim
	}
	return nil
}

// forget takes h out of the budget (its file is closed).
func (b *Files) forget(h *heldFile) { b.lru.Forget(h) }

// ReleaseIdle closes the records not read for d and reports how many.
func (b *Files) ReleaseIdle(d time.Duration) int {
	idle := b.lru.Idle(b.now().Add(-d))
	for _, h := range idle {
		h.release()
	}
	return len(idle)
}

// Open is how many records the budget holds open.
func (b *Files) Open() int { return b.lru.Len() }

// release closes h's file until its next read.
func (h *heldFile) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closeLocked()
}

func (h *heldFile) closeLocked() {
	if h.f != nil {
		h.f.Close()
		h.f, h.info = nil, nil
	}
}

// still reports whether the held file is still what path names, with its
// stat. The common case, a record that grew, costs one fstat: a file
// that grew and still has a name is the one being written (a file
// replaced by rename or deleted has none left). So does one the caller
// vouched for (unchanged: no file made, moved or deleted in its folder
// since the last read) that still has a name. Otherwise the path's own
// stat says whether it names another file now, or nothing, or no regular
// file: a replacement shows there however it was made.
func (h *heldFile) still(path string, seen int64, unchanged bool) (fs.FileInfo, bool) {
	if info, err := h.stat(); err == nil && linked(info) && (unchanged || info.Size() > seen) {
		return info, true
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || !os.SameFile(info, h.info) {
		return nil, false
	}
	return info, true
}

// opened is r's record open, as Read needs it: the file, and either its
// stat or, for a held file the caller vouched for (Unchanged), the bytes
// that follow Seen, read into buf before anything else.
type opened struct {
	f     *os.File
	info  fs.FileInfo // nil: not looked at; first holds what was read
	first []byte
	held  *heldFile // f is held open, under held.mu; nil: f is this read's own
}

// done ends the read: a held file is let go of, one opened for the read
// closed.
func (o opened) done() {
	if o.held != nil {
		o.held.mu.Unlock()
		return
	}
	o.f.Close()
}

// openHeld returns r's record open. Without Files it is opened for this
// read alone. With Files the file stays open between reads (see still);
// a replaced one is opened again, so Read sees the new file as it would
// have on its own. A held file the caller vouched for is not looked at
// when it has grown: one pread into buf, no stat, is a busy agent's line;
// one that has not is looked at with its fstat alone (still).
func (r *Reader) openHeld(unchanged bool, buf []byte) (opened, error) {
	if r.Files == nil {
		f, info, err := regular.OpenInfo(r.Path) // a FIFO named *.jsonl must not hang the follower
		if err != nil {
			return opened{}, err
		}
		return opened{f: f, info: info}, nil
	}
	if r.held == nil {
		r.held = &heldFile{}
	}
	h := r.held
	if victim := r.Files.use(h); victim != nil {
		victim.release()
	}
	h.mu.Lock()
	if h.f != nil {
		if unchanged {
			if n, _ := h.readOnce(buf, r.Seen()); n > 0 {
				return opened{f: h.f, first: buf[:n], held: h}, nil
			}
		}
		if info, ok := h.still(r.Path, r.Seen(), unchanged); ok {
			return opened{f: h.f, info: info, held: h}, nil
		}
		h.closeLocked() // gone or replaced: open what is there now
	}
	f, info, err := regular.OpenInfo(r.Path)
	if err != nil {
		h.mu.Unlock()
		r.Files.forget(h)
		return opened{}, err
	}
	h.f, h.info = f, info
	h.raw = rawRecordOf(f)
	return opened{f: f, info: info, held: h}, nil
}

// Close closes the record a Reader with Files keeps open; a later Read
// opens it again.
func (r *Reader) Close() {
	if r.held == nil {
		return
	}
	r.held.release()
	if r.Files != nil {
		r.Files.forget(r.held)
	}
}
