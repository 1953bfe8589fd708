package conductor

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// TestUsageWarmReadEqualsUncached: a warm read, which reads the rows
// after the mark in one pass by rowid and hands each to its tab, counts
// every row once: rows of two tabs interleaved after the mark (one
// ending a turn begun before it), a tab first seen after the mark, a tab
// with no row yet, a tab counted elsewhere before whose agent_type is now
// counted here (its rows before the mark read too), each in both schema
// shapes, then more rows of every tab after that read. Each read goes on
// from the last row (no whole read) and its report equals an uncached
// read's.
func TestUsageWarmReadEqualsUncached(t *testing.T) {
	turn := append(cursorTurn("x"), sdkTurn()...) // 16 rows: two turns
	cases := []struct {
		name  string
		after func(t *testing.T, shape conductordb.Shape, w *conductordb.Writer)
	}{
		{"two tabs interleaved", func(t *testing.T, _ conductordb.Shape, w *conductordb.Writer) {
			for i := 8; i < len(turn); i++ { // s-a's second turn; s-b's open one ends
				write(t, w, "s-a", turn[i])
				if i+3 < len(turn) {
					write(t, w, "s-b", turn[i+3])
				}
			}
		}},
		{"a tab first seen after the mark", func(t *testing.T, shape conductordb.Shape, w *conductordb.Writer) {
			must(t, w.AddTab(shape, "w-osaka", "s-d", "cursor", "new"))
			for _, r := range turn {
				write(t, w, "s-d", r)
				write(t, w, "s-a", r)
			}
		}},
		{"a tab with no row yet", func(t *testing.T, shape conductordb.Shape, w *conductordb.Writer) {
			must(t, w.AddTab(shape, "w-tokyo", "s-e", "cursor", "empty"))
			write(t, w, "s-b", turn[8:]...)
		}},
		{"a tab now counted here", func(t *testing.T, _ conductordb.Shape, w *conductordb.Writer) {
			must(t, w.Exec("UPDATE sessions SET agent_type = 'cursor' WHERE id = 's-c'"))
			write(t, w, "s-c", turn[:8]...)
		}},
	}
	for _, shape := range conductordb.Shapes(t) {
		for _, c := range cases {
			t.Run(shape.Name+"/"+c.name, func(t *testing.T) {
				w := newDB(t, shape, "s-a", "cursor", "s-b", "devin-2", "s-c", "claude")
				write(t, w, "s-c", strings.Repeat("x", 256<<10)) // the database large beside the cache's state
				write(t, w, "s-a", turn[:8]...)
				write(t, w, "s-c", turn...)
				write(t, w, "s-b", turn[:11]...) // its second turn open at the mark (sdkTurn's 3rd row)
				formats := []driver.Format{Agent{DB: w.Path, Root: t.TempDir()}, claudeLike{}}
				cache := &usage.Cache{Path: filepath.Join(t.TempDir(), usage.CacheFile)}
				read := func(what string) {
					t.Helper()
					_, wasResumed, _ := cache.Reads()
					got, want := cachedAndUncached(t, formats, cache)
					if _, nowResumed, _ := cache.Reads(); what != "first" && nowResumed == wasResumed {
						t.Fatalf("%s: read again from the first row, not on from the mark", what)
					}
					if len(got.Turns) != len(want.Turns) {
						t.Errorf("%s: %d turns, uncached %d", what, len(got.Turns), len(want.Turns))
					}
					if d := reportsDiffer(t, want, got); d != "" {
						t.Fatalf("%s, %s", what, d)
					}
				}
				read("first")
				c.after(t, shape, w)
				read(c.name)
				for _, r := range turn { // every tab again, interleaved (s-d, s-e: a tab or none)
					for _, tab := range []string{"s-a", "s-b", "s-c", "s-d", "s-e"} {
						write(t, w, tab, r)
					}
				}
				read("then rows of every tab")
			})
		}
	}
}

// TestUsageWarmReadAsksTheRowsAfterTheMarkByRowid: a warm read asks for
// the rows after the mark as a range of rowids, in both shapes of the
// table: SQLite's plan searches the table by its rowid, neither scanning
// nor going through the newer shape's index on session_id (which, asked
// a tab at a time, read each tab's whole history, every read) nor
// sorting.
func TestUsageWarmReadAsksTheRowsAfterTheMarkByRowid(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-a", "cursor")
			write(t, w, "s-a", cursorTurn("x")...)
			d := dbAt(w.Path)
			defer d.close()
			if err := d.open(context.Background()); err != nil {
				t.Fatal(err)
			}
			plan := queryPlan(t, w.Path, d.selectRows(rowsAfterMark), 3)
			if len(plan) != 1 || !strings.Contains(plan[0], "USING INTEGER PRIMARY KEY (rowid>?)") {
				t.Errorf("plan %q, want one search of the rowids after the mark", plan)
			}
		})
	}
}
