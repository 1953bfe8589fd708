package tray

import (
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// agentTabs is "Docs sweep", a Conductor workspace with a Cursor tab and
// an untitled OpenCode tab, labelled as the engine labels them.
func agentTabs(now time.Time) engine.Info {
	w := ws("c2", "osaka", "shop", event.StateWorking, now, discover.SourceConductorDB)
	w.DisplayName = "Docs sweep"
	w.Sessions = []engine.SessionInfo{
		{SessionID: "cs-cursor-tab", ConductorID: "cs-cursor-tab", Agent: "cursor", Label: "Cursor", Title: "Fix CSS",
			Status: event.StateWorking, Active: true, Streamed: true, LastActivity: now},
		{SessionID: "ses_4f2a9c01", ConductorID: "cs-oc", Agent: "acp", Label: "OpenCode",
			Status: event.StateWorking, Streamed: true, LastActivity: now},
	}
	return w
}

// TestNotificationsLabelEveryAgent: a notification names the tab's agent
// as the menu and the viewer do ("Fix CSS · Cursor"), for a Cursor or an
// OpenCode tab among several, for a workspace's only tab, and in the body
// of a prompt or a failure.
func TestNotificationsLabelEveryAgent(t *testing.T) {
	only := ws("c3", "kyoto", "shop", event.StateWorking, time.Now(), discover.SourceConductorDB)
	only.Sessions = []engine.SessionInfo{{SessionID: "ses_77aa", ConductorID: "cs-k", Agent: "acp", Label: "OpenCode",
		Status: event.StateWorking, Active: true, Streamed: true, LastActivity: time.Now()}}
	for _, tt := range []struct {
		name, ws, session string
		evs               []event.Event
		want              string
	}{
		{"a Cursor tab finishes", "c2", "cs-cursor-tab", turn("The buttons line up now.", 65, 0.12),
			"Docs sweep · Fix CSS · Cursor finished | The buttons line up now.\n$0.12 · 1m 05s"},
		{"an OpenCode tab finishes", "c2", "ses_4f2a9c01", turn("Docs tidied.", 40, 0.05),
			"Docs sweep · ses_4f2a · OpenCode finished | Docs tidied.\n$0.05 · 40s"},
		{"an OpenCode tab asks", "c2", "ses_4f2a9c01", []event.Event{{Type: event.Status, State: event.StateNeedsInput, Reason: "question"}},
			"Docs sweep · ses_4f2a · OpenCode needs your input | OpenCode asks you a question"},
		{"a Cursor tab fails", "c2", "cs-cursor-tab", []event.Event{{Type: event.Status, State: event.StateError, Reason: "rate_limit"}},
			"Docs sweep · Fix CSS · Cursor failed | Cursor stopped with an error: rate limit"},
		{"a workspace's only tab, OpenCode's, finishes", "c3", "ses_77aa", turn("Done.", 40, 0.05),
			"kyoto · OpenCode finished | Done.\n$0.05 · 40s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newTabRig(t, agentTabs(time.Now()), only)
			publishAs(r, tt.ws, tt.session, tt.evs...)
			r.eventually(t, "a notification", func() bool { return len(r.notes.all()) == 1 })
			if got := r.notes.all()[0]; got != tt.want {
				t.Errorf("notification\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
