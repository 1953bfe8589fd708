// Package agenttest runs any real agent CLI (Claude Code, Codex, OpenCode)
// in tests: it finds the installed release a test asks for and starts it
// in a throwaway home with nothing of the developer's environment. What
// differs between agents (the config a home needs, the arguments, how to
// read the record) stays in each agent's own kit (claudetest, codextest, …),
// which describes its binary with an Agent and starts it with Command.
package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
)

// Agent describes an agent CLI installed from npm.
type Agent struct {
	// Command is the launcher's name, on PATH and in node_modules/.bin.
	Command string
	// Package is its npm package ("@anthropic-ai/claude-code").
	Package string
	// Prefix is where other releases are installed side by side: release v
	// is under Prefix+v (npm install --prefix /opt/cc-2.0.77 …).
	Prefix string
	// EnvPrefix names the variables that may point at a release's binary:
	// EnvPrefix+"2_0_77".
	EnvPrefix string
	// Latest is the release on PATH in the dev image.
	Latest string
}

// Find returns the path of release version (Latest when empty). When it is
// not installed the test is skipped, except under CI=true where a missing
// binary means a broken image and fails the test.
func (a Agent) Find(t testing.TB, version string) string {
	t.Helper()
	bin, err := a.Locate(version)
	if err == nil {
		return bin
	}
	Missing(t, "agenttest: %v", err)
	return ""
}

// Missing skips the test for a tool this machine lacks, saying so, except
// under CI=true, where a missing tool means a broken image and fails it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// EnvVar is the variable that may point at a given release's binary
// (dots are awkward in shell variable names).
func (a Agent) EnvVar(version string) string {
	return a.EnvPrefix + strings.NewReplacer(".", "_", "-", "_").Replace(version)
}

// Locate is Find without a test: it looks at EnvVar(version), then the
// side-by-side install under Prefix, then Command on PATH, and checks the
// release of what it finds.
func (a Agent) Locate(version string) (string, error) {
	if version == "" {
		version = a.Latest
	}
	var candidates []string
	if p := os.Getenv(a.EnvVar(version)); p != "" {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, filepath.Join(a.Prefix+version, "node_modules", ".bin", a.Command))
	if p, err := exec.LookPath(a.Command); err == nil {
		candidates = append(candidates, p)
	}
	var seen []string
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		v, err := a.Version(c)
		if err != nil {
			seen = append(seen, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		if v == version {
			return c, nil
		}
		seen = append(seen, c+" is "+v)
	}
	return "", fmt.Errorf("%s %s not found (set %s; seen: %s)", a.Command, version, a.EnvVar(version), strings.Join(seen, ", "))
}

// Version reports the release of bin. It reads the npm package.json beside
// the (symlink-resolved) launcher, because running a node-based CLI just
// for --version costs seconds; else it takes the first word of
// `bin --version` that looks like a version ("2.1.328 (Claude Code)",
// "codex-cli 0.169.0").
func (a Agent) Version(bin string) (string, error) {
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
		if json.Unmarshal(data, &pkg) == nil && pkg.Name == a.Package {
			return pkg.Version, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if f[0] >= '0' && f[0] <= '9' && strings.Contains(f, ".") {
			return strings.TrimRightFunc(f, func(r rune) bool { return !unicode.IsDigit(r) }), nil
		}
	}
	return "", fmt.Errorf("%s --version printed no version: %q", bin, out)
}

// Environ is the complete environment of an agent run in home: nothing is
// inherited but PATH (node, bash, git), so a developer's own config
// folders, API keys or proxy settings never leak in. extra (KEY=VALUE) is
// appended, and so overrides.
func Environ(home string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TZ=UTC",
	}
	return append(env, extra...)
}

// Workspace is the default workspace of a run in home.
func Workspace(home string) string { return filepath.Join(home, "work", "demo") }

// Command builds bin args run in dir with env, in its own process group so
// that cancelling ctx also kills the shells its tools started, not only
// the launcher.
func Command(ctx context.Context, bin, dir string, env, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Output runs cmd to completion and returns what it wrote to stdout and
// stderr; a failure's error ends with the last 2000 bytes of its stderr.
func Output(cmd *exec.Cmd) (stdout, stderr []byte, err error) {
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.Bytes(), errOut.Bytes(), fmt.Errorf("%w; stderr: %s", err, Tail(bytes.TrimSpace(errOut.Bytes()), 2000))
	}
	return out.Bytes(), errOut.Bytes(), nil
}

// Workdir checks what every kit's run needs, its binary and its home,
// and returns the folder it runs in: dir, else Workspace(home). kit names
// the kit in the error.
func Workdir(kit, bin, home, dir string) (string, error) {
	if bin == "" || home == "" {
		return "", fmt.Errorf("%s: Options.Bin and Options.Home are required", kit)
	}
	if dir == "" {
		dir = Workspace(home)
	}
	return dir, nil
}

// WriteLine writes v to w as one line of JSON, as an agent's stdin
// protocols (stream-json, JSON-RPC over stdio) take a message.
func WriteLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write %T: %w", v, err)
	}
	return nil
}

// Tail is the last n bytes of b, for an error message.
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
