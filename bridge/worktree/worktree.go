// Package worktree checks, creates and removes the git worktrees the bridge
// is asked to adopt as workspaces. git itself is the judge of what is a
// work tree; nothing here parses .git by hand.
package worktree

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotWorkTree is returned for a directory git does not see as a work tree.
var ErrNotWorkTree = errors.New("not a git work tree")

func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// Validate resolves dir (through symlinks) and checks that it is the top of
// a git work tree, returning that top. A file, the root directory, a bare
// repository or a plain directory is refused; a subdirectory of a work tree
// resolves to the work tree's top.
func Validate(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("directory is empty")
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("directory %q is not an absolute path", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is a file, not a directory", dir)
	}
	if real == "/" || real == filepath.VolumeName(real)+`\` {
		return "", errors.New("the root directory cannot be a workspace")
	}
	if bare, err := git(ctx, real, "rev-parse", "--is-bare-repository"); err == nil && bare == "true" {
		return "", fmt.Errorf("%s is a bare repository: %w", dir, ErrNotWorkTree)
	}
	inside, err := git(ctx, real, "rev-parse", "--is-inside-work-tree")
	if err != nil || inside != "true" {
		return "", fmt.Errorf("%s: %w", dir, ErrNotWorkTree)
	}
	top, err := git(ctx, real, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return top, nil
}

// CreateDetached adds a worktree of repo's HEAD, detached (like
// `git worktree add --detach`), in a new directory under parent.
func CreateDetached(ctx context.Context, repo, parent string) (string, error) {
	top, err := Validate(ctx, repo)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", fmt.Errorf("create worktree parent: %w", err)
	}
	var b [3]byte
	rand.Read(b[:])
	dir := filepath.Join(parent, filepath.Base(top)+"-"+hex.EncodeToString(b[:]))
	if _, err := git(ctx, top, "worktree", "add", "--detach", dir, "HEAD"); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(dir)
}

// RemoveIfClean removes a worktree the bridge created, unless it holds
// uncommitted or untracked changes, which are never thrown away.
func RemoveIfClean(ctx context.Context, dir string) error {
	status, err := git(ctx, dir, "status", "--porcelain")
	if err != nil {
		return err
	}
	if status != "" {
		return fmt.Errorf("%s has uncommitted changes; left in place", dir)
	}
	_, err = git(ctx, dir, "worktree", "remove", dir)
	return err
}
