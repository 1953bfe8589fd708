package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/regular"
)

// excludePattern keeps the hooks file out of `git status`, Conductor's
// diff view and the user's pull requests. It is anchored: only the
// worktree's own .claude/settings.local.json.
const excludePattern = "/" + WorkspaceFile

// The marker line written before the pattern says what Unexclude must undo
// to give the file back byte for byte: whether a newline was added to end
// the user's last line, or the file was made.
const (
	markPlain   = "# conductor-bridge hooks install"
	markNewline = "# conductor-bridge hooks install (newline added)"
	markCreated = "# conductor-bridge hooks install (file created)"
)

// worktreeOf returns the worktree a workspace settings file belongs to:
// <worktree>/.claude/settings.local.json; "" for any other file (the
// user's own settings).
func worktreeOf(settings string) string {
	if filepath.Base(settings) != "settings.local.json" || filepath.Base(filepath.Dir(settings)) != ".claude" {
		return ""
	}
	return filepath.Dir(filepath.Dir(settings))
}

// commonDir returns git's common dir for the worktree dir (where
// info/exclude covers every worktree of the repository), "" when dir is
// not a git checkout.
func commonDir(dir string) string {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	gitDir := dotGit
	if fi.Mode().IsRegular() {
		b, err := regular.ReadFile(dotGit)
		if err != nil || len(b) > 4<<10 {
			return ""
		}
		gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		gitDir = strings.TrimSpace(gd)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(dir, gitDir)
		}
	}
	if b, err := regular.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		return filepath.Clean(c)
	}
	return filepath.Clean(gitDir)
}

// gitIgnores reports whether git already ignores the hooks file in dir
// (a .gitignore, the user's global excludes, or our own line). Without git
// on PATH it reports false, and the exclude file itself is checked.
func gitIgnores(dir string) bool {
	git, err := exec.LookPath("git")
	if err != nil {
		return false
	}
	cmd := exec.Command(git, "-C", dir, "check-ignore", "-q", "--no-index", WorkspaceFile)
	return cmd.Run() == nil // exit 0: ignored
}

// Exclude adds the hooks file of worktree to info/exclude in git's common
// dir, unless git already ignores it. A directory that is not a git
// checkout needs nothing. It reports whether the file changed.
func Exclude(worktree string) (bool, error) {
	common := commonDir(worktree)
	if common == "" || gitIgnores(worktree) {
		return false, nil
	}
	path := filepath.Join(common, "info", "exclude")
	if err := CheckTarget(path); err != nil {
		return false, err
	}
	old, err := regular.ReadFile(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if hasOurs(old) {
		return false, nil
	}
	var add []byte
	switch {
	case created:
		add = []byte(markCreated + "\n" + excludePattern + "\n")
	case len(old) > 0 && old[len(old)-1] != '\n':
		add = []byte("\n" + markNewline + "\n" + excludePattern + "\n")
	default:
		add = []byte(markPlain + "\n" + excludePattern + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("exclude hooks file: %w", err)
	}
	f, _, err := regular.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, fmt.Errorf("exclude hooks file: %w", err)
	}
	if _, err := f.Write(add); err != nil {
		f.Close()
		return false, fmt.Errorf("exclude hooks file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("exclude hooks file %s: %w", path, err)
	}
	return true, nil
}

func hasOurs(b []byte) bool {
	for _, m := range []string{markPlain, markNewline, markCreated} {
		if bytes.Contains(b, []byte(m+"\n"+excludePattern+"\n")) {
			return true
		}
	}
	return false
}

// Unexclude removes only the lines Exclude added, giving info/exclude back
// as it was (removed if Exclude made it and nothing else was added since).
func Unexclude(worktree string) (bool, error) {
	common := commonDir(worktree)
	if common == "" {
		return false, nil
	}
	path := filepath.Join(common, "info", "exclude")
	if err := CheckTarget(path); err != nil {
		return false, err
	}
	b, err := regular.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	for _, m := range []string{markNewline, markCreated, markPlain} {
		block := m + "\n" + excludePattern + "\n"
		if m == markNewline {
			block = "\n" + block
		}
		i := bytes.Index(b, []byte(block))
		if i < 0 {
			continue
		}
		out := append(append([]byte(nil), b[:i]...), b[i+len(block):]...)
		if m == markCreated && len(out) == 0 {
			if err := os.Remove(path); err != nil {
				return false, fmt.Errorf("unexclude hooks file: %w", err)
			}
			return true, nil
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return false, fmt.Errorf("unexclude hooks file: %w", err)
		}
		return true, nil
	}
	return false, nil
}
