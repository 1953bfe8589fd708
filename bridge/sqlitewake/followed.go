package sqlitewake

import (
	"maps"
	"slices"
	"sync"
)

// Followed is what a follower of a database follows: keys (sessions,
// tabs), each with its cursor (where its reading stands), and those
// followed since the last read, which are caught up first. Follow and
// Unfollow come from the engine's goroutines, the rest from Run's; it is
// safe for that.
type Followed[C any] struct {
	mu      sync.Mutex
	cursors map[string]C
	pending map[string]bool
	wake    chan struct{}
}

// NewFollowed returns an empty set.
func NewFollowed[C any]() *Followed[C] {
	return &Followed[C]{cursors: map[string]C{}, pending: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Follow follows key from at, again from at if it was followed, and
// wakes Run.
func (s *Followed[C]) Follow(key string, at C) {
	s.mu.Lock()
	s.cursors[key], s.pending[key] = at, true
	s.mu.Unlock()
	s.Check()
}

// Unfollow forgets key.
func (s *Followed[C]) Unfollow(key string) {
	s.mu.Lock()
	delete(s.cursors, key)
	delete(s.pending, key)
	s.mu.Unlock()
}

// Check wakes Run (Options.Wake) now.
func (s *Followed[C]) Check() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Wake is the channel Check signals, for Options.Wake.
func (s *Followed[C]) Wake() <-chan struct{} { return s.wake }

// Cursor is key's cursor, and whether key is followed.
func (s *Followed[C]) Cursor(key string) (C, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.cursors[key]
	return at, ok
}

// Move sets key's cursor, if key is still followed.
func (s *Followed[C]) Move(key string, at C) {
	s.mu.Lock()
	if _, ok := s.cursors[key]; ok {
		s.cursors[key] = at
	}
	s.mu.Unlock()
}

// Keys lists the followed keys.
func (s *Followed[C]) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.cursors))
}

// TakePending lists the keys followed since it was last called, and
// clears them.
func (s *Followed[C]) TakePending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Keys(s.pending))
	clear(s.pending)
	return out
}

// Again marks every followed key pending: after a failed read, each is
// read again from its cursor.
func (s *Followed[C]) Again() {
	s.mu.Lock()
	for k := range s.cursors {
		s.pending[k] = true
	}
	s.mu.Unlock()
}
