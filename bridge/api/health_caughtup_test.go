package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// caughtUpEngine is an engine still reading its workspaces until done.
type caughtUpEngine struct {
	*fakeEngine
	done chan struct{}
}

func (c caughtUpEngine) CaughtUp() <-chan struct{} { return c.done }

// TestHealthSaysWhenCaughtUp: /health reports caught_up false while the
// start's reading goes on and true after, so a tool waits on it rather
// than listing a thousand workspaces again and again.
func TestHealthSaysWhenCaughtUp(t *testing.T) {
	eng := caughtUpEngine{fakeEngine: &fakeEngine{}, done: make(chan struct{})}
	s := &Server{Engine: eng}
	get := func() bool {
		rec := httptest.NewRecorder()
		s.health(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
		var h struct {
			CaughtUp *bool `json:"caught_up"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil || h.CaughtUp == nil {
			t.Fatalf("health %s: no caught_up (%v)", rec.Body, err)
		}
		return *h.CaughtUp
	}
	if get() {
		t.Error("caught_up before the engine caught up")
	}
	close(eng.done)
	if !get() {
		t.Error("caught_up still false after the engine caught up")
	}
}
