//go:build linux

package discover

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// startFakeClaude runs a copy of sleep named claude in a directory reached
// through a symlink, and returns it with the directory, resolved.
func startFakeClaude(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	root := resolvePath(t.TempDir())
	bin := filepath.Join(mkdir(t, filepath.Join(root, "bin")), "claude")
	copyFile(t, "/bin/sleep", bin, 0o755)
	work := mkdir(t, filepath.Join(root, "work", "tokyo"))
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "work"), link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "60")
	cmd.Dir = filepath.Join(link, "tokyo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, work
}

func TestClaudeProcesses(t *testing.T) {
	cmd, work := startFakeClaude(t)
	// The process may take a moment to exec into "claude".
	deadline := time.Now().Add(5 * time.Second)
	for {
		m, err := ClaudeProcesses()
		if err != nil {
			t.Fatal(err)
		}
		if m[work] == cmd.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d in %s not found: %v", cmd.Process.Pid, work, m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLsofClaudeCwds(t *testing.T) {
	lsof, err := exec.LookPath("lsof")
	if err != nil {
		t.Skip("no lsof")
	}
	cmd, work := startFakeClaude(t)
	deadline := time.Now().Add(5 * time.Second)
	for {
		m, err := lsofClaudeCwds(context.Background(), lsof)
		if err != nil {
			t.Fatal(err)
		}
		if m[work] == cmd.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lsof: pid %d in %s not found: %v", cmd.Process.Pid, work, m)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := lsofClaudeCwds(context.Background(), filepath.Join(t.TempDir(), "no-lsof")); err == nil {
		t.Error("no error without lsof")
	}
}

// TestProcClaudeCwds runs the /proc scan over a fake proc tree: processes
// that vanish or refuse are skipped, not errors.
func TestProcClaudeCwds(t *testing.T) {
	proc := t.TempDir()
	root := resolvePath(t.TempDir())
	a, b := mkdir(t, filepath.Join(root, "a")), mkdir(t, filepath.Join(root, "b"))
	fake := func(pid, comm, cmdline, cwd string) {
		dir := mkdir(t, filepath.Join(proc, pid))
		if comm != "" {
			writeFile(t, filepath.Join(dir, "comm"), comm+"\n")
		}
		writeFile(t, filepath.Join(dir, "cmdline"), cmdline)
		if cwd != "" {
			if err := os.Symlink(cwd, filepath.Join(dir, "cwd")); err != nil {
				t.Fatal(err)
			}
		}
	}
	fake("10", "claude", "claude\x00--resume\x00", a)
	fake("11", "node", "node\x00/x/@anthropic-ai/claude-code/cli.js\x00", b)
	fake("12", "claude", "claude\x00", b)                                  // same cwd, higher pid
	fake("13", "bash", "bash\x00-c\x00claude\x00", a)                      // not claude
	fake("14", "claude", "claude\x00", "")                                 // exited: no cwd
	fake("15", "claude", "claude\x00", filepath.Join(root, "x (deleted)")) // directory removed
	fake("16", "", "", a)                                                  // kernel thread / unreadable
	mkdir(t, filepath.Join(proc, "self"))
	writeFile(t, filepath.Join(proc, "uptime"), "1 1\n")

	got, err := procClaudeCwds(proc)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{a: 10, b: 11}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := procClaudeCwds(filepath.Join(proc, "missing")); err == nil {
		t.Error("no error without a proc filesystem")
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
