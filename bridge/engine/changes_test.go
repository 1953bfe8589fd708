package engine

import (
	"os"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// Readers of the listing (the tray, Codex delivery) are told when a
// session's state changes: a prompt in an idle session makes it work,
// and its answer's end makes it idle again. Each change is told, and the
// listing read then shows it.
func TestChangesTellOfEveryStateChange(t *testing.T) {
	h := newHome(t)
	sid := "c1111111-1111-4111-8111-111111111111"
	dir, path := h.session("osaka", sid)
	h.write(path, prompt(sid, "first"), answer(sid, "m0", "done", "end_turn"))
	r := h.startWith(func(c *Config) { c.ScanEvery, c.SweepEvery = time.Minute, time.Minute })
	id, _ := r.firstTurn(t, dir)
	changes := r.eng.Changes()
	status := func() string {
		ws, _ := r.eng.Workspace(id)
		for _, s := range ws.Sessions {
			if s.SessionID == sid {
				return s.Status
			}
		}
		return ""
	}
	// waitFor waits for a change that shows want: changes are coalesced,
	// so one told may show an earlier state, never none at all.
	waitFor := func(want string) {
		t.Helper()
		for {
			select {
			case <-changes:
				if status() == want {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no change told showing %s (shows %s)", want, status())
			}
		}
	}
	if got := status(); got != event.StateIdle {
		t.Fatalf("status %q before the prompt, want idle", got)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(prompt(sid, "second") + "\n")
	waitFor(event.StateWorking)
	f.WriteString(answer(sid, "m1", "done again", "end_turn") + "\n")
	waitFor(event.StateIdle)
}
