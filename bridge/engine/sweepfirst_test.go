package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// TestSweepFirstLook: the sweep's first look at a path counts as a change
// unless the workspace began reading it after it last changed (a cold
// start's thousand workspaces are not all read a second time a second
// later); later looks compare with the one before.
func TestSweepFirstLook(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	fresh := filepath.Join(dir, "fresh.jsonl")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-time.Minute)
	os.Chtimes(old, long, long)
	now := time.Now()
	for _, tt := range []struct {
		name   string
		path   string
		readAt time.Time
		want   bool
	}{
		{"read after its last change", old, now, false},
		{"never read", old, time.Time{}, true},
		{"changed while being read", fresh, now, true},
		{"missing", filepath.Join(dir, "none.jsonl"), now, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &sweeper{stamps: map[string]stamp{}}
			if got := s.changed(tt.path, tt.readAt); got != tt.want {
				t.Errorf("first look = %v, want %v", got, tt.want)
			}
			if s.changed(tt.path, tt.readAt) {
				t.Error("second look at an unchanged path counts as a change")
			}
		})
	}
	s := &sweeper{stamps: map[string]stamp{}}
	s.changed(old, now)
	if err := os.WriteFile(old, []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.changed(old, now) {
		t.Error("a write after the first look is not a change")
	}
}

// TestSweepLoopBacksOffAndWakes: on a running engine the sweep backs off
// while all is idle (the loop must not undo the backing off after each
// sweep), and a file event brings it back to its base rate.
func TestSweepLoopBacksOffAndWakes(t *testing.T) {
	h := newHome(t)
	const sid = "eeeeeeee-1111-4111-8111-0000000000e1"
	dir, p := h.session("sleepy", sid)
	h.write(p, prompt(sid, "hello"), answer(sid, "m1", "hi", "end_turn"))
	r := h.startWith(func(c *Config) { c.SweepEvery, c.ScanEvery, c.IdleScanEvery = 5*time.Millisecond, time.Hour, time.Hour })
	r.firstTurn(t, dir)
	waitFor(t, "the sweep to back off", r.eng.sweepIdle.Load)
	h.write(p, prompt(sid, "again"))
	waitFor(t, "the sweep back at its base rate", func() bool { return !r.eng.sweepIdle.Load() })
}

