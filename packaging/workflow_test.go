package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// macosWorkflow is the one workflow: the Mac runs what Linux cannot.
var macosWorkflow = filepath.Join("..", ".github", "workflows", "macos.yml")

// TestMacOSWorkflowLints runs actionlint (the Go module, pinned in
// go.mod) on macos.yml, which has never run: syntax, expressions, action
// inputs, runner labels, and each run: script through shellcheck. Without
// shellcheck the scripts go unchecked locally; under CI=true it must be
// there (CI installs Debian's shellcheck).
func TestMacOSWorkflowLints(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is not installed (apt-get install shellcheck): CI lints the workflow's scripts with it")
		}
		t.Log("no shellcheck: the workflow's run: scripts are not checked")
		shellcheck = ""
	}
	var out strings.Builder
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: shellcheck, Oneline: true})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile(macosWorkflow, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Errorf("actionlint: %d problems in macos.yml:\n%s", len(errs), out.String())
	}
}

// TestMacOSWorkflowBuildsAndTestsTheDarwinCode: macos.yml must compile
// the cgo code (the menu bar, notifications) and run, with CI=true, the
// tests that only a Mac can run, and must need nothing beside the
// repository.
func TestMacOSWorkflowBuildsAndTestsTheDarwinCode(t *testing.T) {
	b, err := os.ReadFile(macosWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	wf := string(b)
	for _, want := range []string{
		"CGO_ENABLED=1 go build",
		"CGO_ENABLED=0 go vet ./...",
		"./bridge/peer",      // the peer uid against the live pcblist_n
		"./bridge/proc",      // the process table, and the SDK's own headers against the transcriptions
		"./bridge/httplimit", // the descriptor limit the kernel enforces
		"./tray",             // UNUserNotificationCenter, built with cgo
	} {
		if !strings.Contains(wf, want) {
			t.Errorf("macos.yml does not run %q", want)
		}
	}
	if strings.Contains(wf, "shared/") {
		t.Error("macos.yml refers to a shared/ folder: the repository must be self-contained")
	}
}
