package conductor

import (
	"context"
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