// TestSweepSkipsWhatWasRead: a followed file that changed since the last
// sweep but ends where its workspace stopped reading has nothing to read,
// and is not poked: under load every busy file changes between sweeps, and
// a poke for each would be a burst of empty reads every second, with the
// next real line waiting behind them. While paths are polled any change
// is read, since a same-size replacement has no watch to report it.
func TestSweepSkipsWhatWasRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, tt := range []struct {
		name   string
		write  string // the file's content after the first look
		read   int64  // how far the workspace has looked
		polled bool
		want   bool
	}{
		{"read to its end", "{}\n{}\n", 6, false, false},
		{"grown past the read", "{}\n{}\n", 3, false, true},
		{"cut short", "{", 3, false, true},
		{"unchanged", "{}\n", 3, false, false},
		{"read to its end, polled", "{}\n{}\n", 6, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := &sweeper{stamps: map[string]stamp{}}
			s.changed(p, now)
			if err := os.WriteFile(p, []byte(tt.write), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := s.grown(p, tt.read, now, tt.polled); got != tt.want {
				t.Errorf("grown = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSweepBackoffCap: while all is idle the sweep doubles its interval
// up to a minute where folders are watched (their events come anyway), and
// only up to 20 s where they are not, since there the sweep is how a new
// session file is found; activity brings it back to its base rate.
func TestSweepBackoffCap(t *testing.T) {
	for _, tt := range []struct {
		watchDirs bool
		want      time.Duration
	}{{true, maxSweep}, {false, maxSweepUnwatched}} {
		watch := tt.watchDirs
		e := &Engine{cfg: Config{SweepEvery: time.Second, WatchDirs: &watch}, workspaces: map[string]*workspace{}, polled: map[string]bool{}}
		s := newSweeper(e)
		var last time.Duration
		for range 20 {
			last = s.sweep()
		}
		if last != tt.want {
			t.Errorf("folders watched %v: backed off to %v, want %v", tt.watchDirs, last, tt.want)
		}
		if !s.active() || s.every != time.Second {
			t.Errorf("folders watched %v: activity left the sweep at %v", tt.watchDirs, s.every)
		}
	}
}

// A backed-off sweep runs with the scan rather than on a tick of its own:
// one burst of system calls a minute instead of two. Its own timer waits
// a quarter longer, so that the scan leads.
func TestIdleSweepRunsWithTheScan(t *testing.T) {
	watch := true
	e := &Engine{cfg: Config{SweepEvery: time.Second, WatchDirs: &watch}, workspaces: map[string]*workspace{}, polled: map[string]bool{}}
	s := newSweeper(e)
	if s.withScan(time.Now().Add(time.Hour)) {
		t.Error("a sweep at its base rate was brought forward by a scan")
	}
	if got := s.timer(s.every); got != time.Second {
		t.Errorf("timer at the base rate = %v, want 1s", got)
	}
	var every time.Duration
	for range 20 {
		every = s.sweep()
	}
	swept := s.last
	if got := s.timer(every); got != every+every/4 {
		t.Errorf("backed-off timer = %v, want %v", got, every+every/4)
	}
	for _, tt := range []struct {
		after time.Duration
		want  bool
	}{{0, false}, {every/2 - time.Second, false}, {every / 2, true}, {every, true}} {
		if got := s.withScan(swept.Add(tt.after)); got != tt.want {
			t.Errorf("scan %v after the sweep: withScan = %v, want %v", tt.after, got, tt.want)
		}
	}
	s.active()
	if s.withScan(swept.Add(every)) {
		t.Error("once agents work, the scan still moved the sweep")
	}
}

// TestARestingStartBacksTheSweepOff: where folders are watched, a start
// that caught up with every session at rest backs the sweep off to its
// longest interval after its first look, not step by step (its idle
// sweeps at 3, 8, 18 and 38 s were a third of an idle bridge's first
// minute); a start with an agent at work keeps its base rate, and a file
// event brings a backed-off sweep back to it.
func TestARestingStartBacksTheSweepOff(t *testing.T) {
	const base = 5 * time.Millisecond
	for _, tt := range []struct {
		name   string
		lines  func(sid string) []string
		atRest bool
	}{
		{"all at rest", func(sid string) []string { return []string{prompt(sid, "hello"), answer(sid, "m1", "hi", "end_turn")} }, true},
		{"an agent at work", func(sid string) []string { return []string{prompt(sid, "hello")} }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			const sid = "eeeeeeee-1111-4111-8111-0000000000f3"
			dir, p := h.session("resting", sid)
			h.write(p, tt.lines(sid)...)
			r := h.startWith(func(c *Config) {
				c.SweepEvery, c.ScanEvery, c.IdleScanEvery, c.QuietAfter = base, time.Hour, time.Hour, time.Hour
			})
			r.waitWorkspace(t, dir)
			<-r.eng.CaughtUp()
			every := func() time.Duration { return time.Duration(r.eng.sweepEvery.Load()) }
			if !tt.atRest {
				from := r.eng.sweeps.Load()
				waitFor(t, "twenty sweeps", func() bool { return r.eng.sweeps.Load() >= from+20 })
				if every() != base {
					t.Errorf("with an agent at work the sweep backed off to %v", every())
				}
				return
			}
			// Step by step from 5 ms, a minute is 13 doublings and 40 s
			// of sweeps away; waitFor gives up after 5 s.
			waitFor(t, "the sweep backed off to a minute", func() bool { return every() >= time.Minute })
			h.write(p, prompt(sid, "again"))
			waitFor(t, "the sweep back at its base rate", func() bool { return every() == base })
		})
	}
}

// TestOnIdleTellsOfIdleAndWork: Config.OnIdle hears that the engine fell
// idle once the sweep backs off, and that work resumed at the next file
// event: the app holds off the runtime's forced collection in between
// (bridge/gcidle), so a word missed either way would leave the collector
// paced for the wrong one.
func TestOnIdleTellsOfIdleAndWork(t *testing.T) {
	h := newHome(t)
	const sid = "eeeeeeee-1111-4111-8111-0000000000f4"
	dir, p := h.session("told", sid)
	h.write(p, prompt(sid, "hello"), answer(sid, "m1", "hi", "end_turn"))
	told := make(chan bool, 16)
	r := h.startWith(func(c *Config) {
		c.SweepEvery, c.ScanEvery, c.IdleScanEvery = 5*time.Millisecond, time.Hour, time.Hour
		c.OnIdle = func(idle bool) { told <- idle }
	})
	r.waitWorkspace(t, dir)
	next := func(what string) bool {
		select {
		case idle := <-told:
			return idle
		case <-time.After(5 * time.Second):
			t.Fatalf("OnIdle not called: waiting for %s", what)
			return false
		}
	}
	if !next("idle") {
		t.Fatal("OnIdle(false) first: the engine was never told idle")
	}
	h.write(p, prompt(sid, "again"))
	if next("work") {
		t.Fatal("OnIdle(true) twice in a row")
	}
}

// gatedScanner passes its first scan (the cold start's) and holds every
// later one until open is closed.
type gatedScanner struct {
	inner Scanner
	open  chan struct{}
	scans atomic.Int64
}

func (g *gatedScanner) Scan(ctx context.Context) ([]discover.Workspace, error) {
	if g.scans.Add(1) > 1 {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.inner.Scan(ctx)
}

// TestASessionAtWorkBringsABackedOffSweepBack: a session's file event
// that came before the sweep backed off told it nothing, and its
// workspace, found by a scan only after the sweep's look, was not there to
// keep it at its base rate. Once the workspace is read with its session
// at work, the sweep comes back to its base rate, as a file event would
// bring it: its reaps and quiet spells need it. Failed in a double round
// (TestATurnEndsWhenItsAgentDies waited for reaps a sweep backed off to a
// minute never made), with a start at rest and a session written just
// after it.
func TestASessionAtWorkBringsABackedOffSweepBack(t *testing.T) {
	const base = 300 * time.Millisecond // the first look waits this long after the start
	h := newHome(t)
	gate := &gatedScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}, open: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-gate.open:
		default:
			close(gate.open)
		}
	})
	r := h.startWith(func(c *Config) {
		c.Scanner = gate
		c.SweepEvery, c.ScanEvery, c.IdleScanEvery, c.QuietAfter = base, time.Hour, time.Hour, time.Hour
	})
	<-r.eng.CaughtUp()
	// Before the sweep's first look: its event comes while the sweep is
	// not backed off, and the scan it asks for is held.
	const sid = "eeeeeeee-1111-4111-8111-0000000000f4"
	dir, p := h.session("late", sid)
	h.write(p, prompt(sid, "run the slow build"), answer(sid, "m1", "running it", "tool_use"))
	every := func() time.Duration { return time.Duration(r.eng.sweepEvery.Load()) }
	waitFor(t, "the sweep backed off to a minute, the workspace not found yet", func() bool { return every() >= time.Minute })
	close(gate.open)
	id := r.waitWorkspace(t, dir)
	r.collect(t, id, 0, has(event.Status, event.StateWorking))
	waitFor(t, "the sweep back at its base rate", func() bool { return every() == base })
}
