package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// chanHandler hands a watcher's events and errors to channels.
type chanHandler struct {
	evs  chan fsnotify.Event
	errs chan error
}

func (h chanHandler) event(ev fsnotify.Event) { h.evs <- ev }
func (h chanHandler) batchDone()              {}
func (h chanHandler) watchError(err error) {
	select {
	case h.errs <- err:
	default: // enough to fail on
	}
}

// until collects events, as name and operations, up to the sentinel's
// creation. An event like the one before it is left out: the system
// merges such events when the first is not read yet, so how many come
// depends on when each reader read.
func until(t *testing.T, evs <-chan fsnotify.Event, sentinel string) []string {
	t.Helper()
	var got []string
	for {
		select {
		case ev := <-evs:
			if ev.Name == sentinel {
				return got
			}
			if e := ev.Op.String() + " " + ev.Name; len(got) == 0 || got[len(got)-1] != e {
				got = append(got, e)
			}
		case <-time.After(10 * time.Second): // a hang, not a measure
			t.Fatalf("no sentinel event; got %v", got)
		}
	}
}

// The engine's own inotify reader makes the events fsnotify's does, for
// the same watches and the same changes: each case is watched by both at
// once and their events compared. Ours reports no error, neither for a
// read that finds nothing yet (EAGAIN: it waits) nor when it is closed.
func TestInotifyWatcherMakesFsnotifysEvents(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(root string)               // before the watches
		watch []string                        // relative to root
		do    func(t *testing.T, root string) // the change
	}{
		{"a file made, written, its mode changed, renamed, removed", nil, []string{"."}, func(t *testing.T, root string) {
			p := filepath.Join(root, "a.jsonl")
			must(t, os.WriteFile(p, []byte("one\n"), 0o600))
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			f.WriteString("two\n")
			f.Close()
			must(t, os.Chmod(p, 0o640))
			must(t, os.Rename(p, filepath.Join(root, "b.jsonl")))
			must(t, os.Remove(filepath.Join(root, "b.jsonl")))
		}},
		{"a watched folder removed under a watched folder", func(root string) { os.Mkdir(filepath.Join(root, "sub"), 0o700) },
			[]string{".", "sub"}, func(t *testing.T, root string) { must(t, os.Remove(filepath.Join(root, "sub"))) }},
		{"a watched folder removed, its folder not watched", func(root string) {
			os.MkdirAll(filepath.Join(root, "x", "sub"), 0o700)
		}, []string{".", "x/sub"}, func(t *testing.T, root string) { must(t, os.Remove(filepath.Join(root, "x", "sub"))) }},
		{"a watched folder moved away, then written in", func(root string) { os.MkdirAll(filepath.Join(root, "x", "sub"), 0o700) },
			[]string{".", "x/sub"}, func(t *testing.T, root string) {
				must(t, os.Rename(filepath.Join(root, "x", "sub"), filepath.Join(root, "moved")))
				must(t, os.WriteFile(filepath.Join(root, "moved", "new"), nil, 0o600)) // its watch is gone
			}},
		{"a watched file written and removed", func(root string) { os.WriteFile(filepath.Join(root, "f"), nil, 0o600) },
			[]string{".", "f"}, func(t *testing.T, root string) {
				must(t, os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o600))
				must(t, os.Remove(filepath.Join(root, "f")))
			}},
		// The name made for one event is kept for the next of the same
		// folder and name: each must still get its own.
		{"files of one name in two folders, and two names in one, written in turn", func(root string) {
			os.Mkdir(filepath.Join(root, "a"), 0o700)
			os.Mkdir(filepath.Join(root, "b"), 0o700)
		}, []string{".", "a", "b"}, func(t *testing.T, root string) {
			for _, p := range []string{"a/x", "b/x", "a/y", "a/x", "b/y", "b/x"} {
				must(t, os.WriteFile(filepath.Join(root, p), []byte(p), 0o600))
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.setup != nil {
				tt.setup(root)
			}
			theirs, err := fsnotify.NewWatcher()
			must(t, err)
			defer theirs.Close()
			w, err := newWatcher()
			must(t, err)
			ours := chanHandler{make(chan fsnotify.Event, 100), make(chan error, 1)}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { w.run(ctx, ours); close(done) }()
			defer func() {
				cancel()
				<-done
				select {
				case err := <-ours.errs:
					t.Errorf("the watcher reported %v", err)
				default:
				}
			}()
			for _, p := range tt.watch {
				must(t, theirs.Add(filepath.Join(root, p)))
				must(t, w.Add(filepath.Join(root, p)))
			}
			tt.do(t, root)
			sentinel := filepath.Join(root, "sentinel")
			must(t, os.WriteFile(sentinel, nil, 0o600))
			want := until(t, theirs.Events, sentinel)
			got := until(t, ours.evs, sentinel)
			if !slices.Equal(got, want) {
				t.Errorf("events\n got %v\nwant %v (fsnotify's)", got, want)
			}
			if len(want) == 0 {
				t.Error("the change made no event: the case tests nothing")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An event of the same name as its watch's one before makes no new
// string: a live transcript's lines all come as such, their folders'
// events in turn with the other sessions'.
func TestInotifyEventOfAllocatesNothingForTheSameName(t *testing.T) {
	w := &inotifyWatcher{byWd: map[int32]*watched{1: {path: "/d"}, 2: {path: "/e"}}, byPath: map[string]int32{"/d": 1, "/e": 2}}
	raw := &unix.InotifyEvent{Wd: 1, Mask: unix.IN_MODIFY}
	name := []byte("a.jsonl\x00\x00")
	for _, tt := range []struct {
		wd   int32
		name string
		want string
	}{
		{1, "a.jsonl", "/d/a.jsonl"}, {1, "a.jsonl", "/d/a.jsonl"}, {2, "a.jsonl", "/e/a.jsonl"}, {2, "b", "/e/b"}, {1, "b", "/d/b"},
		{1, "a.jsonl", "/d/a.jsonl"}, {1, "a.jsonl", "/d/a.jsonl"}, {2, "a.jsonl", "/e/a.jsonl"}, {1, "a.jsonl", "/d/a.jsonl"},
	} {
		ev, ok := w.eventOf(&unix.InotifyEvent{Wd: tt.wd, Mask: unix.IN_MODIFY}, []byte(tt.name+"\x00"))
		if !ok || ev.Name != tt.want || ev.Op != fsnotify.Write {
			t.Errorf("event of %d %q: %v %v, want write %s", tt.wd, tt.name, ev, ok, tt.want)
		}
	}
	other := &unix.InotifyEvent{Wd: 2, Mask: unix.IN_MODIFY}
	w.eventOf(raw, name)
	w.eventOf(other, name)
	if n := testing.AllocsPerRun(100, func() { w.eventOf(raw, name); w.eventOf(other, name) }); n != 0 {
		t.Errorf("eventOf allocates %v times for two watches' names before, in turn, want 0", n)
	}
}
