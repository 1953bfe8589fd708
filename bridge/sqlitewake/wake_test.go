package sqlitewake

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadsOnEachWrite: a write to the WAL runs the reader with no poll
// (the poll is an hour), as does a wake.
func TestReadsOnEachWrite(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	reads := make(chan string, 64)
	var version atomic.Int64
	var seen int64
	wake := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, db, Options{Poll: time.Hour, Wake: wake}, func(context.Context) bool {
			reads <- "read"
			v := version.Load()
			changed := v != seen
			seen = v
			return changed
		})
	}()
	next := func(what string) {
		t.Helper()
		select {
		case <-reads:
		case <-time.After(10 * time.Second):
			t.Fatalf("no read after %s", what)
		}
	}
	next("start")
	version.Add(1) // a commit, then its WAL write
	if err := os.WriteFile(db+"-wal", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	next("a WAL write")
	wake <- struct{}{}
	next("a wake")
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Run returned %v", err)
	}
}
