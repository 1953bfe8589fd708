package inject

import (
	"errors"
	"os"
	"strings"
	"testing"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// TestCodexRoute: an idle Codex session is resumed; a busy one (working,
// waiting, or held by a live process) takes the Stop hook on a release
// with hooks when it is installed, and is refused with a reason
// otherwise; a pid from a scan whose process has exited holds nothing.
func TestCodexRoute(t *testing.T) {
	live, dead := os.Getpid(), 1<<22+12345 // beyond pid_max: no such process
	for _, tt := range []struct {
		name   string
		si     engine.SessionInfo
		hooked bool
		bin    string
		want   codex.Route
		reason string // a substring of the refusal, "" for none
	}{
		{"idle", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle}, false, "codex", codex.RouteResume, ""},
		{"idle 0.47", engine.SessionInfo{Version: "0.47.0", Status: event.StateIdle}, false, "codex", codex.RouteResume, ""},
		{"idle, no binary", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle}, true, "", "", "no codex binary"},
		{"working, hooked", engine.SessionInfo{Version: "0.169.0", Status: event.StateWorking}, true, "codex", codex.RouteStopHook, ""},
		{"working, no hook", engine.SessionInfo{Version: "0.169.0", Status: event.StateWorking}, false, "codex", "", "Stop hook is not installed"},
		{"waiting for approval", engine.SessionInfo{Version: "0.169.0", Status: event.StateNeedsInput}, true, "codex", codex.RouteStopHook, ""},
		{"held by a live process", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle, PID: live}, true, "codex", codex.RouteStopHook, ""},
		{"its process has exited", engine.SessionInfo{Version: "0.169.0", Status: event.StateIdle, PID: dead}, false, "codex", codex.RouteResume, ""},
		{"working 0.47", engine.SessionInfo{Version: "0.47.0", Status: event.StateWorking}, true, "codex", "", "0.47.0 has no hooks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &CodexDelivery{Bin: tt.bin, Hooked: func() bool { return tt.hooked }}
			got, err := d.Route(tt.si)
			var de *codex.DeliverError
			switch {
			case tt.reason == "" && (err != nil || got != tt.want):
				t.Errorf("route %q, %v; want %q", got, err, tt.want)
			case tt.reason != "" && (!errors.As(err, &de) || !strings.Contains(de.Reason, tt.reason)):
				t.Errorf("refusal %v; want one naming %q", err, tt.reason)
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

// TestCodexPassListsWorkspacesOnlyWhileAMessageWaits: the engine changes
// with every line written, and each pass that found nothing queued used to
// build every workspace's picture; now an empty queue costs no listing,
// and a queued message is still found.
func TestCodexPassListsWorkspacesOnlyWhileAMessageWaits(t *testing.T) {
	q, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := &countingEngine{list: []engine.Info{{Workspace: discover.Workspace{ID: "ws1"}}}}
	d := &CodexDelivery{Queue: q, Engine: eng}
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
