// Package claudetest runs the real Claude Code binary in tests: it finds
// an installed version, gives it a fake, deterministic home and
// environment pointed at a fake model server, and runs it either once
// (-p) or as a long-lived stream-json process like Conductor does.
package claudetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Latest is the Claude Code version installed on PATH in the dev image.
const Latest = "2.1.328"

// Find returns the path of Claude Code version (Latest when empty). When
// it is not installed the test is skipped, except under CI=true where a
// missing binary means a broken image and fails the test.
func Find(t testing.TB, version string) string {
	t.Helper()
	bin, err := Locate(version)
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("claudetest: %v", err)
	}
	t.Skipf("claudetest: %v", err)
	return ""
}

// EnvVar is the variable that may point at a given version's binary,
// e.g. CLAUDE_BIN_2_0_77 (dots are awkward in shell variable names).
func EnvVar(version string) string {
	return "CLAUDE_BIN_" + strings.NewReplacer(".", "_", "-", "_").Replace(version)
}

// Locate is Find without a test: it looks at $CLAUDE_BIN_<version>, then
// the side-by-side npm install /opt/cc-<version>, then claude on PATH, and
// checks the version of what it finds.
func Locate(version string) (string, error) {
	if version == "" {
		version = Latest
	}
	var candidates []string
	if p := os.Getenv(EnvVar(version)); p != "" {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, filepath.Join("/opt/cc-"+version, "node_modules", ".bin", "claude"))
	if p, err := exec.LookPath("claude"); err == nil {
		candidates = append(candidates, p)
	}
	var seen []string
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		v, err := Version(c)
		if err != nil {
			seen = append(seen, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		if v == version {
			return c, nil
		}
		seen = append(seen, c+" is "+v)
	}
	return "", fmt.Errorf("claude %s not found (set %s; seen: %s)", version, EnvVar(version), strings.Join(seen, ", "))
}

// Version reports the Claude Code version of bin. It reads the npm
// package.json next to the (symlink-resolved) binary because running the
// node-based versions just for --version costs a couple of seconds.
func Version(bin string) (string, error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", bin, err)
	}
	for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct{ Name, Version string }
		if json.Unmarshal(data, &pkg) == nil && pkg.Name == "@anthropic-ai/claude-code" {
			return pkg.Version, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	// "2.1.328 (Claude Code)"
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return fields[0], nil
}
