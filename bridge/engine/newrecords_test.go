package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/discover"
)

// A record no workspace follows asks for a scan on every event until it
// says where it runs and a scan has begun since; only then are its writes
// throttled. (The old rule throttled every write after the creation, so a
// rollout created empty, scanned before its session_meta, waited 10 s.)
func TestNewRecordAsksUntilAScanCouldPlaceIt(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects")
	day := filepath.Join(dir, "codex", "sessions", "2026", "12", "05")
	os.MkdirAll(filepath.Join(proj, "-x"), 0o755)
	os.MkdirAll(day, 0o755)
	meta := `{"timestamp":"2026-12-05T10:00:00.000Z","type":"session_meta","payload":{"id":"019a0000-1111-7222-8333-444444444444","cwd":"/x"}}`
	claude := `{"type":"user","sessionId":"s","cwd":"/x","message":{"role":"user","content":"hi"}}`
	for _, tt := range []struct {
		name, path, placing string
	}{
		{"codex", filepath.Join(day, "rollout-2026-12-05T10-00-00-019a0000-1111-7222-8333-444444444444.jsonl"), meta},
		{"claude", filepath.Join(proj, "-x", "aaaaaaaa-1111-4111-8111-000000000001.jsonl"), claude},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{Agents: testAgents(proj, "")})
			write := func(s string) {
				f, err := os.OpenFile(tt.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(s)
				f.Close()
			}
			scan := func() { e.scanBegan.Store(time.Now().UnixNano()) }
			steps := []struct {
				what    string
				do      func()
				created bool
				want    bool
			}{
				{"created empty", func() { write("") }, true, true},
				{"a scan ran; half a line written", func() { scan(); write(tt.placing[:20]) }, false, true},
				{"a scan ran; the line finished", func() { scan(); write(tt.placing[20:] + "\n") }, false, true},
				{"no scan since it could be placed", func() { write(tt.placing + "\n") }, false, true},
				{"a scan ran since: it belongs to nothing", func() { scan(); write(tt.placing + "\n") }, false, false},
				{"another write", func() { write(tt.placing + "\n") }, false, false},
				{"replaced by a new file", func() { os.Remove(tt.path); write("") }, true, true},
			}
			for _, s := range steps {
				time.Sleep(time.Millisecond) // distinct clock readings for the scan marks (not a race)
				s.do()
				if got := e.askForRecord(tt.path, s.created); got != s.want {
					t.Errorf("%s: asks %v, want %v", s.what, got, s.want)
				}
			}
			e.newRecords[tt.path].asked = time.Now().Add(-recordAskEvery)
			if !e.askForRecord(tt.path, false) {
				t.Error("a write past the interval did not ask")
			}
		})
	}
}

// Twenty sessions begin at random moments while the bridge is idle —
// Claude Code in new folders, Codex writing new rollouts, half in folders
// the bridge knows — each as the agents do it: the file (and folder) first,
// a scan running before it says where it runs, then its lines. With the
// scan timer and the sweep an hour away, each is listed, and streams, from
// file events alone. Failed before: a rollout's writes after its creation
// were throttled for 10 s, and a new project folder was not watched.
func TestNewSessionsAreListedWithoutTheTimer(t *testing.T) {
	h := newHome(t)
	codexHome := filepath.Join(h.root, ".codex")
	day := filepath.Join(codexHome, "sessions", "2026", "12", "05")
	os.MkdirAll(day, 0o755)
	known, knownProj := h.workspace("known")
	const first = "aaaaaaaa-1111-4111-8111-0000000000f0"
	cwdOf[first] = known
	h.write(filepath.Join(knownProj, first+".jsonl"), prompt(first, "before"))
	cs := &countingScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}, codex.New(codexHome)},
		Processes: func() (map[string]int, error) { return nil, nil }}}
	r := h.startWith(func(c *Config) {
		c.Scanner, c.Agents = cs, testAgents(h.projects, codexHome)
		c.ScanEvery, c.IdleScanEvery, c.SweepEvery = time.Hour, time.Hour, time.Hour
	})
	r.waitWorkspace(t, known)
	var delays []time.Duration
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 25))
	for i := range 20 {
		codexRun, inKnown := i%2 == 0, i%4 < 2
		dir := known
		if !inKnown {
			dir = filepath.Join(h.root, "work", fmt.Sprintf("new%d", i)) // its project folder is made below, as Claude Code does
			os.MkdirAll(dir, 0o755)
		}
		id := fmt.Sprintf("019a0000-1111-7222-8333-%012d", i)
		var path, line string
		if codexRun {
			path = filepath.Join(day, "rollout-2026-12-05T10-00-00-"+id+".jsonl")
			line = fmt.Sprintf(`{"timestamp":"2026-12-05T10:00:00.000Z","type":"session_meta","payload":{"id":%q,"cwd":%q,"cli_version":"0.169.0"}}`, id, dir)
		} else {
			proj := filepath.Join(h.projects, claude.EncodeProjectDir(dir))
			os.MkdirAll(proj, 0o755)
			path = filepath.Join(proj, id+".jsonl")
			cwdOf[id] = dir
			line = prompt(id, fmt.Sprintf("hello %d", i))
		}
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond) // a random moment of the idle stretch
		before := cs.n.Load()
		h.write(path)
		if codexRun || !inKnown { // (a known folder's new transcript is listed by its workspace, no scan)
			waitFor(t, fmt.Sprintf("the scan new file %d asked for", i), func() bool { return cs.n.Load() > before })
		}
		h.write(path, line)
		wrote := time.Now()
		waitFor(t, fmt.Sprintf("session %d (codex %v, known folder %v) listed", i, codexRun, inKnown), func() bool {
			for _, in := range r.eng.Workspaces() {
				if in.Directory != dir {
					continue
				}
				if s, ok := sessionOf(in, id); ok && s.Streamed {
					return true
				}
			}
			return false
		})
		delays = append(delays, time.Since(wrote))
	}
	slices.Sort(delays)
	t.Logf("from the placing line to listed, 20 sessions: p50 %v, p99/max %v (logged, not asserted)", delays[len(delays)/2], delays[len(delays)-1])
}
