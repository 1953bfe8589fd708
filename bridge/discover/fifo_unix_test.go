//go:build unix

package discover

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/fifotest"
)

// Issue 24, finding 4, for Conductor's database: SQLite opens the
// database's -wal, -shm and -journal beside it without O_NONBLOCK, so a FIFO
// in one of their places would hang every scan. The read is refused at
// once, naming the file, and nothing blocks.
func TestConductorDBSidecarFIFO(t *testing.T) {
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		t.Run(suffix, func(t *testing.T) {
			h := newFakeHome(t)
			createDB(t, h.db, "PRAGMA journal_mode=WAL", conductorSchema)
			for _, s := range []string{"-wal", "-shm", "-journal"} {
				os.Remove(h.db + s)
			}
			fifo := h.db + suffix
			fifotest.Make(t, fifo, 0o644)
			s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Processes: noProcs}
			for name, read := range map[string]func() error{
				"ReadConductor": func() error {
					_, err := ReadConductor(context.Background(), h.db, h.conductor)
					return err
				},
				"Scanner": func() error { _, err := s.readConductor(context.Background()); return err },
			} {
				done := make(chan error, 1)
				go func() { done <- read() }()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), "not a regular file") {
						t.Errorf("%s with a FIFO as %s: %v, want it refused", name, suffix, err)
					}
				case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
					t.Fatalf("%s blocked on a FIFO as %s", name, suffix)
				}
			}
		})
	}
}
