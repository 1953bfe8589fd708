package agenttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// Recorded waits for a record holding the gated command: not for a record
// without it, nor for one naming another gate; it returns once the line
// is written, and gives up when its context ends.
func TestGateRecorded(t *testing.T) {
	dir := t.TempDir()
	g, other := NewGate(t.TempDir()), NewGate(t.TempDir())
	record := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(record, []byte(`{"type":"user"}`+"\n"+`{"command":"`+other.Command()+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := g.Recorded(short, filepath.Join(dir, "*.jsonl")); err == nil {
		t.Fatal("Recorded returned for a record without the gated command")
	}
	f, err := os.OpenFile(record, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(`{"command":"` + g.Command() + `"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	if err := g.Recorded(ctx, filepath.Join(dir, "*.jsonl")); err != nil {
		t.Fatal(err)
	}
}
