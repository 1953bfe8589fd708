//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/testkit/fifotest"
)

// Issue 24, finding 4, for the bridge's own state: a FIFO in the place of
// any file the bridge reads as it starts must not hang it (a plain open of
// a FIFO waits for a writer forever). It starts, or refuses with an error,
// at once.
func TestStateFIFOsNeverBlockStart(t *testing.T) {
	for _, name := range []string{tokenFile, hookSecretFile, pairingFile, hooksSeenFile,
		"registered.json", "prices.json", filepath.Join("queue", "ws1.json")} {
		t.Run(name, func(t *testing.T) {
			c := config{Addr: "127.0.0.1:0"}
			c.Home = t.TempDir()
			if err := c.resolve(); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(c.StateDir, name)
			if err := os.MkdirAll(filepath.Dir(fifo), 0o700); err != nil {
				t.Fatal(err)
			}
			fifotest.Make(t, fifo, 0o600)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				b, err := startBridge(ctx, c, zerolog.Nop())
				if err == nil {
					cancel()
					<-b.done
					b.hub.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				t.Logf("with a FIFO as %s: %v", name, err)
			case <-time.After(60 * time.Second): // a hang guard, not a timing assertion
				t.Fatalf("starting blocked on a FIFO as %s", name)
			}
		})
	}
}
