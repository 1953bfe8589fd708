package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
)

// TestManySessionsWritingAtOnceLoseNothing is the paced bench's promise
// as a test: many agents appending at once, each line written in two
// pieces (a reader may find half a line), every line reaches its
// workspace's stream exactly once and in order; and after a restart, with
// more written meanwhile, the journal replays them all and the stream
// goes on from there with nothing twice. Fewer records are kept open than
// there are sessions.
func TestManySessionsWritingAtOnceLoseNothing(t *testing.T) {
	const workspaces, live, later = 10, 60, 5
	h := newHome(t)
	type agent struct {
		sid, dir, path string
	}
	agents := make([]agent, workspaces)
	for i := range agents {
		dir, proj := h.workspace(fmt.Sprintf("load%02d", i))
		a := agent{sid: fmt.Sprintf("load%02d", i), dir: dir, path: filepath.Join(proj, fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i))}
		cwdOf[a.sid] = dir
		h.write(a.path, prompt(a.sid, "p0"))
		agents[i] = a
	}
	wantPrompts := func(a agent, n int) []string {
		var want []string
		for k := range n {
			want = append(want, fmt.Sprintf("p%d", k))
		}
		return want
	}
	users := func(evs []event.Event) []string {
		var got []string
		for _, e := range evs {
			if e.Type == event.User {
				got = append(got, e.Content)
			}
		}
		return got
	}
	upTo := func(n int) func([]event.Event) bool {
		return func(evs []event.Event) bool { return len(users(evs)) >= n }
	}
	check := func(what string, a agent, evs []event.Event, n int) {
		t.Helper()
		got, want := users(evs), wantPrompts(a, n)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s, %s: prompts\n got %v\nwant %v", what, a.sid, got, want)
		}
		for i := 1; i < len(evs); i++ {
			if evs[i].ID != evs[i-1].ID+1 {
				t.Errorf("%s, %s: ids not contiguous: %s", what, a.sid, summary(evs))
				break
			}
		}
	}

	// Fewer records kept open than sessions writing: each read may find
	// its file closed by another's and open it again.
	small := func(c *Config) { c.Files = linefile.NewFiles(3) }
	r := h.startWith(small)
	ids := make([]string, workspaces)
	for i, a := range agents {
		ids[i] = r.waitWorkspace(t, a.dir)
		r.collect(t, ids[i], 0, upTo(1))
	}
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 29))
			f, err := os.OpenFile(a.path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			for k := 1; k < live; k++ {
				line := prompt(a.sid, fmt.Sprintf("p%d", k)) + "\n"
				cut := 1 + rng.IntN(len(line)-1)
				if _, err := f.WriteString(line[:cut]); err != nil {
					t.Error(err)
					return
				}
				if _, err := f.WriteString(line[cut:]); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i, a := range agents {
		check("live", a, r.collect(t, ids[i], 0, upTo(live)), live)
	}
	r.stop()

	for _, a := range agents {
		for k := live; k < live+later; k++ {
			h.write(a.path, prompt(a.sid, fmt.Sprintf("p%d", k)))
		}
	}
	r2 := h.startWith(small)
	for i, a := range agents {
		if id := r2.waitWorkspace(t, a.dir); id != ids[i] {
			t.Fatalf("workspace id changed across restart: %s → %s", ids[i], id)
		}
		check("after a restart", a, r2.collect(t, ids[i], 0, upTo(live+later)), live+later)
	}
}
