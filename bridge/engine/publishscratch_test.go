package engine

import (
	"reflect"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/transcript"
)

// TestScratchMarkIsTheMark: the mark publish rebuilds in place, line
// after line, is the one markWithout makes anew, as sessions read on,
// come, go and retire and subagents start; and once publish is done it
// holds no parser state, which would stay alive in an idle workspace.
func TestScratchMarkIsTheMark(t *testing.T) {
	const a, b = "0b0e0f10-0000-4000-8000-00000000000a", "0b0e0f10-0000-4000-8000-00000000000b"
	newTail := func(id string) *tail {
		return &tail{id: id, reader: linefile.Reader{Path: "/x/" + id + ".jsonl", Offset: 100}, parser: &transcript.Parser{}, status: event.StateWorking}
	}
	w := &workspace{tails: map[string]*tail{a: newTail(a)}}
	steps := []struct {
		name   string
		change func()
	}{
		{"first line", func() {}},
		{"read on", func() { w.tails[a].reader.Offset += 300 }},
		{"a second session", func() { w.tails[b] = newTail(b) }},
		{"status", func() { w.tails[b].status, w.tails[b].reason = event.StateNeedsInput, "question" }},
		{"a subagent at work", func() {
			sp, err := claude.Agent{}.NewSubParser(nil)
			if err != nil {
				t.Fatal(err)
			}
			w.tails[a].subs = map[string]*subTail{"/x/" + a + "/subagents/agent-1.jsonl": {grew: time.Now(), reader: linefile.Reader{Offset: 7}, parser: sp}}
		}},
		{"the first session retired", func() {
			w.retired = map[string]tailMark{"/x/" + a + ".jsonl": {Offset: 400, Left: time.Now()}}
			delete(w.tails, a)
		}},
		{"none", func() { delete(w.tails, b) }},
	}
	for _, st := range steps {
		st.change()
		got, want := w.scratchMark(), w.markWithout()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: scratch mark\n%+v\nwant\n%+v", st.name, got, want)
		}
		w.scratchWithParsers(got) // as publish does, for a whole mark
		w.pub.release()
		for id, tc := range w.pub.mark.Sessions {
			if tc.Parser != nil || tc.Subs != nil {
				t.Errorf("%s: after publish the scratch mark still holds %s's parser or subagents", st.name, id)
			}
		}
		if w.pub.mark.Retired != nil {
			t.Errorf("%s: after publish the scratch mark still holds the retired sessions", st.name)
		}
	}
}

// TestOneSessionSnapshotIsOneAllocation: every line of a live agent
// makes its workspace a new snapshot; for a workspace of one session its
// lists share the snapshot's allocation, and say the same as ever.
func TestOneSessionSnapshotIsOneAllocation(t *testing.T) {
	const a = "0b0e0f10-0000-4000-8000-00000000000a"
	tl := &tail{id: a, reader: linefile.Reader{Path: "/x/" + a + ".jsonl", Offset: 100}, parser: &transcript.Parser{}, status: event.StateWorking, lastID: 7}
	w := &workspace{eng: &Engine{}, tails: map[string]*tail{a: tl}}
	if n := testing.AllocsPerRun(100, func() { w.snapshot() }); n > 1 {
		t.Errorf("%v allocations a snapshot, want 1", n)
	}
	s := w.snap.Load()
	if len(s.sessions) != 1 || s.sessions[0].SessionID != a || s.sessions[0].LastEventID != 7 || s.sessions[0].Status != event.StateWorking ||
		!reflect.DeepEqual(s.paths, []string{tl.reader.Path}) || len(s.read) != 1 {
		t.Errorf("snapshot %+v", s)
	}
}
