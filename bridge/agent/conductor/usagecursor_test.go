package conductor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/claude"
	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
	"conductorbridge/testkit/cursortest"
)

// TestUsageCountsCursorTabsBesideTheSDKsRuns: with the Cursor SDK's
// stores counted too (the runs of plain folders, cursor.Driver), a
// Conductor Cursor tab is still counted from Conductor's record, once,
// and the SDK's run from its store.
func TestUsageCountsCursorTabsBesideTheSDKsRuns(t *testing.T) {
	shape := conductordb.Shapes(t)[0]
	w := newDB(t, shape, "s-cursor", "cursor")
	write(t, w, "s-cursor", cursorTurn(strings.Repeat("é", 700))...)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "workspaces", "shop", "w-tokyo"), 0o755); err != nil {
		t.Fatal(err)
	}

	// The SDK's recorded store of one run (11 in, 7 out), in a plain
	// folder of the home.
	home := t.TempDir()
	store := filepath.Join(cursor.StoreDir(home, "/tmp/cursorsdk/ws"), cursor.DBName)
	cursortest.LoadStore(t, filepath.Join("..", "cursor", "testdata", "research", "tool.sql"), store)

	src := usage.Source{Formats: []driver.Format{claude.Agent{}, codexagent.Agent{}, Agent{DB: w.Path, Root: root}, cursor.NewDriver(home)}}
	h, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Errors) > 0 || len(h.Turns) != 2 {
		t.Fatalf("%d turns (errors %v), want the tab's and the SDK run's: %+v", len(h.Turns), h.Errors, h.Turns)
	}
	// The tab's result frame: 2500 in, 52 out (TestUsageCountsTabsWithNoReader).
	var tab, run usage.Turn
	for _, tr := range h.Turns {
		if tr.Session == "agent-672041a6-889e-4d0c-b9bf-af813a1687d4" {
			run = tr
		} else {
			tab = tr
		}
	}
	if tab.Agent != "cursor" || tab.Usage.InputTokens != 2500 || tab.Usage.OutputTokens != 52 {
		t.Errorf("the Conductor tab's turn %+v", tab)
	}
	if run.Agent != "cursor" || run.Usage != (event.Usage{InputTokens: 11, OutputTokens: 7}) || run.Workspace != "/tmp/cursorsdk/ws" {
		t.Errorf("the SDK run's turn %+v", run)
	}
}
