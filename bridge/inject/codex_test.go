package inject

import (
	"errors"
	"os"
	"strings"
	"testing"

	"conductorbridge/bridge/codex"
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
