package conductor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// TestUsageCacheOfRowsEqualsUncached: Conductor's rows read on from the
// last one (driver.Rows) give the report a read of every row gives, step
// after random step: a Cursor tab's and an unknown agent's turns written
// a few rows at a time, a Claude tab's rows (counted elsewhere) between,
// the table's last row or a tab's rows deleted, a VACUUM, a checkpoint;
// from the cache in memory and from its file. Rows only added are read
// on from the last one; after a deletion or a VACUUM the table is read
// again.
func TestUsageCacheOfRowsEqualsUncached(t *testing.T) {
	shape := conductordb.Shapes(t)[0]
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 27))
			w := newDB(t, shape, "s-cursor", "cursor", "s-future", "devin-2", "s-claude", "claude")
			formats := []driver.Format{Agent{DB: w.Path, Root: t.TempDir()}, claudeLike{}}
			path := filepath.Join(t.TempDir(), usage.CacheFile)
			cache := &usage.Cache{Path: path}
			// A long Claude frame first: the database is large beside
			// what the cache keeps of where a read stopped, as a real
			// one is, so the cache keeps it.
			write(t, w, "s-claude", strings.Repeat("x", 256<<10))
			tabs := []string{"s-cursor", "s-future", "s-claude"}
			var resumed, reread int64
			next := map[string]int{}
			for step := range 60 {
				what, whole := "", false
				switch op := r.IntN(16); {
				case op < 11:
					tab := tabs[r.IntN(len(tabs))]
					rows := append(cursorTurn("x"), sdkTurn()...)
					n := 1 + r.IntN(5)
					for range n {
						write(t, w, tab, rows[next[tab]%len(rows)])
						next[tab]++
					}
					what = fmt.Sprintf("%d rows of %s", n, tab)
				case op == 11:
					what, whole = "the last row deleted", true
					must(t, w.Exec("DELETE FROM session_messages WHERE rowid = (SELECT max(rowid) FROM session_messages)"))
				case op == 12:
					tab := tabs[r.IntN(len(tabs))]
					what, whole = tab+"'s rows deleted", true
					must(t, w.Exec("DELETE FROM session_messages WHERE session_id = ?", tab))
				case op == 13:
					what, whole = "a VACUUM", true
					must(t, w.Exec("VACUUM"))
				case op == 14:
					what = "a checkpoint"
					must(t, w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"))
				default:
					what = "nothing"
				}
				if r.IntN(3) == 0 {
					cache = &usage.Cache{Path: path}
				}
				_, wasResumed, wasReread := cache.Reads()
				got, want := cachedAndUncached(t, formats, cache)
				_, nowResumed, nowReread := cache.Reads()
				resumed, reread = resumed+nowResumed-wasResumed, reread+nowReread-wasReread
				if whole && nowResumed > wasResumed {
					t.Errorf("step %d, %s: read on from the rows before, not again", step, what)
				}
				if d := reportsDiffer(t, want, got); d != "" {
					t.Fatalf("step %d, %s, %s", step, what, d)
				}
			}
			if resumed == 0 || reread == 0 {
				t.Errorf("%d reads went on from the last row, %d read the table again: want both", resumed, reread)
			}
		})
	}
}

// claudeLike is a Format that counts agent claude's tabs elsewhere.
type claudeLike struct{}

func (claudeLike) Name() string                         { return "claude" }
func (claudeLike) UsageHome() string                    { return "" }
func (claudeLike) UsageGroups() ([]driver.Group, error) { return nil, nil }

// cachedAndUncached reads formats' usage through cache, then again with
// no cache.
func cachedAndUncached(t *testing.T, formats []driver.Format, cache *usage.Cache) (got, want *usage.History) {
	t.Helper()
	got, err := usage.Source{Formats: formats, Cache: cache}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err = usage.Source{Formats: formats}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}

// reportsDiffer says where got's report by day, session, model or
// workspace is not want's: "" where each is the same.
func reportsDiffer(t *testing.T, want, got *usage.History) string {
	t.Helper()
	now := time.Now() // one moment for both: a current block says the time left
	for _, by := range []string{"day", "session", "model", "workspace"} {
		if a, b := reportOf(t, want, by, now), reportOf(t, got, by, now); !bytes.Equal(a, b) {
			return fmt.Sprintf("by %s:\nuncached %s\ncached   %s", by, a, b)
		}
	}
	return ""
}

func reportOf(t *testing.T, h *usage.History, by string, now time.Time) []byte {
	t.Helper()
	rep, err := usage.Summarize(h, usage.Query{By: by, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
