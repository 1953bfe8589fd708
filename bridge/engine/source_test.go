package engine

import (
	"testing"

	"conductorbridge/bridge/discover"
)

// TestListingSaysSourceAndLabel: each session says what it is streamed
// from (its reader's name) and how a person reads its agent; a tab whose
// agent has no reader is listed with its agent's name capitalised and no
// source ("Fix CSS · Cursor").
func TestListingSaysSourceAndLabel(t *testing.T) {
	h := newHome(t)
	const claudeTab = "cccccccc-1111-4111-8111-000000000001"
	dir, transcript := h.session("labels", claudeTab)
	h.write(transcript, prompt(claudeTab, "hello"))
	r, ts := h.startTabs()
	ts.set(dir,
		discover.Session{ID: claudeTab, ConductorID: "tab-1", Agent: "claude", Title: "Fix login", Transcript: transcript},
		discover.Session{ID: "tab-2", ConductorID: "tab-2", Agent: "cursor", Title: "Fix CSS", ConductorStatus: "working"},
		discover.Session{ID: "tab-3", ConductorID: "tab-3", Agent: "windsurf", Title: "Other", ConductorStatus: "idle"},
	)
	r.eng.Rescan(t.Context())
	id := r.waitWorkspace(t, dir)
	want := []struct {
		id, label, source string
		streamed          bool
	}{
		{claudeTab, "Claude", "claude", true},
		{"tab-2", "Cursor", "", false},
		{"tab-3", "Windsurf", "", false},
	}
	waitFor(t, "three sessions listed", func() bool {
		in, _ := r.eng.Workspace(id)
		return len(in.Sessions) == 3
	})
	in, _ := r.eng.Workspace(id)
	for _, w := range want {
		s, ok := sessionOf(in, w.id)
		if !ok {
			t.Errorf("session %s not listed: %+v", w.id, in.Sessions)
			continue
		}
		if s.Label != w.label || s.Source != w.source || s.Streamed != w.streamed {
			t.Errorf("session %s: label %q source %q streamed %v, want %q %q %v", w.id, s.Label, s.Source, s.Streamed, w.label, w.source, w.streamed)
		}
	}
	for agent, label := range map[string]string{"": "Claude", "claude": "Claude", "codex": "Codex", "cursor": "Cursor"} {
		if got := r.eng.Label(agent); got != label {
			t.Errorf("Label(%q) = %q, want %q", agent, got, label)
		}
	}
}
