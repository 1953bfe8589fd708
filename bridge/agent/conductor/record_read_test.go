package conductor

import (
	"context"
	"slices"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
)

// The engine reads a tab it has no reader for through FindRows: its rows
// after the parser's cursor, a page at a time, from a real database of
// each schema shape.
func TestTabRecordReadsRowsAfterTheCursor(t *testing.T) {
	ctx := context.Background()
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-tab", "cursor", "s-other", "claude")
			write(t, w, "s-tab", "first prompt", "second prompt", "third prompt")
			write(t, w, "s-other", "not this tab's")
			rec, err := Agent{DB: w.Path}.FindRows(ctx, agent.RowSession{Tab: "s-tab"})
			if err != nil || rec == nil {
				t.Fatalf("FindRows = %v, %v", rec, err)
			}
			defer rec.Close()
			p, _ := NewParser(nil)
			var got []string
			read := func(limit int) bool {
				t.Helper()
				more, err := rec.Read(ctx, p, limit, func(line []byte) {
					evs, err := p.Line(line, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range evs {
						if e.Type == event.User {
							got = append(got, e.Content)
						}
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				return more
			}
			if !read(2) {
				t.Error("a full page says there is no more")
			}
			if read(2) {
				t.Error("a short page says there is more")
			}
			want := []string{"first prompt", "second prompt", "third prompt"}
			if len(got) != len(want) {
				t.Fatalf("prompts %q, want %q", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("prompt %d = %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}

// TestTabRecordReadsNearAndFarFromTheEnd: a tab whose cursor is far from
// the table's end (rows of another tab written since) is read through
// the tab's index, one near it by rowid, and both hand over exactly the
// tab's rows after the cursor, in order, in each schema shape. Read by
// rowid, SQLite's plan neither scans nor sorts: through the newer
// shape's index it read the tab's whole history and sorted it, at every
// row.
func TestTabRecordReadsNearAndFarFromTheEnd(t *testing.T) {
	ctx := context.Background()
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-tab", "cursor", "s-other", "claude")
			write(t, w, "s-tab", "first prompt")
			if err := w.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < ?)
INSERT INTO session_messages (id, session_id, role, content, created_at) SELECT 'o-' || n, 's-other', 'user', 'not this tab''s', '2026-12-01 09:00:00' FROM c`, nearEnd+100); err != nil {
				t.Fatal(err)
			}
			write(t, w, "s-tab", "second prompt")
			rec, err := Agent{DB: w.Path}.FindRows(ctx, agent.RowSession{Tab: "s-tab"})
			if err != nil || rec == nil {
				t.Fatalf("FindRows = %v, %v", rec, err)
			}
			defer rec.Close()
			p, _ := NewParser(nil)
			read := func() (got []string) {
				t.Helper()
				if _, err := rec.Read(ctx, p, 512, func(line []byte) {
					evs, err := p.Line(line, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range evs {
						if e.Type == event.User {
							got = append(got, e.Content)
						}
					}
				}); err != nil {
					t.Fatal(err)
				}
				return got
			}
			for _, c := range []struct {
				name  string
				write []any
				want  []string
			}{
				{"far from the end: from the first row", nil, []string{"first prompt", "second prompt"}},
				{"near the end", []any{"third prompt", "fourth prompt"}, []string{"third prompt", "fourth prompt"}},
				{"nothing new", nil, nil},
			} {
				write(t, w, "s-tab", c.write...)
				if got := read(); !slices.Equal(got, c.want) {
					t.Errorf("%s: prompts %q, want %q", c.name, got, c.want)
				}
			}
			for _, step := range queryPlan(t, w.Path, "SELECT rowid, content FROM session_messages WHERE "+rowsAfter+" ORDER BY rowid LIMIT 512", "s-tab", 1) {
				if strings.HasPrefix(step, "SCAN") || strings.Contains(step, "TEMP B-TREE") {
					t.Errorf("plan step %q reads more than the rows after the cursor", step)
				}
			}
		})
	}
}
