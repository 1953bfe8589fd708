package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestReplacedRecordIsReadAgain: a session's record, held open and read
// line by line from file events alone, replaced by a file of the same
// size (the one change a held file's size cannot show), is read again
// from its start, whether its old file is gone or kept under another
// name (and so still has a name).
func TestReplacedRecordIsReadAgain(t *testing.T) {
	for _, tt := range []struct {
		name    string
		replace func(t *testing.T, path, content string)
	}{
		{"renamed over", func(t *testing.T, path, content string) {
			renameOver(t, path, content)
		}},
		{"renamed over, the old file kept under another name", func(t *testing.T, path, content string) {
			if err := os.Link(path, filepath.Join(filepath.Dir(path), "kept")); err != nil {
				t.Skipf("cannot link: %v", err)
			}
			renameOver(t, path, content)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			sid := "12121212-3434-4565-8787-909090909090"
			r, id, path := h.followOne("held", sid, "hello")
			h.write(path, prompt(sid, "second"))
			evs := r.collect(t, id, 0, has(event.User, "second"))
			last := evs[len(evs)-1].ID
			h.write(path, prompt(sid, "third")) // read by a held file from now on
			evs = r.collect(t, id, last, has(event.User, "third"))
			last = evs[len(evs)-1].ID
			// The same lengths, other words: a file of the same size.
			tt.replace(t, path, prompt(sid, "HELLO")+"\n"+prompt(sid, "SECOND")+"\n"+prompt(sid, "THIRD")+"\n")
			r.collect(t, id, last, has(event.User, "THIRD"))
		})
	}
}

// renameOver writes content beside path and renames it over path.
func renameOver(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "new")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestUnchangedOnlyWhileTheFolderWatchTells: a session's reader reads its
// held record without looking at it only after a look, while the record's
// folder is watched by inotify, the record is a plain file, no file event
// but a write came since and for heldFor at most; a look after an event
// trusts the folder again, and a folder watched only after the first look
// is trusted a while later. Where folder events cannot name every file
// (kqueue) it always looks.
func TestUnchangedOnlyWhileTheFolderWatchTells(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tt := range []struct {
		name                  string
		watchDirs, watched    bool
		symlink               bool
		between               func(e *Engine, dir string)
		later                 time.Duration
		wantSecond, wantThird bool
	}{
		{"nothing since", true, true, false, nil, 0, true, true},
		{"a file event other than a write", true, true, false, func(e *Engine, _ string) { e.folders.Add(1) }, 0, false, true},
		{"a look's while has passed", true, true, false, nil, heldFor, false, true},
		{"the folder not watched", true, false, false, nil, 0, false, false},
		{"folders not watched at all", false, true, false, nil, 0, false, false},
		{"the record a symbolic link", true, true, true, nil, 0, false, false},
		{"the folder watched after the first look, a while later", true, false, false, func(e *Engine, dir string) { e.watched[dir] = true }, heldFor, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			target := path
			if tt.symlink {
				target = filepath.Join(t.TempDir(), "elsewhere.jsonl")
				if err := os.Symlink(target, path); err != nil {
					t.Skipf("cannot make a symbolic link: %v", err)
				}
			}
			if err := os.WriteFile(target, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e := New(Config{WatchDirs: &tt.watchDirs})
			if tt.watched {
				e.watched[dir] = true
			}
			tl := &tail{}
			tl.reader.Path = path
			if tl.unchanged(e, now) {
				t.Fatal("the first read did not look")
			}
			if tt.between != nil {
				tt.between(e, dir)
			}
			at := now.Add(tt.later)
			if got, want := tl.unchanged(e, at), tt.wantSecond && dirEventsNameFiles; got != want {
				t.Errorf("second read unchanged = %v, want %v", got, want)
			}
			if got, want := tl.unchanged(e, at), tt.wantThird && dirEventsNameFiles; got != want {
				t.Errorf("third read unchanged = %v, want %v", got, want)
			}
		})
	}
}
