// Package pairing remembers which workspaces are paired with Chrome and how
// much a browser may see (DESIGN.md, "Security": only paired workspaces are
// visible to the browser unless the user chooses to expose all).
//
// The state is one small JSON file, rewritten atomically on every change.
// The tray's checkbox, the CLI and the HTTP API all change it through the
// same Store, and watchers (open streams, the tray) hear of each change.
package pairing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// Exposure says which workspaces a browser may see.
const (
	ExposePaired = "paired" // only paired workspaces (the default)
	ExposeAll    = "all"    // every workspace
)

// Pair records when a workspace was paired. Seq orders pairings even when
// two land within the clock's resolution.
type Pair struct {
	At  time.Time `json:"at"`
	Seq int64     `json:"seq"`
}

type state struct {
	Exposure string          `json:"exposure"`
	Paired   map[string]Pair `json:"paired"`
	Seq      int64           `json:"seq"`
}

// Store is the pairing state, persisted at its path.
type Store struct {
	path string
	// SetAside is where Open moved a damaged state file ("" if none).
	SetAside string
	// Announce, when set, is called after each change of a workspace's
	// pairing is saved and before watchers are told, so an announcement
	// published into the workspace's stream is already queued for its
	// subscribers when they look at the new state.
	Announce func(id string, paired bool)

	mu       sync.Mutex
	st       state
	watchers map[chan struct{}]struct{}
}

// Open loads the state at path. A missing file is an empty state; a
// damaged one is moved aside (see SetAside) rather than lose the ability
// to start, and the bridge begins with nothing paired.
func Open(path string) (*Store, error) {
	s := &Store{path: path, st: state{Exposure: ExposePaired, Paired: map[string]Pair{}},
		watchers: map[chan struct{}]struct{}{}}
	b, err := regular.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("read pairing state: %w", err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil || (st.Exposure != ExposePaired && st.Exposure != ExposeAll) {
		aside := fmt.Sprintf("%s.damaged-%d", path, time.Now().Unix())
		if err := os.Rename(path, aside); err != nil {
			return nil, fmt.Errorf("pairing state %s is damaged and cannot be moved aside: %w", path, err)
		}
		s.SetAside = aside
		return s, nil
	}
	if st.Paired == nil {
		st.Paired = map[string]Pair{}
	}
	s.st = st
	return s, nil
}

// Pair pairs a workspace with Chrome. Pairing one that is already paired
// makes it the most recent, which is the one a follow stream shows.
func (s *Store) Pair(id string) error {
	s.mu.Lock()
	_, was := s.st.Paired[id]
	s.st.Seq++
	s.st.Paired[id] = Pair{At: time.Now().UTC(), Seq: s.st.Seq}
	if err := s.saveLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	s.changed(id, true, !was)
	return nil
}

// PairIfNone pairs a workspace only while no workspace that exists (as
// exists says) is paired, checked and changed under one lock: what a
// browser may do when it is offered the one workspace driving it (see
// api's browser pairing). It reports whether it paired.
func (s *Store) PairIfNone(id string, exists func(id string) bool) (bool, error) {
	s.mu.Lock()
	for other := range s.st.Paired {
		if exists(other) {
			s.mu.Unlock()
			return false, nil
		}
	}
	s.st.Seq++
	s.st.Paired[id] = Pair{At: time.Now().UTC(), Seq: s.st.Seq}
	if err := s.saveLocked(); err != nil {
		delete(s.st.Paired, id)
		s.mu.Unlock()
		return false, err
	}
	s.mu.Unlock()
	s.changed(id, true, true)
	return true, nil
}

// Unpair unpairs a workspace; unpairing one that is not paired does nothing.
func (s *Store) Unpair(id string) error {
	s.mu.Lock()
	if _, ok := s.st.Paired[id]; !ok {
		s.mu.Unlock()
		return nil
	}
	delete(s.st.Paired, id)
	if err := s.saveLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	s.changed(id, false, true)
	return nil
}

// SetExposure sets what a browser may see: ExposePaired or ExposeAll.
func (s *Store) SetExposure(e string) error {
	if e != ExposePaired && e != ExposeAll {
		return fmt.Errorf("exposure must be %q or %q, not %q", ExposePaired, ExposeAll, e)
	}
	s.mu.Lock()
	if s.st.Exposure == e {
		s.mu.Unlock()
		return nil
	}
	s.st.Exposure = e
	if err := s.saveLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	s.changed("", false, false)
	return nil
}

// Exposure returns what a browser may see.
func (s *Store) Exposure() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Exposure
}

// Paired reports whether a workspace is paired, and since when.
func (s *Store) Paired(id string) (Pair, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.st.Paired[id]
	return p, ok
}

// Latest returns the most recently paired workspace among those exists
// accepts (a paired workspace that is gone for now is skipped).
func (s *Store) Latest(exists func(id string) bool) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best string
	var bestSeq int64 = -1
	for id, p := range s.st.Paired {
		if p.Seq > bestSeq && exists(id) {
			best, bestSeq = id, p.Seq
		}
	}
	return best, bestSeq >= 0
}

// Watch returns a channel that receives a value after each change (changes
// in quick succession may be folded into one) and a func to stop watching.
func (s *Store) Watch() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	s.mu.Lock()
	s.watchers[c] = struct{}{}
	s.mu.Unlock()
	return c, func() {
		s.mu.Lock()
		delete(s.watchers, c)
		s.mu.Unlock()
	}
}

func (s *Store) changed(id string, paired, announce bool) {
	if announce && s.Announce != nil {
		s.Announce(id, paired)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.watchers {
		select {
		case c <- struct{}{}:
		default: // a change is already pending for this watcher
		}
	}
}

func (s *Store) saveLocked() error {
	b, err := json.MarshalIndent(s.st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode pairing state: %w", err)
	}
	if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save pairing state: %w", err)
	}
	return nil
}
