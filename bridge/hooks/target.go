package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ErrRefused means the bridge will not write a settings file where it
// was asked to: the file (or its folder) is a symbolic link, or git tracks
// it. The error says which, and why.
var ErrRefused = errors.New("refused")

// CheckTarget reports why the bridge must not write its lines into the
// settings file at path (a Claude Code settings file, Codex's
// config.toml, git's info/exclude), nil when it may.
//
//   - A symbolic link, the file's or its folder's, is never written
//     through: a repository can ship .claude/settings.local.json as a link
//     to ~/.claude/settings.json, and the bridge would merge the user's
//     global settings, API key included, into a file the repository
//     tracks. Nor is a link replaced by a copy: a dotfiles config.toml
//     would silently stop being the dotfiles'.
//   - A file git tracks is not the bridge's to change: what it writes
//     would go into the user's commits.
func CheckTarget(path string) error {
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		dest, _ := os.Readlink(p)
		what := "it is"
		if p != path {
			what = "its folder " + p + " is"
		}
		return fmt.Errorf("%w: %s: %s a symbolic link (to %s); the bridge never writes through a link, nor replaces one with a copy. Make it a regular file to install here, or add the hooks by hand",
			ErrRefused, path, what, dest)
	}
	if repo := trackedIn(path); repo != "" {
		return fmt.Errorf("%w: %s: git tracks it (in %s), so what the bridge writes there would go into your commits. Untrack it (git rm --cached) to install here, or add the hooks by hand",
			ErrRefused, path, repo)
	}
	return nil
}

// trackedIn returns the top of the git work tree that tracks path, ""
// when none does (or git cannot say: without git, nothing is committed).
func trackedIn(path string) string {
	git, err := exec.LookPath("git")
	if err != nil {
		return ""
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "-C", dir, "ls-files", "--error-unmatch", "--", filepath.Base(path))
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	if cmd.Run() != nil { // 1: not tracked; 128: not in a repository
		return ""
	}
	top, err := exec.CommandContext(ctx, git, "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil || len(top) == 0 {
		return dir
	}
	return string(top[:len(top)-1])
}
