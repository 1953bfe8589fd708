package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/transcript"
)

func TestScanClaudeProjects(t *testing.T) {
	h := newFakeHome(t)
	now := time.Now()
	alpha := mkdir(t, filepath.Join(h.root, "code", "alpha"))
	dotted := mkdir(t, filepath.Join(h.root, "code", "a.b"))
	dashed := mkdir(t, filepath.Join(h.root, "code", "a-b")) // same folder name as a.b
	linked := mkdir(t, filepath.Join(h.root, "real", "linked"))
	if err := os.Symlink(filepath.Join(h.root, "real"), filepath.Join(h.root, "via")); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(h.root, "code", "deleted")

	h.transcript(claude.EncodeProjectDir(alpha), "s1.jsonl", now.Add(-time.Hour), `{"type":"summary"}`, record("user", alpha))
	h.transcript(claude.EncodeProjectDir(alpha), "s2.jsonl", now, record("user", alpha))
	// Subagent transcripts and other files are not sessions.
	h.transcript(claude.EncodeProjectDir(alpha), filepath.Join("s2", "subagents", "agent-1.jsonl"), now, record("user", "/elsewhere"))
	h.transcript(claude.EncodeProjectDir(alpha), "notes.txt", now, record("user", "/elsewhere2"))

	// One folder, two directories (the encoding is lossy).
	h.transcript(claude.EncodeProjectDir(dotted), "d1.jsonl", now.Add(-2*time.Minute), record("user", dotted))
	h.transcript(claude.EncodeProjectDir(dashed), "d2.jsonl", now.Add(-time.Minute), record("user", dashed))

	// Recorded through a symlink: listed resolved.
	h.transcript(claude.EncodeProjectDir(filepath.Join(h.root, "via", "linked")), "l.jsonl", now, record("user", filepath.Join(h.root, "via", "linked")))

	// Skipped: a directory that is gone, a folder with no cwd yet, an
	// empty folder, a folder with only subagents, a relative cwd.
	h.transcript(claude.EncodeProjectDir(gone), "g.jsonl", now, record("user", gone))
	h.transcript("-new", "n.jsonl", now)
	mkdir(t, filepath.Join(h.projects, "-empty"))
	h.transcript("-subs", filepath.Join("x", "subagents", "a.jsonl"), now, record("user", alpha))
	h.transcript("-rel", "r.jsonl", now, record("user", "relative/dir"))
	writeFile(t, filepath.Join(h.projects, "stray.jsonl"), record("user", alpha))

	want := map[string]string{ // directory → project folder
		alpha:  filepath.Join(h.projects, claude.EncodeProjectDir(alpha)),
		dotted: filepath.Join(h.projects, claude.EncodeProjectDir(dotted)),
		dashed: filepath.Join(h.projects, claude.EncodeProjectDir(dashed)),
		linked: filepath.Join(h.projects, claude.EncodeProjectDir(filepath.Join(h.root, "via", "linked"))),
	}
	for _, c := range []*transcriptCache{nil, newTranscriptCache()} {
		for range 2 { // the second round comes from the cache
			ws, err := c.scanProjects(h.claude())
			if err != nil {
				t.Fatal(err)
			}
			got := make(map[string]string)
			for _, w := range ws {
				if w.Source != claude.Type || w.Name != filepath.Base(w.Directory) {
					t.Errorf("bad workspace %+v", w)
				}
				got[w.Directory] = w.ProjectDir
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("cache %v:\n got %v\nwant %v", c != nil, got, want)
			}
		}
	}

	if ws, err := (*transcriptCache)(nil).scanProjects(claude.Agent{Projects: filepath.Join(h.root, "no-such-dir")}); err != nil || len(ws) != 0 {
		t.Errorf("missing root: %v, %v", ws, err)
	}
}

