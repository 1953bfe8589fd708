// Package codextest runs the real Codex CLI in tests: it finds an installed
// release, gives it a fake, deterministic CODEX_HOME whose config.toml
// points at a fake Responses API (testkit/fakemodel), and runs `codex exec`
// (and `codex exec resume`) with flags that let its shell tool run in a
// temp dir.
package codextest

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

// Latest is the Codex release installed on PATH in the dev image.
const Latest = "0.169.0"

// Legacy is the 2025 release kept side by side (/opt/codex-0.47.0), whose
// record format differs.
const Legacy = "0.47.0"

// Find returns the path of Codex release version (Latest when empty). When
// it is not installed the test is skipped, except under CI=true where a
// missing binary means a broken image and fails the test.
func Find(t testing.TB, version string) string {
	t.Helper()
	bin, err := Locate(version)
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("codextest: %v", err)
	}
	t.Skipf("codextest: %v", err)
	return ""
}

// EnvVar is the variable that may point at a given release's binary, e.g.
// CODEX_BIN_0_47_0.
func EnvVar(version string) string {
	return "CODEX_BIN_" + strings.NewReplacer(".", "_", "-", "_").Replace(version)
}

// Locate is Find without a test: it looks at $CODEX_BIN_<version>, then
// the side-by-side npm install /opt/codex-<version>, then codex on PATH,
// and checks the version of what it finds.
func Locate(version string) (string, error) {
	if version == "" {
		version = Latest
	}
	var candidates []string
	if p := os.Getenv(EnvVar(version)); p != "" {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, filepath.Join("/opt/codex-"+version, "node_modules", ".bin", "codex"))
	if p, err := exec.LookPath("codex"); err == nil {
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
	return "", fmt.Errorf("codex %s not found (set %s; seen: %s)", version, EnvVar(version), strings.Join(seen, ", "))
}

// Version reports the Codex release of bin, from the npm package.json
// beside the (symlink-resolved) launcher, else from `codex --version`
// ("codex-cli 0.169.0").
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
		if json.Unmarshal(data, &pkg) == nil && pkg.Name == "@openai/codex" {
			return pkg.Version, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return fields[len(fields)-1], nil
}
