package discover

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxCwdFiles bounds how many transcripts of one project folder are read to
// learn which directories it serves: the newest ones are the ones that
// matter, and a folder can hold thousands.
const maxCwdFiles = 20

// scanProjects lists the directories an agent that keeps its records in
// one folder per directory (Projects, Claude Code) has worked in, from
// its folders under its RecordsRoot (DESIGN.md, "Data sources" 4). A
// folder counts when it holds a top-level *.jsonl; the directory is the
// cwd recorded inside, since the folder's name cannot be decoded. Folder
// names are lossy, so one folder may serve several directories: the cwds
// of its 20 newest records are all used. A cwd that no longer exists is
// skipped (a deleted checkout, an archived Conductor workspace). A
// missing root is no error. c remembers what earlier scans read (c may
// be nil).
func (c *transcriptCache) scanProjects(a Projects) ([]Workspace, error) {
	projectsRoot := a.RecordsRoot()
	entries, err := os.ReadDir(projectsRoot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan %s projects: %w", a.Name(), err)
	}
	c.begin()
	defer c.sweep()

	var out []Workspace
	at := make(map[string]int) // directory → index in out
	r := resolver{}
	for _, e := range entries {
		projectDir := filepath.Join(projectsRoot, e.Name())
		if !e.IsDir() && !(e.Type()&fs.ModeSymlink != 0 && isDir(projectDir)) {
			continue
		}
		cwds, err := c.projectCwds(a, projectDir)
		if err != nil {
			continue // gone or unreadable since ReadDir: try again next scan
		}
		for _, cwd := range cwds {
			if !filepath.IsAbs(cwd) {
				continue
			}
			dir := r.resolve(cwd)
			if !isDir(dir) {
				continue
			}
			if i, ok := at[dir]; ok {
				// Two folders for one directory: a cut name from 2.1 and
				// an uncut one from 2.0, or a link resolved differently.
				// Prefer the one the agent would use today.
				if e.Name() == a.ProjectFolder(dir) {
					out[i].ProjectDir = projectDir
				}
				continue
			}
			at[dir] = len(out)
			out = append(out, Workspace{
				Name:       filepath.Base(dir),
				Directory:  dir,
				Source:     a.Name(),
				ProjectDir: projectDir,
			})
		}
	}
	return out, nil
}

// transcriptFile is a top-level transcript of a project folder.
type transcriptFile struct {
	path string
	info fs.FileInfo
}

// transcripts lists the session transcripts of projectDir, newest first:
// its top-level *.jsonl regular files. Subagent transcripts are not
// sessions of their own: 2.1 keeps them in <sessionId>/subagents/, but 2.0
// writes them next to the sessions as agent-<id>.jsonl, one per "Warmup"
// too, often newer than the session that started them.
func transcripts(projectDir string) ([]transcriptFile, error) {
	entries, err := os.ReadDir(projectDir)
	if err != nil {
		return nil, err
	}
	var out []transcriptFile
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		out = append(out, transcriptFile{path: filepath.Join(projectDir, e.Name()), info: fi})
	}
	slices.SortFunc(out, func(a, b transcriptFile) int {
		if c := b.info.ModTime().Compare(a.info.ModTime()); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
	return out, nil
}
