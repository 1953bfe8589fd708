package usage

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/usage/driver"
	"conductorbridge/testkit/opencodetest"
)

// openCodeRun is a real OpenCode 1.18.33 session's event rows (one turn
// with a tool call, against the fake model server), its id, and OpenCode's
// own totals for it, recorded beside it.
type openCodeRun struct {
	lines   [][]byte
	session string
	dir     string
	want    struct {
		Turns []struct {
			Usage eventUsage `json:"usage"`
			Cost  float64    `json:"cost"`
		} `json:"turns"`
		Model string `json:"model"`
	}
}

func loadOpenCodeRun(t testing.TB) openCodeRun {
	t.Helper()
	var r openCodeRun
	data, err := os.ReadFile(filepath.Join("..", "agent", "opencode", "testdata", "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r.lines = bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var first struct {
		Data struct {
			SessionID string `json:"sessionID"`
			Info      struct {
				Directory string `json:"directory"`
			} `json:"info"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.lines[0], &first); err != nil || first.Data.SessionID == "" {
		t.Fatalf("first row %s: %v", r.lines[0], err)
	}
	r.session, r.dir = first.Data.SessionID, first.Data.Info.Directory
	w, err := os.ReadFile(filepath.Join("..", "agent", "opencode", "testdata", "run.want.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(w, &r.want); err != nil || len(r.want.Turns) != 1 {
		t.Fatalf("run.want.json: %v", err)
	}
	return r
}

// schema is the database OpenCode 1.18.33 creates.
var schema = filepath.Join("..", "agent", "opencode", "testdata", "schema.sql")

// TestOpenCodeTurnsCount: a real OpenCode session's turn is in the
// history with the tokens and the cost OpenCode recorded for it, its
// model, folder and session.
func TestOpenCodeTurnsCount(t *testing.T) {
	run := loadOpenCodeRun(t)
	w := opencodetest.NewDB(t, filepath.Join(t.TempDir(), "opencode.db"), schema)
	w.Commit(t, "", "", run.lines)
	h, err := Source{Formats: []driver.Format{opencode.NewDriver(w.Path)}}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Turns) != 1 || len(h.Errors) > 0 {
		t.Fatalf("%d turns (errors %v), want the run's one", len(h.Turns), h.Errors)
	}
	got, want := h.Turns[0], run.want.Turns[0]
	if got.Usage != want.Usage || math.Abs(got.CostUSD-want.Cost) > 1e-12 || !got.CostKnown ||
		got.Model != run.want.Model || got.Session != run.session || got.Workspace != run.dir || got.Agent != (&opencode.Driver{}).Name() {
		t.Errorf("turn %+v,\nwant usage %+v cost %v model %s in %s, session %s", got, want.Usage, want.Cost, run.want.Model, run.dir, run.session)
	}
	rep := summarize(t, h, Query{By: "session"})
	if rep.Total.Turns != 1 || math.Abs(rep.Total.CostUSD-want.Cost) > 1e-12 {
		t.Errorf("report total %+v, want one turn of $%v", rep.Total, want.Cost)
	}
}

// TestOpenCodeCacheFollowsDatabaseAndWAL: the cache keeps an OpenCode
// database's turns while the database and its WAL are as they were, and
// reads the rows written since when a commit grows the WAL, a checkpoint
// rewrites the database and empties the WAL, or a second session is
// added; each report equals an uncached one, also from the cache file.
func TestOpenCodeCacheFollowsDatabaseAndWAL(t *testing.T) {
	run := loadOpenCodeRun(t)
	w := opencodetest.NewDB(t, filepath.Join(t.TempDir(), "opencode.db"), schema)
	formats := []driver.Format{opencode.NewDriver(w.Path)}
	path := filepath.Join(t.TempDir(), CacheFile)
	src := Source{Formats: formats, Cache: &Cache{Path: path, share: 1}}
	step := func(name string, wantReused, wantReread, wantResumed int64, wantTurns int) {
		t.Helper()
		reused, reread, resumed := src.Cache.reused.Load(), src.Cache.reread.Load(), src.Cache.resumed.Load()
		got, err := src.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Source{Formats: formats}.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sameReports(t, name, fresh, got)
		if d := src.Cache.reused.Load() - reused; d != wantReused {
			t.Errorf("%s: %d groups taken from the cache, want %d", name, d, wantReused)
		}
		if d := src.Cache.reread.Load() - reread; d != wantReread {
			t.Errorf("%s: %d groups read again, want %d", name, d, wantReread)
		}
		if d := src.Cache.resumed.Load() - resumed; d != wantResumed {
			t.Errorf("%s: %d groups read on from their last row, want %d", name, d, wantResumed)
		}
		if len(got.Turns) != wantTurns {
			t.Errorf("%s: %d turns, want %d", name, len(got.Turns), wantTurns)
		}
	}
	// The turn half written (its first response in, the tool running).
	half := len(run.lines) * 2 / 3
	w.Commit(t, "", "", run.lines[:half])
	step("first read", 0, 1, 0, 1)
	step("nothing changed", 1, 0, 0, 1)
	w.Commit(t, "", "", run.lines[half:])
	step("the turn's end committed to the WAL", 0, 0, 1, 1)
	w.Checkpoint(t)
	step("checkpointed: the database rewritten, the WAL emptied", 0, 0, 1, 1)
	step("nothing changed since", 1, 0, 0, 1)
	w.Commit(t, run.session, "ses_second", run.lines)
	// Another run, from the cache file alone.
	src.Cache = &Cache{Path: path, share: 1}
	step("a second session, read by the next run", 0, 0, 1, 2)
	step("nothing changed, the next run", 1, 0, 0, 2)
}
