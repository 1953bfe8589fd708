package api

import "sync"

// viewers counts the browser streams open per workspace, so the tray can
// keep quiet about a turn the person is watching in the browser.
type viewers struct {
	mu sync.Mutex
	n  map[string]int // "" counts follow streams
}

func (v *viewers) add(id string, d int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.n == nil {
		v.n = map[string]int{}
	}
	v.n[id] += d
	if v.n[id] <= 0 {
		delete(v.n, id)
	}
}

func (v *viewers) count(id string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.n[id]
}

// Viewing reports whether a browser is showing workspace id right now: a
// stream of it is open, or a follow stream is open and it is the most
// recently paired workspace.
func (s *Server) Viewing(id string) bool {
	if s.viewers.count(id) > 0 {
		return true
	}
	if s.viewers.count("") == 0 || s.Pairing == nil {
		return false
	}
	latest, ok := s.Pairing.Latest(func(w string) bool { _, ok := s.Engine.Topic(w); return ok })
	return ok && latest == id
}
