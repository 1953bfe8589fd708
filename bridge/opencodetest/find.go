// Package opencodetest runs the real OpenCode CLI (npm opencode-ai) in
// tests: it finds the pinned release, gives it a throwaway home whose
// opencode.json points a provider at a fake model server
// (testkit/fakemodel, OpenAI's Responses API through OpenCode's bundled
// @ai-sdk/openai), and runs `opencode run` and `opencode acp` there.
package opencodetest

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

// Version is the release the tests are pinned to (.ci/run installs it in
// /opt/opencode-<Version>).
const Version = "1.18.33"

// EnvBin may point at the binary of Version.
const EnvBin = "OPENCODE_BIN"

// Find returns the path of the pinned release. When it is not installed
// the test is skipped, except under CI=true where it fails.
func Find(t testing.TB) string {
	t.Helper()
	bin, err := Locate()
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("opencodetest: %v", err)
	}
	t.Skipf("opencodetest: %v", err)
	return ""
}

// Locate is Find without a test: $OPENCODE_BIN, then the side-by-side npm
// install /opt/opencode-<Version>, then opencode on PATH, each checked for
// its version.
func Locate() (string, error) {
	var candidates []string
	if p := os.Getenv(EnvBin); p != "" {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, filepath.Join("/opt/opencode-"+Version, "node_modules", ".bin", "opencode"))
	if p, err := exec.LookPath("opencode"); err == nil {
		candidates = append(candidates, p)
	}
	var seen []string
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		v, err := BinVersion(c)
		if err != nil {
			seen = append(seen, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		if v == Version {
			return c, nil
		}
		seen = append(seen, c+" is "+v)
	}
	return "", fmt.Errorf("opencode %s not found (set %s; seen: %s)", Version, EnvBin, strings.Join(seen, ", "))
}

// BinVersion is the release of bin: the opencode-ai package.json above
// the resolved launcher, else `opencode --version`.
func BinVersion(bin string) (string, error) {
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
		if json.Unmarshal(data, &pkg) == nil && pkg.Name == "opencode-ai" {
			return pkg.Version, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}
