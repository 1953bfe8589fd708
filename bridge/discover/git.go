package discover

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/regular"
)

// checkout is what a git working tree says about itself on disk. It is read
// without running git: a scan every two seconds over hundreds of workspaces
// cannot afford a process per workspace.
type checkout struct {
	GitDir string // the tree's own git dir: <main>/.git, or <main>/.git/worktrees/<x> for a linked worktree
	Linked bool   // .git is a file ("gitdir: …"): a linked worktree or a submodule
	Branch string // the branch HEAD points at; empty when detached
}

// maxGitFile bounds what is read from .git, HEAD and commondir, which are a
// line each; a huge file there is not git's.
const maxGitFile = 4 << 10

// readCheckout reads the checkout rooted at dir.
func readCheckout(dir string) (checkout, error) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return checkout{}, fmt.Errorf("read git checkout: %w", err)
	}
	var co checkout
	switch {
	case fi.IsDir():
		co.GitDir = dotGit
	case fi.Mode().IsRegular():
		line, err := readLine(dotGit)
		if err != nil {
			return checkout{}, fmt.Errorf("read git checkout: %w", err)
		}
		gd, ok := strings.CutPrefix(line, "gitdir:")
		if !ok || strings.TrimSpace(gd) == "" {
			return checkout{}, fmt.Errorf("read git checkout: %s has no gitdir line", dotGit)
		}
		co.GitDir = absFrom(dir, strings.TrimSpace(gd))
		co.Linked = true
	default:
		return checkout{}, fmt.Errorf("read git checkout: %s is neither a file nor a directory", dotGit)
	}

	if line, err := readLine(filepath.Join(co.GitDir, "HEAD")); err == nil {
		// Detached (a bare hash) or a ref outside refs/heads: no branch.
		if ref, ok := strings.CutPrefix(line, "ref:"); ok {
			if b, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/"); ok {
				co.Branch = b
			}
		}
	}
	return co, nil
}

// repo names the repository the checkout belongs to, after its shared git
// dir: the directory that holds ".git", or a bare "name.git" without its
// suffix. A linked worktree's git dir names the shared one in "commondir"
// (usually "../.."); a plain repository, or a submodule, shares nothing.
func (co checkout) repo() string {
	common := co.GitDir
	if line, err := readLine(filepath.Join(co.GitDir, "commondir")); err == nil && line != "" {
		common = absFrom(co.GitDir, line)
	}
	base := filepath.Base(common)
	if base == ".git" {
		return filepath.Base(filepath.Dir(common))
	}
	return strings.TrimSuffix(base, ".git")
}

// absFrom resolves a path git wrote relative to base (git ≥ 2.48 can write
// relative worktree links).
func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// readLine returns the first line of a small file, trimmed.
func readLine(path string) (string, error) {
	f, err := regular.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil {
		return "", err
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	} else if len(b) == maxGitFile {
		return "", errors.New(path + ": line too long")
	}
	return strings.TrimSpace(string(b)), nil
}
