//go:build linux || darwin

package agenttest

import (
	"path/filepath"
	"slices"
	"testing"

	"conductorbridge/bridge/proc"
)

// StartAs's process shows as the name and arguments asked for, in the
// folder asked for, and reuse turns the same pid into another program.
func TestStartAs(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir()) // the table shows the real path
	if err != nil {
		t.Fatal(err)
	}
	cmd, reuse := StartAs(t, "claude", dir, "--resume", "abc")
	pid := cmd.Process.Pid
	args, err := proc.Args(pid)
	if err != nil {
		t.Fatal(err)
	}
	if args[0] != "claude" || !slices.Equal(args[len(args)-2:], []string{"--resume", "abc"}) {
		t.Errorf("arguments %q, want claude … --resume abc", args)
	}
	if cwd, err := proc.Cwd(pid); err != nil || cwd != dir {
		t.Errorf("folder %q (%v), want %q", cwd, err, dir)
	}
	reuse()
	if args, err := proc.Args(pid); err != nil || args[0] != "not-an-agent" {
		t.Errorf("after reuse, arguments %q (%v), want not-an-agent", args, err)
	}
}
