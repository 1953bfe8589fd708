package agenttest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// install lays out a fake npm install of pkg@version under prefix+version
// whose launcher prints says for --version (and has no package.json of
// pkg when pkg is ""), and returns the launcher's path.
func install(t *testing.T, prefix, pkg, version, says string) string {
	t.Helper()
	root := filepath.Join(prefix+version, "node_modules")
	lib := filepath.Join(root, "agent")
	if err := os.MkdirAll(filepath.Join(root, ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if pkg != "" {
		manifest := `{"name":"` + pkg + `","version":"` + version + `"}`
		if err := os.WriteFile(filepath.Join(lib, "package.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(lib, "cli.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho '"+says+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, ".bin", "fakeagent")
	if err := os.Symlink(script, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestLocateFindsTheReleaseAskedFor(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "fa-")
	a := Agent{Command: "fakeagent", Package: "@test/fakeagent", Prefix: prefix, EnvPrefix: "FAKEAGENT_BIN_", Latest: "3.0.0"}
	t.Setenv("PATH", t.TempDir()) // none on PATH
	side := install(t, prefix, a.Package, "2.0.77", "ignored: package.json wins")
	if got, err := a.Locate("2.0.77"); err != nil || got != side {
		t.Errorf("side-by-side release: %q %v", got, err)
	}
	// No package.json of its own: the version comes from --version, the
	// first word that looks like one.
	cli := install(t, filepath.Join(t.TempDir(), "x-"), "", "9.9.9", "fakeagent-cli 1.18.33")
	if v, err := a.Version(cli); err != nil || v != "1.18.33" {
		t.Errorf("--version: %q %v", v, err)
	}
	t.Setenv(a.EnvVar("1.18.33"), cli)
	if a.EnvVar("1.18.33") != "FAKEAGENT_BIN_1_18_33" {
		t.Errorf("env var %s", a.EnvVar("1.18.33"))
	}
	if got, err := a.Locate("1.18.33"); err != nil || got != cli {
		t.Errorf("from the variable: %q %v", got, err)
	}
	// A binary of another release is refused, and the error says what
	// was seen and which variable to set.
	t.Setenv(a.EnvVar("3.0.0"), side)
	if _, err := a.Locate(""); err == nil || !strings.Contains(err.Error(), "FAKEAGENT_BIN_3_0_0") || !strings.Contains(err.Error(), "is 2.0.77") {
		t.Errorf("wrong release accepted or unexplained: %v", err)
	}
}

func TestEnvironKeepsOnlyPath(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "real-key")
	t.Setenv("OPENAI_API_KEY", "real-key")
	env := Environ("/h", "EXTRA=1")
	want := []string{"PATH=" + os.Getenv("PATH"), "HOME=/h", "SHELL=/bin/bash", "LANG=C.UTF-8", "TZ=UTC", "EXTRA=1"}
	if !slices.Equal(env, want) {
		t.Errorf("env %v, want %v", env, want)
	}
}

// TestCommandKillsTheProcessGroup: cancelling a run also ends what the
// agent started (a shell's child), not only the launcher.
func TestCommandKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, "/bin/sh", dir, Environ(dir), []string{"-c", "sleep 300 & echo $!; wait"})
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the agent's child %d outlived the cancelled run", child)
		}
		runtime.Gosched()
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || !strings.Contains(string(stat), ") Z")
}
