package inject

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// SeenHook is the last hook call from a workspace.
type SeenHook struct {
	At    time.Time `json:"at"`
	Event string    `json:"event"`
}

// Seen remembers when a hook from each workspace last reached the bridge,
// so `doctor` can tell hooks that are installed from hooks that work. It
// is saved at most every few seconds (hooks fire many times a turn) and
// when the bridge stops.
type Seen struct {
	path  string
	mu    sync.Mutex
	m     map[string]SeenHook
	saved time.Time
	dirty bool
}

// saveEvery bounds how often a busy agent's hooks rewrite the file.
const saveEvery = 5 * time.Second

// OpenSeen loads the record at path; a missing or damaged file starts empty
// (it is only a record of the past).
func OpenSeen(path string) *Seen {
	m, _ := ReadSeen(path)
	if m == nil {
		m = map[string]SeenHook{}
	}
	return &Seen{path: path, m: m}
}

// ReadSeen reads the record without a running bridge.
func ReadSeen(path string) (map[string]SeenHook, error) {
	b, err := regular.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]SeenHook{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read hook record: %w", err)
	}
	var m map[string]SeenHook
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("hook record %s is damaged: %w", path, err)
	}
	return m, nil
}

// Record notes a hook call from workspace ws.
func (s *Seen) Record(ws, event string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC()
	s.m[ws] = SeenHook{At: now, Event: event}
	s.dirty = true
	if now.Sub(s.saved) >= saveEvery {
		s.saveLocked(now)
	}
}

// Last returns the last hook call from workspace ws.
func (s *Seen) Last(ws string) (SeenHook, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.m[ws]
	return h, ok
}

// Flush writes what is not saved yet.
func (s *Seen) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	return s.saveLocked(time.Now())
}

func (s *Seen) saveLocked(now time.Time) error {
	b, _ := json.MarshalIndent(s.m, "", "  ")
	if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save hook record: %w", err)
	}
	s.saved, s.dirty = now, false
	return nil
}
