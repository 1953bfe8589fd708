package usage

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/usage/driver"
	"conductorbridge/testkit/opencodetest"
)

// TestOpenCodeCacheReadsOnlyNewRows: a warm read of an OpenCode database
// a commit changed reads the rows written since the last read and goes on
// from there (each session's parser where it stopped, a turn the end cut
// off made again), and reads the whole table again when the earlier rows
// are not as they were: rows deleted (a session's, the table's last), a
// VACUUM, the database replaced by one holding the rows in another
// order. Random steps of real OpenCode 1.18.33 rows, committed a few at a
// time to several sessions, checkpoints between them; after each the
// report equals an uncached read's, from the cache in memory and from its
// file.
func TestOpenCodeCacheReadsOnlyNewRows(t *testing.T) {
	run := loadOpenCodeRun(t)
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 29))
			dir := t.TempDir()
			w := opencodetest.NewDB(t, filepath.Join(dir, "opencode.db"), schema)
			formats := []driver.Format{opencode.NewDriver(w.Path)}
			path := filepath.Join(t.TempDir(), CacheFile)
			cache := &Cache{Path: path, share: 1}
			var commits []string     // each row's session, in commit order
			done := map[string]int{} // rows of each session committed
			sessions := []string{run.session, "ses_b", "ses_c", "ses_d"}
			commit := func(s string, n int) {
				k := min(done[s]+n, len(run.lines))
				w.Commit(t, run.session, s, run.lines[done[s]:k])
				for range k - done[s] {
					commits = append(commits, s)
				}
				done[s] = k
			}
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := w.SQL.Exec(q, args...); err != nil {
					t.Fatal(err)
				}
			}
			var resumed, reread int
			for step := range 80 {
				what, whole := "", false
				switch op := r.IntN(20); {
				case op < 12:
					s := sessions[r.IntN(len(sessions))]
					n := 1 + r.IntN(8)
					what = fmt.Sprintf("%d rows of %s", n, s)
					commit(s, n)
				case op < 14:
					what = "a checkpoint"
					w.Checkpoint(t)
				case op == 14 && len(commits) > 0:
					s := commits[len(commits)-1]
					what, whole = "the last row deleted", true
					exec("DELETE FROM event WHERE rowid = (SELECT max(rowid) FROM event)")
					commits = commits[:len(commits)-1]
					done[s]--
				case op == 15 && len(commits) > 0:
					s := commits[r.IntN(len(commits))]
					what, whole = "session "+s+" deleted", true
					exec("DELETE FROM event WHERE aggregate_id = ?", s)
					var kept []string
					for _, c := range commits {
						if c != s {
							kept = append(kept, c)
						}
					}
					commits, done[s] = kept, 0
				case op == 16:
					what, whole = "a VACUUM", true
					exec("VACUUM")
				case op == 17 && len(commits) > 0:
					what, whole = "the database replaced", true
					w = replaceOpenCodeDB(t, w, done, run)
					commits = commits[:0]
					for _, s := range []string{"ses_d", "ses_c", "ses_b", run.session} {
						for range done[s] {
							commits = append(commits, s)
						}
					}
				default:
					what = "nothing"
				}
				if r.IntN(3) == 0 {
					cache = &Cache{Path: path, share: 1} // the next run, from the file
				}
				was, wasReread := cache.resumed.Load(), cache.reread.Load()
				got, err := Source{Formats: formats, Cache: cache}.Read(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				want, err := Source{Formats: formats}.Read(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				sameReports(t, fmt.Sprintf("step %d, %s", step, what), want, got)
				if len(got.Errors) > 0 {
					t.Fatalf("step %d: %v", step, got.Errors)
				}
				dr, dw := cache.resumed.Load()-was, cache.reread.Load()-wasReread
				resumed, reread = resumed+int(dr), reread+int(dw)
				if whole && dr > 0 {
					t.Errorf("step %d, %s: read on from the rows before, not again", step, what)
				}
			}
			if resumed == 0 || reread == 0 {
				t.Errorf("%d reads went on from the last row, %d read the table again: want both", resumed, reread)
			}
		})
	}
}

// replaceOpenCodeDB puts in w's place a new database (another file)
// holding the same sessions' rows, committed in the other order, and
// returns its writer.
func replaceOpenCodeDB(t *testing.T, w *opencodetest.DB, done map[string]int, run openCodeRun) *opencodetest.DB {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "new.db")
	n := opencodetest.NewDB(t, tmp, schema)
	for _, s := range []string{"ses_d", "ses_c", "ses_b", run.session} {
		n.Commit(t, run.session, s, run.lines[:done[s]])
	}
	if err := n.SQL.Close(); err != nil { // checkpoints the WAL into it and removes it
		t.Fatal(err)
	}
	if err := w.SQL.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, w.Path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+w.Path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("SELECT count(*) FROM event"); err != nil { // opens it: its WAL is there, as OpenCode's is
		t.Fatal(err)
	}
	return &opencodetest.DB{Path: w.Path, SQL: db}
}
