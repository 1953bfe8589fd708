package api

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// TestListCacheAnswersAsAFreshEncoding: whatever changes between calls
// (a status, a session, a pairing, a workspace gone or added), the cached
// list is byte for byte what encoding the whole list gives, and a
// workspace that did not change is not encoded again.
func TestListCacheAnswersAsAFreshEncoding(t *testing.T) {
	ws := func(id, status string, sessions ...Session) Workspace {
		j := Workspace{WorkspaceHead: WorkspaceHead{ID: id, Name: "<" + id + ">", Status: status,
			StatusSince: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC), Stream: "/workspace/" + id + "/session/stream"},
			Sessions: []Session{}}
		j.Sessions = append(j.Sessions, sessions...)
		return j
	}
	s1 := Session{SessionID: "s1", Agent: "claude", Status: "idle", LastEventID: 3}
	steps := []struct {
		name      string
		list      []Workspace
		unchanged []string // encoded last time and still the same
	}{
		{"first", []Workspace{ws("a", "idle"), ws("b", "idle", s1), ws("c", "working")}, nil},
		{"a status", []Workspace{ws("a", "working"), ws("b", "idle", s1), ws("c", "working")}, []string{"b", "c"}},
		{"a session", []Workspace{ws("a", "working"), ws("b", "idle", s1, Session{SessionID: "s2"}), ws("c", "working")}, []string{"a", "c"}},
		{"c gone", []Workspace{ws("a", "working"), ws("b", "idle", s1, Session{SessionID: "s2"})}, []string{"a", "b"}},
		{"c back, paired", []Workspace{ws("a", "working"), ws("b", "idle", s1, Session{SessionID: "s2"}), func() Workspace {
			j := ws("c", "working")
			j.Paired = true
			return j
		}()}, []string{"a", "b"}},
		{"none visible", []Workspace{}, nil},
	}
	var c listCache
	prev := map[string][]byte{}
	for _, st := range steps {
		got := c.body(nil, slices.Values(st.list), len(st.list))
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"workspaces": st.list})
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s:\n got %s\nwant %s", st.name, got, want.Bytes())
		}
		for _, id := range st.unchanged {
			if e := c.m[id]; e == nil || &e.data[0] != &prev[id][0] {
				t.Errorf("%s: %s was encoded again", st.name, id)
			}
		}
		if len(c.m) > len(st.list) {
			t.Errorf("%s: the cache holds %d workspaces for a list of %d", st.name, len(c.m), len(st.list))
		}
		for id, e := range c.m {
			prev[id] = e.data
		}
		// As the handler calls it: one Sessions slice for every workspace.
		var r listCache
		reusing := func(yield func(Workspace) bool) {
			var scratch []Session
			for _, j := range st.list {
				scratch = append(scratch[:0], j.Sessions...)
				j.Sessions = scratch
				if !yield(j) {
					return
				}
			}
		}
		r.body(nil, reusing, len(st.list))
		if got := r.body(nil, reusing, len(st.list)); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s, sessions slice reused:\n got %s\nwant %s", st.name, got, want.Bytes())
		}
	}
}

// TestWarmListEncodesBeforeTheFirstCall: after WarmList every workspace
// is in the cache, so the first GET /api/workspaces encodes none of them
// again and answers as an unwarmed server does.
func TestWarmListEncodesBeforeTheFirstCall(t *testing.T) {
	warm := newEnv(t)
	warm.srv.WarmList()
	if n, want := len(warm.srv.list.m), len(warm.srv.Engine.Workspaces()); n != want || n == 0 {
		t.Fatalf("warmed cache holds %d workspaces, want %d", n, want)
	}
	encoded := map[string]*byte{}
	for id, e := range warm.srv.list.m {
		encoded[id] = &e.data[0]
	}
	body := func(e *env) []byte {
		resp := e.send(t, req{path: "/api/workspaces", bearer: e.token.Value()})
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return b.Bytes()
	}
	got := body(warm)
	for id, e := range warm.srv.list.m {
		if &e.data[0] != encoded[id] {
			t.Errorf("%s was encoded again by the first call", id)
		}
	}
	warm.srv.list.m = nil // as if never warmed
	if want := body(warm); !bytes.Equal(got, want) {
		t.Errorf("warmed answer differs:\n got %s\nwant %s", got, want)
	}
}
