package usage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/usage/driver"
	"conductorbridge/testkit/opencodetest"
)

// BenchmarkOpenCodeWarmRead: a warm usage read of an OpenCode database
// of 100,000 event rows (the real run's 31 rows in 3,226 sessions) after
// one more row was committed: "rows" goes on from the last row read
// (this cache), "whole" reads every row, as a warm read of a changed
// database did before.
func BenchmarkOpenCodeWarmRead(b *testing.B) {
	run := loadOpenCodeRun(b)
	w := opencodetest.NewDB(b, filepath.Join(b.TempDir(), "opencode.db"), schema)
	tx, err := w.SQL.Begin()
	if err != nil {
		b.Fatal(err)
	}
	type row struct {
		Seq  int64           `json:"seq"`
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	sessions := 100_000 / len(run.lines)
	for s := range sessions {
		id := fmt.Sprintf("ses_%06d", s)
		for _, line := range run.lines {
			var r row
			if err := json.Unmarshal(bytes.ReplaceAll(line, []byte(run.session), []byte(id)), &r); err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec("INSERT INTO event (id, aggregate_id, seq, type, data) VALUES (?, ?, ?, ?, ?)",
				fmt.Sprintf("evt_%s_%d", id, r.Seq), id, r.Seq, r.Type, string(r.Data)); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.Exec("INSERT INTO event_sequence (aggregate_id, seq) VALUES (?, ?)", id, len(run.lines)-1); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// One more row each time: the last session's last row again, later.
	var last row
	if err := json.Unmarshal(run.lines[len(run.lines)-1], &last); err != nil {
		b.Fatal(err)
	}
	id := fmt.Sprintf("ses_%06d", sessions-1)
	data := bytes.ReplaceAll(last.Data, []byte(run.session), []byte(id))
	seq := int64(len(run.lines))
	commit := func() {
		if _, err := w.SQL.Exec("INSERT INTO event (id, aggregate_id, seq, type, data) VALUES (?, ?, ?, ?, ?)",
			fmt.Sprintf("evt_%s_%d", id, seq), id, seq, last.Type, string(data)); err != nil {
			b.Fatal(err)
		}
		seq++
	}
	formats := []driver.Format{opencode.NewDriver(w.Path)}
	for _, mode := range []string{"rows", "whole"} {
		b.Run(mode, func(b *testing.B) {
			src := Source{Formats: formats, Cache: &Cache{Path: filepath.Join(b.TempDir(), CacheFile)}}
			if _, err := src.Read(context.Background()); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				commit()
				b.StartTimer()
				var h *History
				var err error
				if mode == "rows" {
					h, err = src.Read(context.Background())
				} else {
					h, err = src.ReadFresh(context.Background())
				}
				if err != nil || len(h.Turns) != sessions {
					b.Fatalf("%d turns, %v", len(h.Turns), err)
				}
			}
			if mode == "rows" && src.Cache.resumed.Load() == 0 {
				b.Fatal("no read went on from the last row")
			}
			for _, e := range src.Cache.m {
				b.ReportMetric(float64(max(len(e.snap.raw), int(e.snap.at.n))), "state-B")
			}
		})
	}
}
