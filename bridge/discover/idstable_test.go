package discover

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// TestScanIDsStableWhileDatabaseUnreadable: a workspace keeps the id (and
// repo, name, archived) of the last good database read while the database
// cannot be read, whichever source finds it; a good read that no longer
// lists it sends it back to PathID, and a later failure does not revive
// the old id.
func TestScanIDsStableWhileDatabaseUnreadable(t *testing.T) {
	breakages := []struct {
		name    string
		slow    bool
		breakDB func(t *testing.T, db string) (repair func())
	}{{
		name: "garbage",
		breakDB: func(t *testing.T, db string) func() {
			removeDB(t, db)
			writeFile(t, db, strings.Repeat("garbage", 1000))
			return func() {}
		},
	}, {
		name: "directory",
		breakDB: func(t *testing.T, db string) func() {
			removeDB(t, db)
			mkdir(t, db)
			return func() {}
		},
	}, {
		name: "gone",
		breakDB: func(t *testing.T, db string) func() {
			removeDB(t, db)
			return func() {}
		},
	}, {
		name: "locked",
		slow: true, // waits out the busy timeout on every broken scan
		breakDB: func(t *testing.T, db string) func() {
			writer := openRW(t, db)
			ctx := context.Background()
			conn, err := writer.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			execConn := func(q string) {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			execConn("BEGIN EXCLUSIVE")
			execConn("UPDATE workspaces SET branch = 'x'")
			return func() {
				execConn("ROLLBACK")
				conn.Close()
				writer.Close()
			}
		},
	}}

	for _, bk := range breakages {
		t.Run(bk.name, func(t *testing.T) {
			if bk.slow && testing.Short() {
				t.Skip("waits for the busy timeout")
			}
			h := newFakeHome(t)
			tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
			paris := h.worktree("webapp", "paris", "me/paris") // archived, folder still there
			lima := h.worktree("api", "lima", "me/lima")       // never in the database
			// oslo is no worktree: only its transcript finds it when the
			// database cannot be read.
			oslo := mkdir(t, filepath.Join(h.conductor, "workspaces", "webapp", "oslo"))
			h.transcript(claude.EncodeProjectDir(oslo), "s.jsonl", time.Now(), record("user", oslo))

			const repos = `INSERT INTO repos VALUES ('r1', 'webapp', '', 'main', '');`
			const others = `INSERT INTO workspaces VALUES
				('w-paris', 'r1', 'paris', NULL, 'archived', NULL, NULL, ''),
				('w-oslo', 'r1', 'oslo', NULL, 'ready', NULL, NULL, '');`
			const withTokyo = `INSERT INTO workspaces VALUES ('w-tokyo', 'r1', 'tokyo', NULL, 'ready', NULL, NULL, '');`
			rewriteDB := func(stmts ...string) {
				removeDB(t, h.db)
				createDB(t, h.db, append([]string{conductorSchema, repos}, stmts...)...)
			}

			s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Agents: []Agent{h.claude()}, Processes: noProcs}
			type want struct {
				id, repo, name string
				archived       bool
			}
			check := func(step string, wants map[string]want) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				ws, err := s.Scan(ctx)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if len(ws) != len(wants) {
					t.Fatalf("%s: got %d workspaces, want %d:\n%s", step, len(ws), len(wants), dump(ws))
				}
				for _, w := range ws {
					x, ok := wants[w.Directory]
					if !ok {
						t.Errorf("%s: unexpected workspace %+v", step, w)
						continue
					}
					if got := (want{w.ID, w.Repo, w.Name, w.Archived}); got != x {
						t.Errorf("%s: %s (source %s):\n got %+v\nwant %+v", step, w.Directory, w.Source, got, x)
					}
				}
			}
			all := func(tokyoID string) map[string]want {
				return map[string]want{
					tokyo: {tokyoID, "webapp", "tokyo", false},
					paris: {"w-paris", "webapp", "paris", true},
					oslo:  {"w-oslo", "webapp", "oslo", false},
					lima:  {PathID(lima), "api", "lima", false},
				}
			}

			rewriteDB(withTokyo, others)
			check("good read", all("w-tokyo"))

			repair := bk.breakDB(t, h.db)
			check("database unreadable", all("w-tokyo"))
			check("database still unreadable", all("w-tokyo"))
			repair()

			rewriteDB(others) // tokyo deleted from the database
			check("good read without tokyo", all(PathID(tokyo)))

			repair = bk.breakDB(t, h.db)
			check("database unreadable again", all(PathID(tokyo)))
			repair()
		})
	}
}

// TestScanIDsNotRememberedWithoutDatabase: a Scanner that never read the
// database has nothing to remember.
func TestScanIDsNotRememberedWithoutDatabase(t *testing.T) {
	h := newFakeHome(t)
	tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
	writeFile(t, h.db, "garbage")
	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Processes: noProcs}
	ws, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].ID != PathID(tokyo) {
		t.Fatalf("scan: %s", dump(ws))
	}
}

// removeDB removes whatever is at path, with SQLite's side files.
func removeDB(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-journal", path + "-wal", path + "-shm"} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}
