package discover

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ScanConductorFolders lists Conductor's workspaces from its folders, for
// when its database cannot be read (DESIGN.md, "Data sources" 2): every
// <root>/workspaces/<repo>/<name> whose .git is a file pointing into a
// repository, i.e. a worktree Conductor made, and the legacy
// <repo root>/.conductor/<name> worktrees of repos added before Conductor
// 0.25 (legacy.go). The branch is read from the worktree's HEAD.
//
// elsewhere are directories known from other sources (transcripts' cwds):
// one inside a <repo>/.conductor/ folder names a repository kept outside
// <root>/repos whose legacy workspaces are listed too.
//
// <root>/archived-contexts/ is not read: it holds what Conductor keeps of
// archived workspaces, which are not live and have no worktree to work in,
// and its layout is not known well enough to report them as archived.
// A missing <root>/workspaces is no error: there is just no Conductor.
func ScanConductorFolders(conductorRoot string, elsewhere ...string) ([]Workspace, error) {
	wsRoot := filepath.Join(conductorRoot, "workspaces")
	groups, err := os.ReadDir(wsRoot)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("scan conductor folders: %w", err)
	}
	f := folderScan{r: resolver{}, seen: make(map[string]int)}
	roots := legacyRoots{}
	for _, g := range groups {
		groupDir := filepath.Join(wsRoot, g.Name())
		entries, err := os.ReadDir(groupDir)
		if err != nil {
			continue // a stray file, or a folder gone since: not a repository's workspaces
		}
		for _, e := range entries {
			dir := filepath.Join(groupDir, e.Name())
			co, err := readCheckout(dir)
			if err != nil || !co.Linked {
				continue
			}
			// Repos can live anywhere (repos.root_path), so a worktree
			// of any repository counts.
			f.add(Workspace{Name: e.Name(), Repo: g.Name(), Branch: co.Branch, Directory: dir, Source: SourceConductorFolder}, e)
			roots.add(co.mainRoot())
		}
	}
	roots.addAll(conductorRoot, elsewhere)
	for _, root := range roots.sorted() {
		f.legacy(root)
	}
	return f.out, nil
}

// folderScan gathers the workspaces of the folders, one per directory.
type folderScan struct {
	r    resolver
	out  []Workspace
	seen map[string]int // resolved directory → index in out
}

// add lists w, found as the folder entry e. A branch-named symlink beside
// the codename folder is the same workspace: one entry, named by the
// folder, not the link.
func (f *folderScan) add(w Workspace, e fs.DirEntry) {
	w.Directory = f.r.resolve(w.Directory)
	if i, ok := f.seen[w.Directory]; ok {
		if e.Type()&fs.ModeSymlink == 0 {
			f.out[i].Name = w.Name
		}
		return
	}
	f.seen[w.Directory] = len(f.out)
	f.out = append(f.out, w)
}