// TestScanClaudeProjectsMaxFiles: only the 20 newest transcripts of a
// folder are read.
func TestScanClaudeProjectsMaxFiles(t *testing.T) {
	h := newFakeHome(t)
	now := time.Now()
	newer, older := mkdir(t, filepath.Join(h.root, "x.y")), mkdir(t, filepath.Join(h.root, "x-y"))
	project := claude.EncodeProjectDir(newer)
	h.transcript(project, "old.jsonl", now.Add(-time.Hour), record("user", older))
	for i := range maxCwdFiles {
		h.transcript(project, string(rune('a'+i))+".jsonl", now.Add(time.Duration(-i)*time.Second), record("user", newer))
	}
	ws, err := (*transcriptCache)(nil).scanProjects(h.claude())
	if err != nil || len(ws) != 1 || ws[0].Directory != newer {
		t.Errorf("got %+v, %v; want only %s", ws, err, newer)
	}
}

func TestProjectCwdsCache(t *testing.T) {
	h := newFakeHome(t)
	dir := mkdir(t, filepath.Join(h.root, "w"))
	project := filepath.Join(h.projects, claude.EncodeProjectDir(dir))
	old := time.Now().Add(-time.Hour)
	f := h.transcript(claude.EncodeProjectDir(dir), "s.jsonl", old, `{"type":"queue-operation"}`)

	c := newTranscriptCache()
	scan := func() []string {
		t.Helper()
		c.begin()
		defer c.sweep()
		cwds, err := c.projectCwds(h.claude(), project)
		if err != nil {
			t.Fatal(err)
		}
		return cwds
	}
	if got := scan(); len(got) != 0 {
		t.Fatalf("cwds before any record = %v", got)
	}
	// The cwd arrives later, without a new file (the folder's mtime does
	// not change): it must still be found.
	writeFile(t, f, `{"type":"queue-operation"}`+"\n"+record("user", dir)+"\n")
	if got := scan(); !reflect.DeepEqual(got, []string{dir}) {
		t.Fatalf("cwds after the record = %v", got)
	}
	// Make the folder's listing trustworthy (older than the racy window),
	// then replace the file's content: the cache answers without reading.
	if err := os.Chtimes(project, old, old); err != nil {
		t.Fatal(err)
	}
	scan()
	if _, ok := c.dirs[project]; !ok {
		t.Fatal("folder not cached")
	}
	writeFile(t, f, record("user", "/changed/and/longer/than/before/so/the/size/grows/"+strings.Repeat("x", 100))+"\n")
	if got := scan(); !reflect.DeepEqual(got, []string{dir}) {
		t.Fatalf("cwds = %v, want the cached %s", got, dir)
	}
	// A new file changes the folder: read again.
	other := mkdir(t, filepath.Join(h.root, "w2"))
	h.transcript(claude.EncodeProjectDir(dir), "t.jsonl", time.Now(), record("user", other))
	if got := scan(); !reflect.DeepEqual(got, []string{other, dir}) {
		t.Fatalf("cwds after a new file = %v", got)
	}
	// Entries of files that are gone are dropped.
	if err := os.RemoveAll(project); err != nil {
		t.Fatal(err)
	}
	c.begin()
	c.sweep()
	if len(c.files) != 0 || len(c.dirs) != 0 {
		t.Errorf("cache keeps %d files, %d folders after they went", len(c.files), len(c.dirs))
	}
}

func TestFileCwdSettled(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		wantCwd       string
		wantSettled   bool
	}{
		{"found", record("user", "/w") + "\n", "/w", true},
		{"not yet", `{"type":"queue-operation"}` + "\n", "", false},
		{"empty", "", "", false},
		{"never: a first 64 KiB without one", strings.Repeat("x", transcript.CwdScanLimit+10), "", true},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".jsonl")
		writeFile(t, path, tt.content)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*transcriptCache{nil, newTranscriptCache()} {
			for range 2 {
				cwd, settled := c.fileCwd(claude.Agent{}, transcriptFile{path: path, info: fi})
				if cwd != tt.wantCwd || settled != tt.wantSettled {
					t.Errorf("%s: fileCwd = %q, %v; want %q, %v", tt.name, cwd, settled, tt.wantCwd, tt.wantSettled)
				}
			}
		}
	}
}
