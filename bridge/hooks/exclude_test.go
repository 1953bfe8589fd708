package hooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func gitOrSkip(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git not found")
		}
		t.Skip("git not found")
	}
	return git
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Installing hooks in a clean worktree of a real repository leaves
// `git status --porcelain` empty (the exclude goes into the common dir, so
// the main checkout is covered too), and uninstalling gives info/exclude
// back byte for byte, whatever it held.
func TestInstallKeepsGitStatusClean(t *testing.T) {
	git := gitOrSkip(t)
	tests := []struct {
		name    string
		exclude []byte // nil: no info/exclude file at all
	}{
		{"git's default exclude", []byte("# git ls-files --others --exclude-from=.git/info/exclude\n# *~\n")},
		{"no final newline", []byte("*.log")},
		{"no exclude file", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			main := filepath.Join(root, "repo")
			os.MkdirAll(main, 0o755)
			run(t, main, git, "init", "-q")
			os.WriteFile(filepath.Join(main, "README.md"), []byte("hi\n"), 0o644)
			run(t, main, git, "add", ".")
			run(t, main, git, "commit", "-qm", "init")
			wt := filepath.Join(root, "tokyo")
			run(t, main, git, "worktree", "add", "-q", wt)
			exclude := filepath.Join(main, ".git", "info", "exclude")
			if tt.exclude == nil {
				os.Remove(exclude)
			} else if err := os.WriteFile(exclude, tt.exclude, 0o644); err != nil {
				t.Fatal(err)
			}

			spec := Spec{Binary: "/usr/bin/true", StateDir: root}
			for _, dir := range []string{wt, main} {
				if _, err := Install(filepath.Join(dir, ".claude", "settings.local.json"), spec); err != nil {
					t.Fatal(err)
				}
				if out := run(t, dir, git, "status", "--porcelain"); out != "" {
					t.Errorf("git status in %s after install:\n%s", dir, out)
				}
			}
			b, _ := os.ReadFile(exclude)
			if n := bytes.Count(b, []byte(excludePattern)); n != 1 {
				t.Errorf("exclude holds our line %d times:\n%s", n, b)
			}
			for _, dir := range []string{wt, main} {
				if _, err := Uninstall(filepath.Join(dir, ".claude", "settings.local.json")); err != nil {
					t.Fatal(err)
				}
			}
			after, err := os.ReadFile(exclude)
			if tt.exclude == nil {
				if !os.IsNotExist(err) {
					t.Errorf("exclude left behind: %q, %v", after, err)
				}
				return
			}
			if !bytes.Equal(after, tt.exclude) {
				t.Errorf("exclude after uninstall = %q, want %q", after, tt.exclude)
			}
		})
	}
}

// A file git already ignores gets no line of ours.
func TestInstallLeavesIgnoredAlone(t *testing.T) {
	git := gitOrSkip(t)
	main := t.TempDir()
	run(t, main, git, "init", "-q")
	os.WriteFile(filepath.Join(main, ".gitignore"), []byte(".claude/\n"), 0o644)
	exclude := filepath.Join(main, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)
	if _, err := Install(filepath.Join(main, ".claude", "settings.local.json"), Spec{Binary: "/usr/bin/true", StateDir: main}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(exclude); !bytes.Equal(before, after) {
		t.Errorf("exclude changed although .gitignore covers the file: %q", after)
	}
}
