package proc

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// helperEnv makes the test binary a stand-in agent: it sleeps, with
// whatever arguments the test gave it, until killed.
const helperEnv = "PROC_TEST_SLEEP"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if os.Getenv(agentEnv) == "1" {
		os.Exit(runAgent())
	}
	if os.Getenv(hookEnv) == "1" {
		// Prints the pid of the first ancestor started as an agent.
		fmt.Println(Ancestor(os.Getppid(), func(_ string, args []string) bool { return slices.Contains(args, agentArg) }))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestListFindsAChildByItsArguments starts a real process whose
// arguments are those of a resumed Claude Code session, in a known
// directory, and finds it in the live process table by them.
func TestListFindsAChildByItsArguments(t *testing.T) {
	exe := testBinary(t)
	dir, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is /private/var
	if err != nil {
		t.Fatal(err)
	}
	const id = "5f0c3a52-8d1e-4c7b-9a36-2b8e1f4d7c90"
	cmd := &exec.Cmd{Path: exe, Args: []string{"claude", "--resume", id, "--verbose"}, Dir: dir,
		Env: append(os.Environ(), helperEnv+"=1")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid

	var found Process
	deadline := time.Now().Add(10 * time.Second)
	for found.PID == 0 {
		ps, err := List()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if SessionArg(p.Args) == id {
				found = p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process with --resume %s among %d", id, len(ps))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if found.PID != pid || !slices.Equal(found.Args, cmd.Args) {
		t.Errorf("found pid %d args %q, want %d %q", found.PID, found.Args, pid, cmd.Args)
	}
	args, err := Args(pid)
	if err != nil || !slices.Equal(args, cmd.Args) {
		t.Errorf("Args(%d) = %q, %v", pid, args, err)
	}
	cwd, err := Cwd(pid)
	if err != nil || cwd != dir {
		t.Errorf("Cwd(%d) = %q, %v; want %q", pid, cwd, err, dir)
	}
	if self, err := List(); err != nil || !slices.ContainsFunc(self, func(p Process) bool { return p.PID == os.Getpid() && p.Comm != "" }) {
		t.Errorf("this process is not in the table with a name (err %v)", err)
	}

	cmd.Process.Kill()
	cmd.Wait()
	if _, err := Cwd(pid); err == nil {
		t.Errorf("Cwd of an exited process: no error")
	}
	if _, err := Args(pid); err == nil {
		t.Errorf("Args of an exited process: no error")
	}
}

func TestSessionArg(t *testing.T) {
	const id = "5f0c3a52-8d1e-4c7b-9a36-2b8e1f4d7c90"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"claude", "--resume", id}, id},
		{[]string{"claude", "--resume=" + id}, id},
		{[]string{"claude", "-r", id, "-p", "hi"}, id},
		{[]string{"/usr/bin/node", "cli.js", "--session-id", id}, id},
		{[]string{"claude", "--session-id=" + id}, id},
		{[]string{"claude", "--resume"}, ""},                  // the picker
		{[]string{"claude", "--resume", "fix the build"}, ""}, // a prompt, not an id
		{[]string{"claude", "--resume", "--verbose"}, ""},     // a flag
		{[]string{"claude", "--session-id", "abc"}, ""},       // too short
		{[]string{"grep", "--", "--resume-x", id}, ""},        // not the flag
		{nil, ""},
	}
	for _, tt := range tests {
		if got := SessionArg(tt.args); got != tt.want {
			t.Errorf("SessionArg(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestParseProcArgsRefusesBrokenBuffers: what a well-formed buffer holds
// is checked against the kernel's own layout in TestParseXNUProcArgs2;
// here, buffers no kernel writes get an error or what they hold, never a
// panic.
func TestParseProcArgsRefusesBrokenBuffers(t *testing.T) {
	procargs := func(argc int32, body string) []byte {
		b := binary.NativeEndian.AppendUint32(nil, uint32(argc))
		return append(b, body...)
	}
	tests := []struct {
		name    string
		buf     []byte
		want    []string
		wantErr bool
	}{
		{"argc larger than the buffer", procargs(5, "/bin/x\x00x\x00y"), []string{"x", "y"}, false},
		{"argc huge", procargs(1<<31-1, "/bin/x\x00x\x00"), []string{"x"}, false},
		{"argc negative", procargs(-1, "/bin/x\x00x\x00"), nil, true},
		{"short", []byte{1, 0}, nil, true},
		{"no path end", procargs(1, "/bin/x"), nil, true},
	}
	for _, tt := range tests {
		got, err := parseProcArgs(tt.buf)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestPromptToolStdio(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"claude", "--permission-prompt-tool", "stdio", "--resume", "x"}, true},
		{[]string{"claude", "--permission-prompt-tool=stdio"}, true},
		{[]string{"claude", "--permission-prompt-tool", "mcp__perm__ask"}, false},
		{[]string{"claude", "--permission-prompt-tool"}, false},
		{[]string{"claude", "-p", "stdio"}, false},
	} {
		if got := PromptToolStdio(tt.args); got != tt.want {
			t.Errorf("PromptToolStdio(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestCodexThreadArg(t *testing.T) {
	const id = "019ae0b2-5b54-7821-8aa7-6fec34fa80df"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"codex", "resume", id}, id},
		{[]string{"codex", "exec", "--json", "resume", id, "hi"}, id},
		{[]string{"codex", "resume", "--last"}, ""},        // no id: the newest
		{[]string{"codex", "resume", "-c", "x=1", id}, ""}, // an option's value ends the search: no guess
		{[]string{"codex", "exec", "fix the resume flow"}, ""},
		{[]string{"codex", "resume", "fix it"}, ""}, // a prompt
		{[]string{"codex"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := CodexThreadArg(tt.args); got != tt.want {
			t.Errorf("CodexThreadArg(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// testBinary skips where there is no process table to read, and returns
// the path of the test binary, which the tests run as a stand-in agent.
func testBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no process table here")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
