package inject

import (
	"os"
	"strings"
	"testing"

	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// TestPushRoute, with Codex's pusher: an idle Codex session is resumed; a
// busy one (working, waiting, or held by a live process) takes the Stop
// hook on a release with hooks when it is installed, and is refused with
// a reason otherwise; a pid from a scan whose process has exited holds
// nothing.
func TestPushRoute(t *testing.T) {
	live, dead := os.Getpid(), 1<<22+12345 // beyond pid_max: no such process
	for _, tt := range []struct {
		name   string
		si     engine.SessionInfo
		hooked bool
		bin    string
		push   bool   // pushed now; false with no refusal: the Stop hook takes it
		reason string // a substring of the refusal, "" for none
	}{
		{"idle", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle}, false, "codex", true, ""},
		{"idle 0.47", engine.SessionInfo{Version: "0.47.0", Status: event.StateIdle}, false, "codex", true, ""},
		{"idle, no binary", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle}, true, "", false, "no codex binary"},
		{"working, hooked", engine.SessionInfo{Version: "0.169.0", Status: event.StateWorking}, true, "codex", false, ""},
		{"working, no hook", engine.SessionInfo{Version: "0.169.0", Status: event.StateWorking}, false, "codex", false, "Stop hook is not installed"},
		{"waiting for approval", engine.SessionInfo{Version: "0.169.0", Status: event.StateNeedsInput}, true, "codex", false, ""},
		{"held by a live process", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle, PID: live}, true, "codex", false, ""},
		{"its process has exited", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle, PID: dead}, false, "codex", true, ""},
		{"working 0.47", engine.SessionInfo{Version: "0.47.0", Status: event.StateWorking}, true, "codex", false, "0.47.0 has no hooks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &Delivery{Pusher: codexagent.Pusher{Bin: tt.bin, Hooked: func() bool { return tt.hooked }}}
			push, refusal := d.route(tt.si)
			switch {
			case tt.reason == "" && (refusal != "" || push != tt.push):
				t.Errorf("push %v, refusal %q; want push %v", push, refusal, tt.push)
			case tt.reason != "" && (push || !strings.Contains(refusal, tt.reason)):
				t.Errorf("push %v, refusal %q; want one naming %q", push, refusal, tt.reason)
			}
			if got := d.Refusal(tt.si); (got == "") != (tt.reason == "") || (got != "" && !strings.HasPrefix(got, "messages cannot reach this Codex session now: ")) {
				t.Errorf("Refusal %q", got)
			}
		})
	}
}

// countingEngine counts how often the deliverer asks for a workspace's
// picture.
type countingEngine struct {
	list  []engine.Info
	calls int
}

func (c *countingEngine) Workspace(id string) (engine.Info, bool) {
	c.calls++
	for _, in := range c.list {
		if in.ID == id {
			return in, true
		}
	}
	return engine.Info{}, false
}
func (c *countingEngine) Changes() <-chan struct{} { return nil }

// TestPassListsWorkspacesOnlyWhileAMessageWaits: the engine changes
// with every line written, and each pass that found nothing queued used to
// build every workspace's picture; now an empty queue costs no listing,
// and a queued message is still found.
func TestPassListsWorkspacesOnlyWhileAMessageWaits(t *testing.T) {
	q, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := &countingEngine{list: []engine.Info{{Workspace: discover.Workspace{ID: "ws1"}}}}
	d := &Delivery{Queue: q, Engine: eng, Pusher: codexagent.Pusher{}}
	for range 3 {
		d.pass(t.Context())
	}
	if eng.calls != 0 {
		t.Errorf("with nothing queued the engine was listed %d times", eng.calls)
	}
	if _, _, err := q.Enqueue("ws1", "hello"); err != nil {
		t.Fatal(err)
	}
	d.pass(t.Context())
	if eng.calls != 1 {
		t.Errorf("with a message queued in one workspace its picture was asked for %d times, want 1", eng.calls)
	}
}
