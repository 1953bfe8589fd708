package discover

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Repos added to Conductor before 0.25 keep their workspaces inside the
// repository, in <repo root>/.conductor/<name> (REALITY.md). Without the
// database nothing lists those repositories, so their roots are gathered
// from what is known: Conductor's clones in <root>/repos, the repositories
// of the worktrees in <root>/workspaces, and directories inside a
// .conductor folder that other sources saw (a transcript's cwd).

// legacyDir is the folder a legacy workspace sits in, inside its repo.
const legacyDir = ".conductor"

// legacyRoots is a set of repository roots to look in.
type legacyRoots map[string]bool

func (l legacyRoots) add(root string) {
	if root != "" && filepath.IsAbs(root) {
		l[filepath.Clean(root)] = true
	}
}

// addAll adds Conductor's clones and the repositories that the
// directories in elsewhere sit in a .conductor folder of.
func (l legacyRoots) addAll(conductorRoot string, elsewhere []string) {
	repos := filepath.Join(conductorRoot, "repos")
	if entries, err := os.ReadDir(repos); err == nil {
		for _, e := range entries {
			l.add(filepath.Join(repos, e.Name()))
		}
	}
	sep := string(filepath.Separator) + legacyDir + string(filepath.Separator)
	for _, d := range elsewhere {
		if i := strings.Index(d, sep); i > 0 {
			l.add(d[:i])
		}
	}
}

func (l legacyRoots) sorted() []string {
	out := make([]string, 0, len(l))
	for r := range l {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// legacy lists the worktrees of the repository at root in its .conductor
// folder. An entry counts only if it is a linked worktree of that very
// repository: a stray clone or another repo's checkout is not Conductor's.
func (f *folderScan) legacy(root string) {
	dir := filepath.Join(root, legacyDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // no legacy workspaces, or not a repository at all
	}
	own := f.r.resolve(filepath.Join(root, ".git"))
	for _, e := range entries {
		wt := filepath.Join(dir, e.Name())
		co, err := readCheckout(wt)
		if err != nil || !co.Linked || f.r.resolve(co.commonDir()) != own {
			continue
		}
		f.add(Workspace{Name: e.Name(), Repo: filepath.Base(f.r.resolve(root)), Branch: co.Branch, Directory: wt, Source: SourceConductorFolder}, e)
	}
}

// commonDir is the git dir the checkout shares with its repository: the
// one "commondir" names for a linked worktree, else its own.
func (co checkout) commonDir() string {
	if line, err := readLine(filepath.Join(co.GitDir, "commondir")); err == nil && line != "" {
		return absFrom(co.GitDir, line)
	}
	return co.GitDir
}

// mainRoot is the directory of the repository's main checkout (the one
// holding .git), or "" for a bare repository.
func (co checkout) mainRoot() string {
	if c := co.commonDir(); filepath.Base(c) == ".git" {
		return filepath.Dir(c)
	}
	return ""
}
