package agenttest

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A process a test left behind, working in its home or with the home in
// its environment, in a group of its own as the bridge starts agent runs,
// is killed when the test ends; one elsewhere is not.
func TestKillLeftoversOf(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	start := func(dir string, env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		return cmd
	}
	inHome := start(home)
	named := start(elsewhere, "XDG_DATA_HOME="+home+"/.local/share")
	other := start(elsewhere)

	t.Run("the test", func(t *testing.T) { KillLeftoversOf(t, home) })

	for name, cmd := range map[string]*exec.Cmd{"working in the home": inHome, "naming the home": named} {
		// The kill was sent when the subtest ended: Wait returns at once.
		// The deadline is only a backstop against a sleep left running.
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var err error
		select {
		case err = <-waited:
		case <-time.After(30 * time.Second):
			t.Fatalf("the process %s still runs", name)
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the process %s ended with %v, want killed", name, err)
		}
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("a process of neither was killed: %v", err)
	}
}
