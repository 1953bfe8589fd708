package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24, finding 5: a repository shipped .claude/settings.local.json as
// a tracked link to ~/.claude/settings.json, and hook install merged the
// user's global settings (API key included) into the file the repository
// tracks. Every way a write could land where it must not is refused, with
// a message that says why, and nothing is written anywhere.
func TestInstallRefusesLinksAndTrackedFiles(t *testing.T) {
	git := gitOrSkip(t)
	const global = `{"env": {"ANTHROPIC_API_KEY": "sk-ant-secret"}, "model": "opus"}` + "\n"
	tests := []struct {
		name  string
		setup func(t *testing.T, repo, home string)
		want  string // in the error
	}{
		{"tracked link to the global settings", func(t *testing.T, repo, home string) {
			link(t, filepath.Join(home, ".claude", "settings.json"), filepath.Join(repo, ".claude", "settings.local.json"))
			run(t, repo, git, "add", ".claude/settings.local.json")
			run(t, repo, git, "commit", "-qm", "settings")
		}, "symbolic link"},
		{"untracked link", func(t *testing.T, repo, home string) {
			link(t, filepath.Join(home, ".claude", "settings.json"), filepath.Join(repo, ".claude", "settings.local.json"))
		}, "symbolic link"},
		{".claude is a link to the user's", func(t *testing.T, repo, home string) {
			link(t, filepath.Join(home, ".claude"), filepath.Join(repo, ".claude"))
		}, "its folder"},
		{"tracked regular file", func(t *testing.T, repo, home string) {
			write(t, filepath.Join(repo, ".claude", "settings.local.json"), `{"model": "sonnet"}`+"\n")
			run(t, repo, git, "add", ".claude/settings.local.json")
			run(t, repo, git, "commit", "-qm", "settings")
		}, "git tracks it"},
		{"info/exclude is a link", func(t *testing.T, repo, home string) {
			os.Remove(filepath.Join(repo, ".git", "info", "exclude"))
			write(t, filepath.Join(home, "dotfiles", "gitexclude"), "*.swp\n")
			link(t, filepath.Join(home, "dotfiles", "gitexclude"), filepath.Join(repo, ".git", "info", "exclude"))
		}, "symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
			write(t, filepath.Join(home, ".claude", "settings.json"), global)
			os.MkdirAll(repo, 0o755)
			run(t, repo, git, "init", "-q")
			write(t, filepath.Join(repo, "README.md"), "hi\n")
			run(t, repo, git, "add", "README.md")
			run(t, repo, git, "commit", "-qm", "init")
			tt.setup(t, repo, home)
			before := snapshot(t, root)
			path := filepath.Join(repo, ".claude", "settings.local.json")
			for name, do := range map[string]func() error{
				"install":   func() error { _, err := Install(path, spec); return err },
				"uninstall": func() error { _, err := Uninstall(path); return err },
			} {
				err := do()
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v; want it refused (%q)", name, err, tt.want)
				}
				if after := snapshot(t, root); after != before {
					t.Errorf("%s changed files:\nbefore:\n%s\nafter:\n%s", name, before, after)
				}
			}
			if st := run(t, repo, git, "status", "--porcelain", "--untracked-files=no"); st != "" {
				t.Errorf("git status after a refused install: %s", st)
			}
		})
	}
}

// The user's own settings, a regular file in a folder of their own, still
// take the hooks: the checks refuse only links and tracked files.
func TestInstallStillWritesARegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	write(t, path, `{"model": "opus"}`+"\n")
	if changed, err := Install(path, Spec{Binary: spec.Binary, StateDir: spec.StateDir, UserScope: true}); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every file under root outside .git's objects, with its
// kind and contents (a link as its target).
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if fi.IsDir() && (fi.Name() == "objects" || fi.Name() == "logs" || p == filepath.Join(root, "repo", ".git", "hooks")) {
			return filepath.SkipDir
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			dest, _ := os.Readlink(p)
			b.WriteString(rel + " -> " + dest + "\n")
		case fi.Mode().IsRegular() && rel != filepath.Join("repo", ".git", "index"):
			data, _ := os.ReadFile(p)
			b.WriteString(rel + ": " + string(data) + "\n")
		}
		return nil
	})
	return b.String()
}
