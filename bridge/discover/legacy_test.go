package discover

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// realGit runs git in dir with no user or system configuration.
func realGit(t *testing.T) func(dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is missing from the CI image")
		}
		t.Skip("no git")
	}
	return func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestLegacyConductorWorkspacesWithoutDatabase: with no Conductor database,
// the folder fallback finds the <repo>/.conductor/<name> worktrees of repos
// added before Conductor 0.25, made by real git: in a clone under
// <root>/repos, in a repo kept elsewhere that has a modern workspace too,
// and in one kept elsewhere that only a transcript's cwd points at. A
// branch-named symlink is the same workspace; a plain folder, a clone and
// another repository's worktree in a .conductor folder are not workspaces.
func TestLegacyConductorWorkspacesWithoutDatabase(t *testing.T) {
	git := realGit(t)
	h := newFakeHome(t)
	repo := func(dir string) string {
		mkdir(t, dir)
		git(dir, "init", "-q", "-b", "main")
		git(dir, "commit", "-q", "--allow-empty", "-m", "init")
		return dir
	}
	// A clone Conductor made, with a legacy workspace and a branch link.
	webapp := repo(filepath.Join(h.conductor, "repos", "webapp"))
	tokyo := filepath.Join(webapp, ".conductor", "tokyo")
	git(webapp, "worktree", "add", "-q", "-b", "me/tokyo", tokyo)
	if err := os.Symlink(tokyo, filepath.Join(webapp, ".conductor", "me-tokyo")); err != nil {
		t.Fatal(err)
	}
	// Not workspaces: a plain folder, a clone, another repo's worktree.
	mkdir(t, filepath.Join(webapp, ".conductor", "notes"))
	git(webapp, "clone", "-q", webapp, filepath.Join(webapp, ".conductor", "clone"))
	other := repo(filepath.Join(h.root, "code", "other"))
	git(other, "worktree", "add", "-q", "-b", "stray", filepath.Join(webapp, ".conductor", "stray"))

	// A repo kept elsewhere, with a modern workspace and a legacy one.
	api := repo(filepath.Join(h.root, "code", "api"))
	paris := filepath.Join(h.conductor, "workspaces", "api", "paris")
	mkdir(t, filepath.Dir(paris))
	git(api, "worktree", "add", "-q", "-b", "paris", paris)
	lima := filepath.Join(api, ".conductor", "lima")
	git(api, "worktree", "add", "-q", "--detach", lima)

	// A repo kept elsewhere that only a transcript knows of.
	docs := repo(filepath.Join(h.root, "src", "docs"))
	oslo := filepath.Join(docs, ".conductor", "oslo")
	git(docs, "worktree", "add", "-q", "-b", "oslo-branch", oslo)
	h.transcript(claude.EncodeProjectDir(oslo), "11111111-2222-4333-8444-555555555555.jsonl", time.Now(), record("user", oslo))

	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Agents: []Agent{h.claude()}, Processes: noProcs}
	got, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Name, Repo, Branch, Directory, Source string }
	var rows []row
	for _, w := range got {
		rows = append(rows, row{w.Name, w.Repo, w.Branch, w.Directory, w.Source})
	}
	want := []row{
		{"lima", "api", "", lima, SourceConductorFolder},
		{"paris", "api", "paris", paris, SourceConductorFolder},
		{"oslo", "docs", "oslo-branch", oslo, SourceConductorFolder},
		{"tokyo", "webapp", "me/tokyo", tokyo, SourceConductorFolder},
	}
	if !slices.Equal(rows, want) {
		t.Errorf("workspaces:\n got  %+v\n want %+v", rows, want)
	}
	for _, w := range got {
		if w.Directory == oslo && w.ProjectDir != filepath.Join(h.projects, claude.EncodeProjectDir(oslo)) {
			t.Errorf("oslo's transcripts not joined: project dir %q", w.ProjectDir)
		}
		if strings.Contains(w.Directory, "stray") || strings.HasSuffix(w.Directory, "clone") || strings.HasSuffix(w.Directory, "notes") {
			t.Errorf("not a workspace: %+v", w)
		}
	}

	// Without the transcript, oslo's repository is nowhere to be found;
	// the others still are.
	ws, err := ScanConductorFolders(h.conductor)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, w := range ws {
		dirs = append(dirs, w.Directory)
	}
	slices.Sort(dirs)
	if wantDirs := []string{lima, paris, tokyo}; !slices.Equal(dirs, sortedCopy(wantDirs)) {
		t.Errorf("folders alone: %v, want %v", dirs, sortedCopy(wantDirs))
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
