package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestScanConductorFolders(t *testing.T) {
	h := newFakeHome(t)
	tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
	paris := h.worktree("webapp", "paris", "me/paris")
	lima := h.worktree("api", "lima", "lima")

	// Relative link, as git ≥ 2.48 can write.
	rel := filepath.Join(h.conductor, "workspaces", "api", "rel")
	makeWorktree(t, filepath.Join(h.conductor, "repos", "api"), rel, "rel", "ref: refs/heads/r", true)

	// A worktree of a repository kept anywhere (repos.root_path) counts;
	// a branch-named symlink beside tokyo is tokyo, never a second one.
	foreign := filepath.Join(h.conductor, "workspaces", "webapp", "foreign")
	makeWorktree(t, filepath.Join(h.root, "elsewhere"), foreign, "foreign", "ref: refs/heads/f", false)
	if err := os.Symlink(tokyo, filepath.Join(h.conductor, "workspaces", "webapp", "a-branch-name")); err != nil {
		t.Fatal(err)
	}
	// Not Conductor's: a full clone,
	// a plain folder, a stray file, a .git file pointing nowhere valid.
	writeFile(t, filepath.Join(h.conductor, "workspaces", "webapp", "clone", ".git", "HEAD"), "ref: refs/heads/main\n")
	mkdir(t, filepath.Join(h.conductor, "workspaces", "webapp", "plain"))
	writeFile(t, filepath.Join(h.conductor, "workspaces", "webapp", ".DS_Store"), "x")
	writeFile(t, filepath.Join(h.conductor, "workspaces", ".DS_Store"), "x")
	writeFile(t, filepath.Join(h.conductor, "workspaces", "webapp", "broken", ".git"), "nonsense\n")
	// Archived contexts are not live workspaces.
	writeFile(t, filepath.Join(h.conductor, "archived-contexts", "webapp", "oslo", "notes.md"), "x")

	got, err := ScanConductorFolders(h.conductor)
	if err != nil {
		t.Fatal(err)
	}
	want := []Workspace{
		{Name: "lima", Repo: "api", Branch: "lima", Directory: lima, Source: SourceConductorFolder},
		{Name: "rel", Repo: "api", Branch: "r", Directory: rel, Source: SourceConductorFolder},
		{Name: "foreign", Repo: "webapp", Branch: "f", Directory: foreign, Source: SourceConductorFolder},
		{Name: "paris", Repo: "webapp", Branch: "me/paris", Directory: paris, Source: SourceConductorFolder},
		{Name: "tokyo", Repo: "webapp", Branch: "me/tokyo", Directory: tokyo, Source: SourceConductorFolder},
	}
	slices.SortFunc(got, func(a, b Workspace) int { return strings.Compare(a.Repo+"/"+a.Name, b.Repo+"/"+b.Name) })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestScanConductorFoldersSymlinkedRoot(t *testing.T) {
	h := newFakeHome(t)
	tokyo := h.worktree("webapp", "tokyo", "b")
	link := filepath.Join(h.root, "conductor-link")
	if err := os.Symlink(h.conductor, link); err != nil {
		t.Fatal(err)
	}
	got, err := ScanConductorFolders(link)
	if err != nil || len(got) != 1 || got[0].Directory != tokyo {
		t.Errorf("got %+v, %v; want %s", got, err, tokyo)
	}
}

func TestScanConductorFoldersMissing(t *testing.T) {
	for _, root := range []string{filepath.Join(t.TempDir(), "nothing"), t.TempDir()} {
		got, err := ScanConductorFolders(root)
		if err != nil || len(got) != 0 {
			t.Errorf("ScanConductorFolders(%s) = %v, %v; want nothing, no error", root, got, err)
		}
	}
	// workspaces is a file: that is an error worth reporting.
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "workspaces"), "x")
	if _, err := ScanConductorFolders(root); err == nil {
		t.Error("no error when workspaces is a file")
	}
}
