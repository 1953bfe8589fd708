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
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-tab", "cursor", "s-other", "claude")
			write(t, w, "s-tab", "first prompt", "second prompt", "third prompt")
			write(t, w, "s-other", "not this tab's")
			tab := openTab(t, w, "s-tab")
			got, more := tab.prompts(2)
			if !more {
				t.Error("a full page says there is no more")
			}
			rest, more := tab.prompts(2)
			if more {
				t.Error("a short page says there is more")
			}
			got = append(got, rest...)
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
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-tab", "cursor", "s-other", "claude")
			write(t, w, "s-tab", "first prompt")
			if err := w.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < ?)
INSERT INTO session_messages (id, session_id, role, content, created_at) SELECT 'o-' || n, 's-other', 'user', 'not this tab''s', '2026-12-01 09:00:00' FROM c`, nearEnd+100); err != nil {
				t.Fatal(err)
			}
			write(t, w, "s-tab", "second prompt")
			tab := openTab(t, w, "s-tab")
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
				if got, _ := tab.prompts(512); !slices.Equal(got, c.want) {
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

// tabReader reads one tab's record as the engine does: a page of rows at
// a time, through the tab's own parser.
type tabReader struct {
	t   *testing.T
	rec agent.RowRecord
	p   *Parser
}

// openTab finds tab's record in w's database (FindRows), closed when the
// test ends, with a fresh parser.
func openTab(t *testing.T, w *conductordb.Writer, tab string) tabReader {
	t.Helper()
	rec, err := Agent{DB: w.Path}.FindRows(context.Background(), agent.RowSession{Tab: tab})
	if err != nil || rec == nil {
		t.Fatalf("FindRows = %v, %v", rec, err)
	}
	t.Cleanup(func() { rec.Close() })
	p, _ := NewParser(nil)
	return tabReader{t: t, rec: rec, p: p}
}

// prompts reads a page of at most limit rows after the parser's cursor
// and returns the person's prompts in it, and whether more rows were
// waiting.
func (r tabReader) prompts(limit int) (got []string, more bool) {
	r.t.Helper()
	more, err := r.rec.Read(context.Background(), r.p, limit, func(line []byte) {
		evs, err := r.p.Line(line, nil)
		if err != nil {
			r.t.Fatal(err)
		}
		for _, e := range evs {
			if e.Type == event.User {
				got = append(got, e.Content)
			}
		}
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return got, more
}
