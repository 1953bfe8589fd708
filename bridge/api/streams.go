package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

// stream serves one workspace's session stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// Listen for rotation and unpairing before checking, so neither can
	// slip in between the check and the stream.
	ctx, cancel := s.streamContext(r)
	defer cancel()
	var changes <-chan struct{}
	if s.Pairing != nil && s.browserScoped(r) {
		var stop func()
		changes, stop = s.Pairing.Watch()
		defer stop()
	}
	if s.credential(r) == credNone {
		unauthorized(w, "the token was rotated")
		return
	}
	if _, ok := s.lookup(w, r); !ok {
		return
	}
	t, ok := s.Engine.Topic(id)
	if !ok {
		writeError(w, http.StatusNotFound, "unknown workspace: "+id)
		return
	}
	if fromBrowser(r) {
		s.viewers.add(id, 1)
		defer s.viewers.add(id, -1)
	}
	if changes != nil {
		// Unpairing ends a browser's stream, right after the pairing event
		// that announces it (SSE.Serve writes what is queued first).
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-changes:
					if !s.visible(r, id) {
						cancel()
						return
					}
				}
			}
		}()
	}
	var keep func(*stream.Item) bool
	if session := r.URL.Query().Get("session"); session != "" {
		// One session of the workspace: its own events, and those that
		// belong to no session (pairing).
		keep = func(it *stream.Item) bool { return it.SessionID == "" || it.SessionID == session }
	}
	sse := s.SSE
	sse.Raw = streamConn // written on the publisher's goroutine while it keeps up
	sse.ServeFiltered(ctx, w, r, t, keep)
}

// streamContext is a stream's lifetime: until the client leaves, the bridge
// stops, or the token is rotated (whoever was let in with the old one,
// directly or through a cookie made from it, is cut off).
func (s *Server) streamContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	var stops []func() bool
	if s.Done != nil {
		stops = append(stops, context.AfterFunc(s.Done, cancel))
	}
	if s.Token != nil {
		rotated := s.Token.Rotated()
		go func() {
			select {
			case <-rotated:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// followStream serves GET /session/stream: the most recently paired
// workspace's stream, switching (with a session event) when the pairing
// changes, so a side panel needs no matching logic of its own.
func (s *Server) followStream(w http.ResponseWriter, r *http.Request) {
	if s.Pairing == nil {
		writeError(w, http.StatusNotFound, "pairing is not enabled")
		return
	}
	ctx, cancel := s.streamContext(r)
	defer cancel()
	if s.credential(r) == credNone {
		unauthorized(w, "the token was rotated")
		return
	}
	if fromBrowser(r) {
		s.viewers.add("", 1) // "" counts follow streams: they show the latest pairing
		defer s.viewers.add("", -1)
	}
	f := &follower{s: s, changed: make(chan struct{}, 1)}
	go f.watch(ctx)
	s.SSE.Follow(ctx, w, r, f)
}

// follower picks the most recently paired workspace that exists.
type follower struct {
	s       *Server
	changed chan struct{}

	mu   sync.Mutex
	last string // the workspace Pick last chose
}

func (f *follower) setLast(id string) {
	f.mu.Lock()
	f.last = id
	f.mu.Unlock()
}

func (f *follower) getLast() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *follower) latest() string {
	id, _ := f.s.Pairing.Latest(func(id string) bool {
		_, ok := f.s.Engine.Topic(id)
		return ok
	})
	return id
}

func (f *follower) Pick() *stream.Topic {
	id := f.latest()
	f.setLast(id)
	if id == "" {
		return nil
	}
	t, _ := f.s.Engine.Topic(id)
	return t
}

func (f *follower) Changed() <-chan struct{} { return f.changed }

func (f *follower) Announce(id string) event.Event {
	e := event.Event{Type: event.Session, TS: time.Now().UTC(), Workspace: id, Paired: id != "", Reason: event.FollowReason}
	if in, ok := f.s.Engine.Workspace(id); ok {
		e.SessionID, e.Path = in.SessionID, in.Transcript
	}
	return e
}

// watch wakes the stream when the pairing changes, and when the workspace
// it should show changes for another reason (a paired workspace appearing
// or going away), which it checks every second.
func (f *follower) watch(ctx context.Context) {
	changes, stop := f.s.Pairing.Watch()
	defer stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-tick.C:
			if f.latest() == f.getLast() {
				continue
			}
		}
		select {
		case f.changed <- struct{}{}:
		default:
		}
	}
}
