package agenttest

import (
	"io"
	"os/exec"
	"testing"
	"time"

	"conductorbridge/bridge/proc"
)

// StartAs starts a real process that the process table shows as name (a
// shell renamed by exec -a) with args after it, in dir ("": this one),
// and waits until the table shows it so; it is killed when the test
// ends. reuse makes the same pid exec into a program that is no agent,
// "not-an-agent", as when an agent's pid is reused by another program,
// and waits until the table shows that. Where bash does not start, the
// test is skipped.
func StartAs(t testing.TB, name, dir string, args ...string) (cmd *exec.Cmd, reuse func()) {
	t.Helper()
	cmd = exec.Command("bash", append([]string{"-c", `exec -a "$0" bash -c 'read x; exec -a not-an-agent sleep 600' "$@"`, name}, args...)...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("no bash:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	WaitArgv0(t, cmd.Process.Pid, name)
	return cmd, func() {
		t.Helper()
		if _, err := io.WriteString(stdin, "go\n"); err != nil { // the line it waits for
			t.Fatal(err)
		}
		WaitArgv0(t, cmd.Process.Pid, "not-an-agent")
	}
}

// WaitArgv0 waits until the process table shows pid's first argument as
// name, and fails the test after 10 s.
func WaitArgv0(t testing.TB, pid int, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if a, err := proc.Args(pid); err == nil && len(a) > 0 && a[0] == name {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never ran as %s", pid, name)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table, not waiting out a race
	}
}
