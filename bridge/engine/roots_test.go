package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/discover"
)

// A bridge starts on a home where neither agent has run: no
// ~/.claude/projects, no ~/.codex. Then the agent's first run makes its
// root, the session's folder and its record, and only after a scan has
// run writes the line that says where the session runs — as Claude Code
// 2.0.77 does. The session is listed and streamed from file events alone:
// the scan timer and the sweep are an hour away. Made step by step (each
// folder an event) or in one go (the whole tree renamed into place, so no
// event names the folders below the root). Failed before: the new
// project folder in a projects folder made in one go was never watched
// (2.0.77's session waited for the timed scan), and nothing above a
// missing ~/.codex was watched at all.
func TestAgentRootsMadeAfterTheStart(t *testing.T) {
	for _, tt := range []struct {
		name         string
		codex, oneGo bool
	}{
		{"claude step by step", false, false},
		{"claude in one go", false, true},
		{"codex step by step", true, false},
		{"codex in one go", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			if err := os.RemoveAll(filepath.Join(h.root, ".claude")); err != nil {
				t.Fatal(err)
			}
			codexHome := filepath.Join(h.root, ".codex")
			dir := filepath.Join(h.root, "work", "first")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			cs := &countingScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}, codex.New(codexHome)},
				Processes: func() (map[string]int, error) { return nil, nil }}}
			r := h.startWith(func(c *Config) {
				c.Scanner, c.Agents = cs, testAgents(h.projects, codexHome)
				c.ScanEvery, c.IdleScanEvery, c.SweepEvery = time.Hour, time.Hour, time.Hour
			})
			<-r.eng.Ready()

			id := "019a0000-1111-7222-8333-0000000000a1"
			top := filepath.Join(h.root, ".claude")
			rel := filepath.Join("projects", claude.EncodeProjectDir(dir), id+".jsonl")
			placing := func() string { cwdOf[id] = dir; return prompt(id, "first words") }
			if tt.codex {
				top = codexHome
				rel = filepath.Join("sessions", "2026", "12", "05", "rollout-2026-12-05T10-00-00-"+id+".jsonl")
				placing = func() string {
					return fmt.Sprintf(`{"timestamp":"2026-12-05T10:00:00.000Z","type":"session_meta","payload":{"id":%q,"cwd":%q,"cli_version":"0.169.0"}}`, id, dir)
				}
			}
			record := filepath.Join(top, rel)
			made := top
			if tt.oneGo {
				made = filepath.Join(t.TempDir(), filepath.Base(top))
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(made, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			h.write(filepath.Join(made, rel)) // made empty: no scan can place it yet
			if tt.oneGo {
				if err := os.Rename(made, top); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "the new record's folder to be watched", func() bool { return r.eng.isWatched(filepath.Dir(record)) })
			h.write(record, placing())
			waitFor(t, "the new session listed and streamed", func() bool {
				for _, in := range r.eng.Workspaces() {
					if s, ok := sessionOf(in, id); ok && in.Directory == dir && s.Streamed {
						return true
					}
				}
				return false
			})
			// The home is still watched for the other agent's root, and
			// only for it.
			r.eng.mu.RLock()
			defer r.eng.mu.RUnlock()
			if n := r.eng.ancestors[h.root]; n != 1 || len(r.eng.ancestors) != 1 {
				t.Errorf("folders watched for missing roots: %v, want the home for one", r.eng.ancestors)
			}
		})
	}
}

// While a root is missing its nearest folder, here the home, is watched
// for it, but the home's own files (a shell's history, an editor's swap
// file) are none of the bridge's business: their events go no further
// than the watch loop, so they neither make sessions look at their
// folders again nor wake a backed-off sweep and its scan. The folder made
// on the way to the root still is an event.
func TestTheHomeWatchedForARootIsQuiet(t *testing.T) {
	h := newHome(t)
	if err := os.RemoveAll(filepath.Join(h.root, ".claude")); err != nil {
		t.Fatal(err)
	}
	r := h.startWith(func(c *Config) { c.ScanEvery, c.IdleScanEvery, c.SweepEvery = time.Hour, time.Hour, time.Hour })
	<-r.eng.Ready()
	if !r.eng.isWatched(h.root) {
		t.Fatal("the home is not watched for the missing projects folder")
	}
	before := r.eng.folders.Load()
	for i := range 20 {
		h.write(filepath.Join(h.root, fmt.Sprintf(".history%d", i%3)), "ls")
		os.Mkdir(filepath.Join(h.root, fmt.Sprintf("junk%d", i)), 0o755)
	}
	os.Mkdir(filepath.Join(h.root, ".claude"), 0o755) // after them in the watch's queue
	waitFor(t, "the watch to move to ~/.claude", func() bool { return r.eng.isWatched(filepath.Join(h.root, ".claude")) })
	if got := r.eng.folders.Load() - before; got != 1 {
		t.Errorf("%d events reached the sessions, want 1 (the folder on the way)", got)
	}
	if r.eng.isWatched(h.root) {
		t.Error("the home is still watched once ~/.claude is")
	}
}
