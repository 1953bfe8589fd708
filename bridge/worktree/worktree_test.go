package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git missing")
		}
		t.Skip("git missing")
	}
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// repo makes a repository with one commit.
func repo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	os.MkdirAll(dir, 0o755)
	run(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "README"), []byte("hi\n"), 0o644)
	run(t, dir, "add", ".")
	run(t, dir, "commit", "-q", "-m", "init")
	dir, _ = filepath.EvalSymlinks(dir)
	return dir
}

func TestValidate(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	r := repo(t)
	tmp := t.TempDir()
	link := filepath.Join(tmp, "link")
	os.Symlink(r, link)
	os.MkdirAll(filepath.Join(r, "sub"), 0o755)
	plain := filepath.Join(tmp, "plain")
	os.MkdirAll(plain, 0o755)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	bare := filepath.Join(tmp, "bare.git")
	run(t, tmp, "init", "-q", "--bare", bare)

	tests := []struct {
		name, dir, want, errHas string
	}{
		{"work tree", r, r, ""},
		{"symlink resolves", link, r, ""},
		{"subdirectory resolves to top", filepath.Join(r, "sub"), r, ""},
		{"plain directory", plain, "", "not a git work tree"},
		{"file", file, "", "is a file"},
		{"root", "/", "", "root directory"},
		{"missing", filepath.Join(tmp, "nope"), "", "no such file"},
		{"relative", "rel/dir", "", "absolute"},
		{"bare", bare, "", "bare repository"},
	}
	for _, tt := range tests {
		got, err := Validate(ctx, tt.dir)
		if tt.errHas == "" && (err != nil || got != tt.want) {
			t.Errorf("%s: %q, %v", tt.name, got, err)
		}
		if tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.errHas)
		}
	}
	if _, err := Validate(ctx, plain); !errors.Is(err, ErrNotWorkTree) {
		t.Errorf("plain dir error does not wrap ErrNotWorkTree: %v", err)
	}
}

func TestCreateAndRemove(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	r := repo(t)
	parent := filepath.Join(t.TempDir(), "worktrees")
	dir, err := CreateDetached(ctx, r, parent)
	if err != nil {
		t.Fatal(err)
	}
	if top, err := Validate(ctx, dir); err != nil || top != dir {
		t.Fatalf("created worktree invalid: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README")); err != nil {
		t.Error("worktree does not hold HEAD's files")
	}
	// Dirty: kept.
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("work"), 0o644)
	if err := RemoveIfClean(ctx, dir); err == nil {
		t.Fatal("removed a worktree with changes")
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err != nil {
		t.Fatal("changes lost")
	}
	os.Remove(filepath.Join(dir, "new.txt"))
	if err := RemoveIfClean(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("clean worktree not removed")
	}
}
