package codex

import (
	"encoding/json"
	"strings"
	"testing"
)

// Real payloads, captured from the e2e tests' notify program and Stop hook.
const (
	notify169 = `{"type":"agent-turn-complete","thread-id":"01a23820-017b-71f2-ab3d-cc4fb2857034","turn-id":"01a23820-01fb-7792-b96a-3cb4e29752fd","cwd":"/tmp/TestStopHookDeliversToBusySession3107621510/001/work/demo","client":"codex_exec","input-messages":["hello"],"last-assistant-message":"got it"}`
	notify047 = `{"type":"agent-turn-complete","thread-id":"01a23820-04a7-7302-93d4-b38bd6091874","turn-id":"0","input-messages":[],"last-assistant-message":"first answer"}`
	stop169   = `{"session_id":"01a23816-405e-7601-97fa-a77ff5a4fcf3","turn_id":"01a23816-40f2-73c2-9f59-fa5591f7f70a","transcript_path":"/tmp/TestProbeHook80309653/001/.codex/sessions/2026/12/02/rollout-2026-12-02T18-48-32-01a23816-405e-7601-97fa-a77ff5a4fcf3.jsonl","cwd":"/tmp/TestProbeHook80309653/001/work/demo","hook_event_name":"Stop","model":"gpt-5.5","permission_mode":"bypassPermissions","stop_hook_active":true,"last_assistant_message":"done"}`
)

func TestParseNotify(t *testing.T) {
	t.Parallel()
	n, err := ParseNotify(notify169)
	if err != nil || n.Type != NotifyTurnComplete || n.ThreadID != "01a23820-017b-71f2-ab3d-cc4fb2857034" || n.Client != "codex_exec" ||
		len(n.InputMessages) != 1 || n.LastAssistantMessage != "got it" || !strings.HasSuffix(n.Cwd, "/work/demo") {
		t.Errorf("0.169: %+v %v", n, err)
	}
	if n, err := ParseNotify(notify047); err != nil || n.TurnID != "0" || n.Cwd != "" || n.ThreadID == "" {
		t.Errorf("0.47: %+v %v", n, err)
	}
	for _, bad := range []string{"", "{", `{"thread-id":"x"}`, `[]`} {
		if _, err := ParseNotify(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestStopHookIO(t *testing.T) {
	t.Parallel()
	in, err := ParseStopInput(strings.NewReader(stop169))
	if err != nil || in.SessionID != "01a23816-405e-7601-97fa-a77ff5a4fcf3" || !in.StopHookActive || in.HookEventName != "Stop" ||
		!strings.HasSuffix(in.TranscriptPath, ".jsonl") {
		t.Errorf("input: %+v %v", in, err)
	}
	if _, err := ParseStopInput(strings.NewReader("nope")); err == nil {
		t.Error("bad input accepted")
	}
	out, err := StopBlock(`say "hi" <now> & then`)
	var got map[string]string
	if err != nil || json.Unmarshal(out, &got) != nil || got["decision"] != "block" || got["reason"] != `say "hi" <now> & then` {
		t.Errorf("block: %s %v", out, err)
	}
	if _, err := StopBlock("  "); err == nil {
		t.Error("empty block accepted")
	}
}
