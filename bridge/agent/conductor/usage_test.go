package conductor

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/claude"
	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// TestUsageCountsTabsWithNoReader: `usage` counts a Cursor tab's turn and
// an unknown agent's from Conductor's session_messages (both frame
// shapes, both schema shapes), at the result frame's cost and tokens, and
// leaves out a Claude tab's, which Claude's transcripts count.
func TestUsageCountsTabsWithNoReader(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-cursor", "cursor", "s-future", "devin-2", "s-claude", "claude")
			write(t, w, "s-cursor", cursorTurn(strings.Repeat("é", 700))...)
			write(t, w, "s-future", sdkTurn()...)
			write(t, w, "s-claude", cursorTurn("spent in Claude's own transcript")...)
			// The workspace's folder, where Conductor keeps it.
			root := t.TempDir()
			dir := filepath.Join(root, "workspaces", "shop", "w-tokyo")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			dir, _ = filepath.EvalSymlinks(dir)
			src := usage.Source{Formats: []driver.Format{claude.Agent{}, codexagent.Agent{}, Agent{DB: w.Path, Root: root}}}
			h, err := src.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Errors) > 0 || len(h.Turns) != 2 {
				t.Fatalf("%d turns (errors %v), want the Cursor tab's and the unknown agent's: %+v", len(h.Turns), h.Errors, h.Turns)
			}
			by := map[string]usage.Turn{}
			for _, tr := range h.Turns {
				by[tr.Agent] = tr
			}
			// The result frame's: $0.0123, 2500 in, 52 out; the SDK's usage
			// frame: 900 in, 30 out, no cost.
			if c := by["cursor"]; math.Abs(c.CostUSD-0.0123) > 1e-12 || !c.CostKnown || c.Usage.InputTokens != 2500 || c.Usage.OutputTokens != 52 || c.Model != "composer-2" {
				t.Errorf("the Cursor tab's turn %+v", c)
			}
			if f := by["devin-2"]; f.CostKnown || f.Usage.InputTokens != 900 || f.Usage.OutputTokens != 30 {
				t.Errorf("the unknown agent's turn %+v", f)
			}
			for _, tr := range h.Turns {
				if tr.Workspace != dir {
					t.Errorf("%s turn in %q, want its workspace's folder %s", tr.Agent, tr.Workspace, dir)
				}
			}
		})
	}
}
