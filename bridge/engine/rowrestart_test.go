package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/conductor"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/rowcorpus"
)

// TestARelistBetweenRowsKeepsARestoredTurn: a Conductor tab read from
// Conductor's rows (an agent_type no package reads) is stopped mid-turn,
// and after the restart its sessions are listed again (a reconcile, the
// sweep's and a scan's asks) before, between and after each row the turn
// still writes. The tab streams exactly its recorded events, none twice:
// the turn restored from the journal keeps its start, so its duration is
// the record's 7 s, not the time since the first row after the restart.
func TestARelistBetweenRowsKeepsARestoredTurn(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) { testRelistBetweenRows(t, shape) })
	}
}

func testRelistBetweenRows(t *testing.T, shape conductordb.Shape) {
	h := newHome(t)
	dir := filepath.Join(h.root, "work", "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(h.root, "conductor.db")
	wr, err := conductordb.Create(dbPath, shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	const ws, tab = "w-rows", "s-other"
	if err := wr.AddTab(shape, ws, tab, "gemini", "Tab"); err != nil {
		t.Fatal(err)
	}
	if err := wr.PlaceWorkspace(ws, "demo", dir, dir, "me/rows"); err != nil {
		t.Fatal(err)
	}
	rows, want := corpusRows(t, "codex-0.169.0")
	write := func(i int) {
		t.Helper()
		r := rows[i]
		content := string(r.Frame)
		if r.Text != nil {
			content = *r.Text
		}
		if err := wr.Exec("INSERT INTO session_messages (id, session_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
			fmt.Sprintf("%s-%04d", tab, i), tab, r.Role, content, r.At); err != nil {
			t.Fatal(err)
		}
	}
	start := func() *running {
		t.Helper()
		scanner := &discover.Scanner{ConductorDB: dbPath, ConductorRoot: filepath.Join(h.root, "conductor"),
			Agents: []discover.Agent{claude.Agent{Projects: h.projects}}, Processes: func() (map[string]int, error) { return nil, nil }}
		t.Cleanup(func() { scanner.Close() })
		r := h.startWith(func(c *Config) {
			c.Scanner = scanner
			c.Agents = append(testAgents(h.projects, ""), conductor.Agent{DB: dbPath})
			// Nothing on a timer: the test asks for every listing.
			c.ScanEvery, c.SweepEvery, c.QuietAfter = time.Hour, time.Hour, time.Hour
		})
		waitFor(t, "the workspace", func() bool { _, ok := r.eng.Workspace(ws); return ok })
		<-r.eng.CaughtUp()
		return r
	}

	half := len(rows) / 2
	for i := range half {
		write(i)
	}
	r := start()
	r.collect(t, ws, 0, func(evs []event.Event) bool { return len(eventtest.OfSession(evs, tab)) == 2 }) // the prompt and the thinking
	r.stop()

	r = start()
	ctx := context.Background()
	inTurn := false
	r.eng.do(ctx, ws, func(w *workspace) { inTurn = w.tails[tab] != nil && w.tails[tab].parser.InTurn() })
	if !inTurn {
		t.Fatal("the restart did not resume the open turn: the test would not test it")
	}
	relist := func() {
		t.Helper()
		if !r.eng.do(ctx, ws, func(w *workspace) {
			w.relook.Store(true)
			w.sync()
		}) {
			t.Fatal("the workspace is not followed")
		}
	}
	for i := half; i < len(rows); i++ {
		relist()
		write(i)
		newSweeper(r.eng).sweep() // a first sweep: every path and folder is news to it
		r.eng.scan(ctx)
		relist()
	}
	evs := r.collect(t, ws, 0, func(evs []event.Event) bool { return countTurns(evs, tab) == 1 })
	if got := eventtest.Describe(eventtest.OfSession(evs, tab)); got != want {
		t.Errorf("streamed\n%s\nwant\n%s", got, want)
	}
}

// corpusRows reads a recorded tab of bridge/agent/conductor's corpus and
// the events it streams.
func corpusRows(t *testing.T, name string) ([]rowcorpus.Row, string) {
	return rowcorpus.Read(t, filepath.Join("..", "agent", "conductor", "testdata", "corpus", name))
}
