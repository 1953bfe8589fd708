package codex

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// home copies the corpus rollouts into a fake CODEX_HOME's day folders and
// adds the files a scan must skip.
func home(t *testing.T) (string, map[string]string) {
	t.Helper()
	h := t.TempDir()
	paths := map[string]string{}
	for _, v := range []string{"0.169.0", "0.47.0"} {
		files, _ := filepath.Glob("testdata/corpus/" + v + "/*.jsonl")
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		day := filepath.Join(SessionsDir(h), "2026", "12", "02")
		if v == "0.47.0" {
			day = filepath.Join(SessionsDir(h), "2025", "10", "14")
		}
		if err := os.MkdirAll(day, 0o755); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(day, filepath.Base(files[0]))
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths[v] = dst
	}
	day := filepath.Join(SessionsDir(h), "2026", "12", "02")
	for name, body := range map[string]string{
		"rollout-2026-12-02T10-00-00-aaaaaaaa-0000-0000-0000-000000000001.jsonl": `{"timestamp":"x","type":"session_meta","payload":{"id":"aaaa`, // being created
		"rollout-2026-12-02T10-00-01-aaaaaaaa-0000-0000-0000-000000000002.jsonl": "",
		"rollout-2026-12-02T10-00-02-aaaaaaaa-0000-0000-0000-000000000003.jsonl": "garbage\n",
		"rollout-2026-12-02T10-00-03-aaaaaaaa-0000-0000-0000-000000000004.jsonl": `{"type":"turn_context","payload":{}}` + "\n",
		"notes.txt": "not a rollout\n",
	} {
		if err := os.WriteFile(filepath.Join(day, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h, paths
}

func TestSessions(t *testing.T) {
	h, paths := home(t)
	old := time.Date(2025, 10, 14, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(paths["0.47.0"], old, old); err != nil {
		t.Fatal(err)
	}
	var l Locator
	all, err := l.Sessions(h, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("sessions: %+v", all)
	}
	s := all[0] // newest first
	if s.ThreadID != "01a23811-5b54-7821-8aa7-6fec34fa80df" || s.CLIVersion != "0.169.0" || s.Cwd != "/tmp/cxhome-0.169.0/work/demo" ||
		s.Originator != "codex_exec" || s.Path != paths["0.169.0"] || s.Size == 0 {
		t.Errorf("0.169 session: %+v", s)
	}
	if all[1].CLIVersion != "0.47.0" || all[1].ThreadID != "01a23811-643b-7fd1-becb-a00ecd3aba68" || !all[1].ModTime.Equal(old) {
		t.Errorf("0.47 session: %+v", all[1])
	}
	recent, err := l.Sessions(h, old.Add(time.Hour))
	if err != nil || len(recent) != 1 || recent[0].CLIVersion != "0.169.0" {
		t.Errorf("since filter: %+v %v", recent, err)
	}

	// A known file is not read again: its meta comes from the cache even
	// if (impossibly) the first line changed while the file grew.
	data, _ := os.ReadFile(paths["0.169.0"])
	swapped := []byte(`{"type":"session_meta","payload":{"id":"bbbbbbbb-0000-0000-0000-00000000000b","cwd":"/elsewhere"}}` + "\n")
	if err := os.WriteFile(paths["0.169.0"], append(swapped, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _ := l.Sessions(h, time.Time{})
	if again[0].ThreadID != s.ThreadID || again[0].Size <= s.Size {
		t.Errorf("cached meta not reused or size not refreshed: %+v", again[0])
	}
	// Without the cache the file is read.
	fresh, _ := Sessions(h, time.Time{})
	if fresh[0].ThreadID != "bbbbbbbb-0000-0000-0000-00000000000b" {
		t.Errorf("uncached scan: %+v", fresh[0])
	}
	// A removed file leaves the cache.
	if err := os.Remove(paths["0.169.0"]); err != nil {
		t.Fatal(err)
	}
	if rest, _ := l.Sessions(h, time.Time{}); len(rest) != 1 || len(l.cache) != 1 {
		t.Errorf("after removal: %+v, cache %d", rest, len(l.cache))
	}
}

func TestSessionsWithoutFolder(t *testing.T) {
	got, err := Sessions(filepath.Join(t.TempDir(), "no-codex"), time.Time{})
	if err != nil || len(got) != 0 {
		t.Errorf("%v %v", got, err)
	}
}

func TestFind(t *testing.T) {
	h, paths := home(t)
	got, err := Find(h, "01a23811-643b-7fd1-becb-a00ecd3aba68")
	if err != nil || got != paths["0.47.0"] {
		t.Errorf("find: %q %v", got, err)
	}
	if _, err := Find(h, "01a23811-0000-0000-0000-000000000000"); !errors.Is(err, ErrNoSession) {
		t.Errorf("missing thread: %v", err)
	}
	for _, bad := range []string{"", "*", "../../etc/passwd", "01a23811-643b-7fd1-becb-a00ecd3aba6?"} {
		if _, err := Find(h, bad); err == nil || errors.Is(err, ErrNoSession) {
			t.Errorf("bad id %q: %v", bad, err)
		}
	}
}
