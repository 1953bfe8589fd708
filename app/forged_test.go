package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/agent/claude"
)

// Issue 24, finding 13: a newline in a title, a model, a tool name or a
// reason printed as a line of its own, so a transcript (or a folder name)
// could fake rows in `workspaces` and `tail`. Each field stays on its
// line, its newline shown as \n.
func TestForgedLinesStayInTheirRow(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "work", "shop\nFORGED-WS-ROW\tx")
	proj := filepath.Join(home, ".claude", "projects", claude.EncodeProjectDir(dir))
	for _, d := range []string{dir, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cwd, _ := json.Marshal(dir)
	model, _ := json.Marshal("claude-sonnet-4-5\nFORGED-MODEL-ROW")
	tool, _ := json.Marshal("Bash\nFORGED-TOOL-ROW\r\nFORGED-CR-ROW")
	lines := []string{
		fmt.Sprintf(`{"type":"user","sessionId":"s","cwd":%s,"timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"hello"}}`, cwd),
		fmt.Sprintf(`{"type":"assistant","sessionId":"s","cwd":%s,"requestId":"r1","timestamp":"2026-01-01T10:00:01Z","message":{"id":"m1","model":%s,"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"tool_use","id":"t1","name":%s,"input":{"command":"ls"}}]}}`, cwd, model, tool),
		fmt.Sprintf(`{"type":"user","sessionId":"s","cwd":%s,"timestamp":"2026-01-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`, cwd),
		fmt.Sprintf(`{"type":"assistant","sessionId":"s","cwd":%s,"requestId":"r2","timestamp":"2026-01-01T10:00:03Z","message":{"id":"m2","model":%s,"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"text","text":"done"}]}}`, cwd, model),
	}
	transcript := filepath.Join(proj, "12345678-1234-4234-8234-123456789012.jsonl")
	if err := os.WriteFile(transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startBridgeProc(t, home, 0)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.LastEventID >= 5 })
	addr := strings.TrimPrefix(p.base, "http://")
	forged := func(what, out string) {
		t.Helper()
		for line := range strings.Lines(out) {
			if strings.HasPrefix(strings.TrimLeft(line, " \t"), "FORGED") {
				t.Errorf("%s printed a forged row %q:\n%s", what, line, out)
			}
		}
	}
	out, err := runCLI(t, "workspaces", "--addr", addr, "--home", home)
	if err != nil || !strings.Contains(out, ws.ID) || !strings.Contains(out, `shop\nFORGED-WS-ROW\tx`) {
		t.Errorf("workspaces: %v\n%s", err, out)
	}
	forged("workspaces", out)
	out = tailUntil(t, "✓ turn", "--addr", addr, "--home", home, ws.ID)
	if !strings.Contains(out, `Bash\nFORGED-TOOL-ROW\r\nFORGED-CR-ROW`) || !strings.Contains(out, `claude-sonnet-4-5\nFORGED-MODEL-ROW`) {
		t.Errorf("tail did not show the fields escaped:\n%s", out)
	}
	forged("tail", out)
}
