package stream

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Hub owns every workspace's topic.
type Hub struct {
	// Log reports damage found in a journal as it is loaded (nil: none).
	Log func(msg string)

	dir     string // journal directory; "" keeps topics in memory only
	history int

	mu      sync.Mutex
	topics  map[string]*Topic
	opening map[string]chan struct{} // ids whose journal is being loaded
	fds     *fdBudget                // bounds the journal files held open
	last    time.Time                // when an earlier run last wrote a journal (see LastWritten)
}

// NewHub returns a hub journaling into dir ("" for none) and keeping
// history events per topic (0 for DefaultHistory).
func NewHub(dir string, history int) *Hub {
	if history <= 0 {
		history = DefaultHistory
	}
	return &Hub{dir: dir, history: history, topics: make(map[string]*Topic), fds: newFDBudget(DefaultOpenJournals), last: lastWritten(dir)}
}

// LastWritten is when the bridge last wrote any journal before this run
// (the newest journal's modification time as the hub was made), zero when
// there was none: a first start. A record changed after it changed while
// no bridge was looking, and what it gained is news, not history.
func (h *Hub) LastWritten() time.Time { return h.last }

// lastWritten is the newest modification time of the journals in dir.
func lastWritten(dir string) time.Time {
	var last time.Time
	if dir == "" {
		return last
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return last
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".jsonl" {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().After(last) {
			last = info.ModTime()
		}
	}
	return last
}

// SetOpenJournals sets how many journal files the hub keeps open at once
// (see OpenJournalsFor); call it before the first topic.
func (h *Hub) SetOpenJournals(n int) {
	if n > 0 {
		h.fds.lru.Max = n
	}
}

// ReleaseIdle closes the files of journals not written for d (each
// reopens on its next write), and reports how many it closed.
func (h *Hub) ReleaseIdle(d time.Duration) int {
	idle := h.fds.idle(h.fds.now().Add(-d))
	for _, j := range idle {
		j.release()
	}
	return len(idle)
}

// Topic returns the topic for id, loading its journal the first time.
// The journal is opened and read outside the hub's lock: a cold start
// opens a thousand topics, and they need not wait on one another.
func (h *Hub) Topic(id string) (*Topic, error) {
	for {
		h.mu.Lock()
		if t, ok := h.topics[id]; ok {
			h.mu.Unlock()
			return t, nil
		}
		wait, busy := h.opening[id]
		if !busy {
			if h.opening == nil {
				h.opening = make(map[string]chan struct{})
			}
			h.opening[id] = make(chan struct{})
		}
		h.mu.Unlock()
		if busy {
			<-wait // another caller is opening it: take theirs
			continue
		}
		t, err := h.open(id)
		h.mu.Lock()
		if err == nil {
			h.topics[id] = t
		}
		close(h.opening[id])
		delete(h.opening, id)
		h.mu.Unlock()
		return t, err
	}
}

func (h *Hub) open(id string) (*Topic, error) {
	var j *Journal
	if h.dir != "" {
		var err error
		j, err = OpenJournal(filepath.Join(h.dir, journalName(id)))
		if err != nil {
			return nil, fmt.Errorf("topic %s: %w", id, err)
		}
	}
	t, err := newTopic(id, h.history, j)
	if err != nil {
		if j != nil {
			j.Close()
		}
		return nil, err
	}
	if j != nil && j.Damaged != nil && h.Log != nil {
		h.Log(j.Damaged.Error())
	}
	if j != nil {
		j.budget, j.log = h.fds, h.Log
		if victim := h.fds.use(j); victim != nil {
			victim.release()
		}
	}
	return t, nil
}

// OpenJournals is how many journal files the hub holds open now: at most
// DefaultOpenJournals, however many workspaces there are.
func (h *Hub) OpenJournals() int { return h.fds.openFiles() }

// Lookup returns the topic for id if it has been opened.
func (h *Hub) Lookup(id string) (*Topic, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[id]
	return t, ok
}

// Drop closes a topic whose workspace went away: its journal file is
// closed and its subscribers' streams end. Topic(id) loads it again from
// the journal if the workspace comes back, numbering on where it stopped.
func (h *Hub) Drop(id string) {
	h.mu.Lock()
	t, ok := h.topics[id]
	delete(h.topics, id)
	h.mu.Unlock()
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.journal != nil {
		t.journal.Close()
		t.journal = nil
	}
	for s := range t.subs {
		s.close(false)
	}
	t.subs = map[*Subscriber]struct{}{}
}

// Close closes every journal. Topics must not be published to afterwards.
func (h *Hub) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var first error
	for _, t := range h.topics {
		t.mu.Lock()
		if t.journal != nil {
			if err := t.journal.Close(); err != nil && first == nil {
				first = err
			}
			t.journal = nil
		}
		for s := range t.subs {
			s.close(false)
		}
		t.subs = map[*Subscriber]struct{}{}
		t.mu.Unlock()
	}
	return first
}

// journalName maps a workspace id to a file name. Ids are usually safe
// already; anything else is hashed so no id can escape the directory.
func journalName(id string) string {
	safe := id != ""
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			safe = false
			break
		}
	}
	if safe && len(id) <= 100 {
		return id + ".jsonl"
	}
	sum := sha256.Sum256([]byte(id))
	return "h-" + hex.EncodeToString(sum[:12]) + ".jsonl"
}
