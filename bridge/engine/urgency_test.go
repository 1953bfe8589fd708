package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// TestSessionStatesAndTheirRanking checks each session's state as the
// transcript and Conductor's sessions.status make it, and the workspace's
// state as the most urgent of them: needs input > error > working > idle.
func TestSessionStatesAndTheirRanking(t *testing.T) {
	type tab struct {
		conductor string // sessions.status
		busy      bool   // the transcript has a prompt not yet answered
		unread    bool   // an agent the bridge does not read (status only)
		want      string // the session's state
		reason    string
	}
	tests := []struct {
		name   string
		tabs   []tab
		want   string
		reason string
	}{
		{"a question in Conductor", []tab{
			{conductor: "needs_user_input", want: event.StateNeedsInput, reason: "question"},
			{conductor: "idle", want: event.StateIdle},
		}, event.StateNeedsInput, "question"},
		{"a question in a tab the bridge does not read", []tab{
			{conductor: "idle", want: event.StateIdle},
			{conductor: "needs_user_input", unread: true, want: event.StateNeedsInput, reason: "question"},
		}, event.StateNeedsInput, "question"},
		{"error outranks working", []tab{
			{conductor: "working", busy: true, want: event.StateWorking},
			{conductor: "error", want: event.StateError},
		}, event.StateError, ""},
		{"needs input outranks error", []tab{
			{conductor: "error", want: event.StateError},
			{conductor: "needs_plan_response", want: event.StateNeedsInput, reason: "plan"},
		}, event.StateNeedsInput, "plan"},
		{"working outranks idle", []tab{
			{conductor: "idle", want: event.StateIdle},
			{conductor: "working", busy: true, want: event.StateWorking},
		}, event.StateWorking, ""},
		{"the transcript says working before Conductor's idle", []tab{
			{conductor: "idle", busy: true, want: event.StateWorking},
		}, event.StateWorking, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			dir, proj := h.workspace("rank")
			var sessions []discover.Session
			for i, tb := range tt.tabs {
				id := fmt.Sprintf("aaaaaaaa-1111-4111-8111-%012d", i+1)
				s := discover.Session{ID: id, ConductorID: fmt.Sprintf("tab-%d", i), Agent: "claude",
					Title: fmt.Sprintf("tab %d", i), Active: i == 0, ConductorStatus: tb.conductor}
				if tb.unread {
					s.Agent = "cursor"
				} else {
					cwdOf[id] = dir
					s.Transcript = filepath.Join(proj, id+".jsonl")
					lines := []string{prompt(id, "go")}
					if !tb.busy {
						lines = append(lines, answer(id, fmt.Sprintf("m%d", i), "done", "end_turn"))
					}
					h.write(s.Transcript, lines...)
				}
				sessions = append(sessions, s)
			}
			r, ts := h.startTabs()
			ts.set(dir, sessions...)
			r.eng.Rescan(context.Background())
			id := r.waitWorkspace(t, dir)
			waitFor(t, "every tab's state", func() bool {
				in, _ := r.eng.Workspace(id)
				for i, tb := range tt.tabs {
					s, ok := sessionOf(in, sessions[i].ID)
					if !ok || s.Status != tb.want || s.Reason != tb.reason {
						return false
					}
				}
				return in.Status == tt.want && in.Reason == tt.reason
			})
		})
	}
}
