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
// <root>/workspaces/<repo>/<name> whose .git is a file pointing into
// <root>/repos/, i.e. a worktree Conductor made. The branch is read from the
// worktree's HEAD.
//
// <root>/archived-contexts/ is not read: it holds what Conductor keeps of
// archived workspaces, which are not live and have no worktree to work in,
// and its layout is not known well enough to report them as archived.
// A missing <root>/workspaces is no error: there is just no Conductor.
func ScanConductorFolders(conductorRoot string) ([]Workspace, error) {
	wsRoot := filepath.Join(conductorRoot, "workspaces")
	groups, err := os.ReadDir(wsRoot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan conductor folders: %w", err)
	}
	r := resolver{}
	var out []Workspace
	seen := make(map[string]int) // resolved directory → index in out
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
			// of any repository counts. A branch-named symlink beside
			// the codename folder is the same workspace: one entry, named
			// by the folder, not the link.
			w := Workspace{Name: e.Name(), Repo: g.Name(), Branch: co.Branch, Directory: r.resolve(dir), Source: SourceConductorFolder}
			if i, ok := seen[w.Directory]; ok {
				if e.Type()&fs.ModeSymlink == 0 {
					out[i].Name = w.Name
				}
				continue
			}
			seen[w.Directory] = len(out)
			out = append(out, w)
		}
	}
	return out, nil
}
