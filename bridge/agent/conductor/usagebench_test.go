package conductor

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// BenchmarkConductorWarmRead: a warm usage read of a Conductor database
// (the newer schema, with its index on session_id) of 100,000
// session_messages rows of 1,000 Cursor tabs, written interleaved as
// tabs at work at once write them, after one more row was committed: the
// cached read goes on from the last row read.
func BenchmarkConductorWarmRead(b *testing.B) {
	shape := conductordb.AllShapes()[1]
	if !shape.LocalID {
		b.Fatal("the newer shape is not the second")
	}
	const tabs, rows = 1_000, 100_000
	w, err := conductordb.Create(filepath.Join(b.TempDir(), "conductor.db"), shape.Schema)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for i := range tabs {
		if err := w.AddTab(shape, fmt.Sprintf("w-%d", i%20), fmt.Sprintf("s-%04d", i), "cursor", "a tab"); err != nil {
			b.Fatal(err)
		}
	}
	var frames []string // a turn's rows, as Conductor stores them
	for _, f := range cursorTurn("the file's text") {
		if s, ok := f.(string); ok {
			frames = append(frames, s)
			continue
		}
		j, err := json.Marshal(f)
		if err != nil {
			b.Fatal(err)
		}
		frames = append(frames, string(j))
	}
	n := 0 // rows written: row n is tab n%tabs's
	insert := func(db interface {
		Exec(string, ...any) (sql.Result, error)
	}) {
		tab, k := n%tabs, n/tabs
		role := "assistant"
		if k%len(frames) == 0 {
			role = "user"
		}
		if _, err := db.Exec("INSERT INTO session_messages (id, session_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
			fmt.Sprintf("m-%07d", n), fmt.Sprintf("s-%04d", tab), role, frames[k%len(frames)], "2026-12-01 09:00:00"); err != nil {
			b.Fatal(err)
		}
		n++
	}
	db, err := sql.Open("sqlite", "file:"+w.Path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for range rows {
		insert(tx)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	cache := &usage.Cache{Path: filepath.Join(b.TempDir(), usage.CacheFile)}
	src := usage.Source{Formats: []driver.Format{Agent{DB: w.Path, Root: b.TempDir()}}, Cache: cache}
	ctx := context.Background()
	first, err := src.Read(ctx)
	if err != nil || len(first.Errors) > 0 || len(first.Turns) == 0 {
		b.Fatalf("%v %v: %d turns", err, first.Errors, len(first.Turns))
	}
	for b.Loop() {
		b.StopTimer()
		insert(db)
		b.StartTimer()
		h, err := src.Read(ctx)
		if err != nil || len(h.Errors) > 0 || len(h.Turns) < len(first.Turns) {
			b.Fatalf("%v %v: %d turns", err, h.Errors, len(h.Turns))
		}
	}
	if _, resumed, _ := cache.Reads(); resumed == 0 {
		b.Fatal("no read went on from the last row")
	}
}
