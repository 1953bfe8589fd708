package codex

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/hooks"
)

// Issue 24, finding 5, for Codex: a dotfiles config.toml (a link into the
// dotfiles repository) was replaced by a copy with the bridge's hooks in
// it. A link, and a file git tracks, are refused with a message saying
// why; the link stays a link and its target is unchanged.
func TestCodexConfigLinksAndTrackedFilesRefused(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git not found")
		}
		t.Skip("git not found")
	}
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, tt := range []struct {
		name  string
		setup func(root, codexHome string) (watch string)
		want  string
	}{
		{"dotfiles link", func(root, h string) string {
			dot := filepath.Join(root, "dotfiles", "codex", "config.toml")
			os.MkdirAll(filepath.Dir(dot), 0o755)
			os.WriteFile(dot, []byte(userConfig), 0o644)
			os.MkdirAll(h, 0o755)
			if err := os.Symlink(dot, ConfigPath(h)); err != nil {
				t.Fatal(err)
			}
			return dot
		}, "symbolic link"},
		{"tracked by a dotfiles repository", func(root, h string) string {
			os.MkdirAll(h, 0o755)
			os.WriteFile(ConfigPath(h), []byte(userConfig), 0o644)
			gitRun(h, "init", "-q")
			gitRun(h, "add", "config.toml")
			gitRun(h, "commit", "-qm", "dotfiles")
			return ConfigPath(h)
		}, "git tracks it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			h := filepath.Join(root, ".codex")
			watch := tt.setup(root, h)
			lBefore, _ := os.Lstat(ConfigPath(h))
			for name, do := range map[string]func() error{
				"install":   func() error { _, err := InstallHooks(h, spec); return err },
				"uninstall": func() error { _, err := UninstallHooks(h); return err },
			} {
				err := do()
				if !errors.Is(err, hooks.ErrRefused) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v; want it refused (%q)", name, err, tt.want)
				}
				if b, _ := os.ReadFile(watch); string(b) != userConfig {
					t.Errorf("%s changed %s:\n%s", name, watch, b)
				}
				if l, _ := os.Lstat(ConfigPath(h)); l.Mode().Type() != lBefore.Mode().Type() {
					t.Errorf("%s made config.toml a %v (was %v)", name, l.Mode().Type(), lBefore.Mode().Type())
				}
			}
		})
	}
}
