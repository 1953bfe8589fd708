package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary plays an agent that runs its hook through a shell, as
// Claude Code may, and the hook that looks for its agent.
const (
	agentEnv = "PROC_TEST_AGENT"
	hookEnv  = "PROC_TEST_HOOK"
	agentArg = "--i-am-the-agent"
)

// runAgent runs the hook through sh -c (with a second command, so the
// shell stays between them instead of exec'ing it) and prints its own pid
// and the hook's answer.
func runAgent() int {
	exe, err := os.Executable()
	if err != nil {
		return 1
	}
	cmd := exec.Command("/bin/sh", "-c", "'"+exe+"'; true")
	cmd.Env = append(os.Environ(), agentEnv+"=", hookEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		return 1
	}
	fmt.Printf("%d %s", os.Getpid(), out)
	return 0
}

// TestAncestorFindsTheAgentAboveAShell: a hook run through a shell finds
// its agent two generations up, by the agent's arguments.
func TestAncestorFindsTheAgentAboveAShell(t *testing.T) {
	exe := testBinary(t)
	cmd := exec.Command(exe, agentArg)
	cmd.Env = append(os.Environ(), agentEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != f[1] || f[0] == "0" {
		t.Errorf("agent pid and the pid its hook found: %q", out)
	}
	// Nothing above this test is an agent: the walk gives up.
	if pid := Ancestor(os.Getpid(), func(string, []string) bool { return false }); pid != 0 {
		t.Errorf("found agent %d where there is none", pid)
	}
	if pid := Ancestor(os.Getpid(), func(_ string, args []string) bool { return len(args) > 0 && args[0] == os.Args[0] }); pid != os.Getpid() {
		t.Errorf("the process itself is not its own first ancestor: %d", pid)
	}
}

// TestParseStat reads the parent pid after a command name that holds
// spaces and parentheses.
func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line string
		comm string
		ppid int
		ok   bool
	}{
		{"4242 (claude) S 4100 4242 4100 0 -1", "claude", 4100, true},
		{"17 (a) b) (c) R 1 17 17 0", "a) b) (c", 1, true},
		{"17 (sh", "", 0, false},
		{"17 (sh) S", "", 0, false},
		{"17 (sh) S x", "", 0, false},
		{"", "", 0, false},
	} {
		p, ppid, err := parseStat([]byte(tc.line))
		if (err == nil) != tc.ok || p.Comm != tc.comm || ppid != tc.ppid {
			t.Errorf("parseStat(%q) = %q, %d, %v", tc.line, p.Comm, ppid, err)
		}
	}
}
