package engine

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
	_ "modernc.org/sqlite"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
)

// What an idle bridge does in its first minute: each burst of system
// calls (a scan, a sweep) wakes the runtime's threads tens of times, so
// none may run for nothing.

// A scan asked for before a scan begins is that scan: it reads everything
// after the ask. The projects root's watch, taken just before the first
// scan, asks for one, and a second scan right after the first was a burst
// of about a hundred wake-ups at the start of an idle bridge's first
// minute. An ask made while a scan runs still gets a scan of its own.
func TestAScanAnswersTheAsksMadeBeforeIt(t *testing.T) {
	for _, tt := range []struct {
		name    string
		askWhen string // "before" the scan begins, or "during" it
		pending bool   // an ask is left for the scan loop afterwards
	}{
		{"asked before the scan began", "before", false},
		{"asked while it ran", "during", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			cs := &countingScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}}
			e := New(Config{Scanner: cs, Log: zerolog.Nop(), Agents: testAgents(h.projects, "")})
			block := make(chan struct{})
			cs.block.Store(&block)
			if tt.askWhen == "before" {
				e.askRescan()
			}
			done := make(chan struct{})
			go func() { e.scan(context.Background()); close(done) }()
			waitFor(t, "the scan to begin", func() bool { return cs.n.Load() == 1 })
			if tt.askWhen == "during" {
				e.askRescan()
			}
			close(block)
			<-done
			if got := len(e.rescan) == 1; got != tt.pending {
				t.Errorf("a scan pending after it: %v, want %v", got, tt.pending)
			}
		})
	}
}

// Conductor's database with Conductor closed has no -wal: the bridge's own
// read-only connection makes it, empty, and sets its mode, and the watch
// on the database's folder hears both. Neither is a commit, and neither
// may ask for a scan (it was a second scan right after the first, at the
// start of an idle bridge's first minute); a commit afterwards does.
func TestOwnOpenOfConductorsDatabaseAsksNoScan(t *testing.T) {
	h := newHome(t)
	folder := filepath.Join(h.root, "conductor-app")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(folder, "conductor.db")
	w, err := conductordb.Create(dbPath, conductordb.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // Conductor quits: its -wal goes
		t.Fatal(err)
	}
	if _, err := os.Stat(dbPath + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("a -wal left after Conductor closed its database: %v", err)
	}
	e := New(Config{Log: zerolog.Nop(), Agents: testAgents(h.projects, "")})
	e.rescanOn = map[string]bool{dbPath: true, dbPath + "-wal": true}
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if err := watcher.Add(folder); err != nil {
		t.Fatal(err)
	}
	// events returns what the watch heard until a marker file made after
	// the change: inotify reports in order.
	marker := filepath.Join(folder, "marker")
	events := func() []fsnotify.Event {
		t.Helper()
		os.Remove(marker)
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var out []fsnotify.Event
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev := <-watcher.Events:
				if ev.Name == marker {
					if ev.Has(fsnotify.Create) {
						return out
					}
					continue
				}
				out = append(out, ev)
			case err := <-watcher.Errors:
				t.Fatal(err)
			case <-timeout:
				t.Fatal("the marker's event never came")
			}
		}
	}

	scanner := &discover.Scanner{ConductorDB: dbPath, ConductorRoot: filepath.Join(h.root, "conductor"),
		Processes: func() (map[string]int, error) { return nil, nil }}
	defer scanner.Close()
	if _, err := scanner.Scan(context.Background()); err != nil { // the bridge's read-only connection opens it
		t.Fatal(err)
	}
	opened := events()
	walMade := false
	for _, ev := range opened {
		walMade = walMade || (ev.Name == dbPath+"-wal" && ev.Has(fsnotify.Create))
		e.route(ev, nil)
	}
	if !walMade {
		t.Fatalf("the read-only open made no -wal (events: %v): this test proves nothing here", opened)
	}
	if len(e.rescan) != 0 {
		t.Errorf("the bridge's own open of the database (%v) asked for a scan", opened)
	}

	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO repos (id, name) VALUES ('r1', 'webapp')`); err != nil {
		t.Fatal(err)
	}
	for _, ev := range events() {
		e.route(ev, nil)
	}
	if len(e.rescan) != 1 {
		t.Error("a commit asked for no scan")
	}
}

// A start that finds every session at rest is an idle spell already: once
// the cold start has caught up with nothing asked for, the scan timer
// moves on to the third step of its back-off (16 times its base), as if
// the scans of its first two steps had found nothing new; those two were
// most of an idle bridge's first minute. A start with an agent at work
// keeps its base interval. The timers are hours here, so none fires
// while the test looks.
func TestAnIdleStartBacksTheScanTimerOff(t *testing.T) {
	const base = time.Hour
	for _, tt := range []struct {
		name    string
		lines   func(sid string) []string
		atRest  bool
		atLeast time.Duration // the scan timer is due at least this long after the cold start's scan
	}{
		{"all at rest", func(sid string) []string { return []string{prompt(sid, "hello"), answer(sid, "m1", "hi", "end_turn")} }, true, 15 * base},
		{"an agent at work", func(sid string) []string { return []string{prompt(sid, "hello")} }, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			dir, proj := h.workspace("start")
			const sid = "eeeeeeee-1111-4111-8111-0000000000f2"
			cwdOf[sid] = dir
			h.write(filepath.Join(proj, sid+".jsonl"), tt.lines(sid)...)
			r := h.startWith(func(c *Config) { c.ScanEvery, c.IdleScanEvery, c.QuietAfter = base, 100*base, time.Hour })
			<-r.eng.CaughtUp()
			if got := r.eng.atRest(); got != tt.atRest {
				t.Fatalf("atRest = %v, want %v", got, tt.atRest)
			}
			cold := time.Unix(0, r.eng.scanBegan.Load())
			due := func() time.Duration { return time.Unix(0, r.eng.scanDue.Load()).Sub(cold) }
			if tt.atLeast > 0 {
				waitFor(t, "the scan timer backed off", func() bool { return due() >= tt.atLeast })
			} else if due() > 2*base {
				t.Errorf("with an agent at work the scan timer is due %v after the cold start, want its base %v", due(), base)
			}
		})
	}
}
