package agenttest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The gated command waits while its gate is shut, goes through when it
// opens, and ends when the gate's folder is gone (the test that made it is
// over), so an agent killed mid-command leaves no shell polling for ever.
func TestGate(t *testing.T) {
	for _, end := range []string{"opened", "folder removed"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			g := NewGate(dir)
			cmd := exec.Command("sh", "-c", g.Command())
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := g.Started(ctx); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case err := <-waited:
				t.Fatalf("the command went through a shut gate: %v", err)
			default:
			}
			if end == "opened" {
				if err := g.Open(); err != nil {
					t.Fatal(err)
				}
			} else if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-waited:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second): // a backstop: it ends within 50 ms
				t.Fatalf("the command still waits after the gate was %s", end)
			}
		})
	}
}
