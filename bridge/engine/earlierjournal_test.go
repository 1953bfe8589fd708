package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// A journal outlives the build that wrote it: a restart onto a newer
// bridge reads the resume points an older one journaled. The JSON below
// is written by hand with the keys earlier builds wrote (the engine's
// resume point was called a cursor then; its keys are unchanged), not
// by this build's encoder.

// TestMarkReadsWhatEarlierBuildsWrote: every key of a workspace's whole
// mark, in both shapes earlier builds journaled, is read back.
func TestMarkReadsWhatEarlierBuildsWrote(t *testing.T) {
	at := func(sec int) time.Time { return time.Date(2026, 1, 1, 0, 0, sec, 0, time.UTC) }
	tests := []struct {
		name string
		raw  string
		want mark
	}{
		{
			name: "sessions one by one",
			raw: `{"sessions":{` +
				`"s1":{"path":"/p/s1.jsonl","agent":"claude","offset":120,"parser":{"turn":1},"status":"needs_input","reason":"permission","needs":"permission","since":"2026-01-01T00:00:02Z",` +
				`"subs":{"/p/s1/subagents/agent-1.jsonl":{"offset":40,"parser":{"n":2}}},"subs_done":"2026-01-01T00:00:01Z","last_id":42},` +
				`"tab-2":{"path":"tab-2","agent":"cursor","source":"conductor","offset":0,"parser":{"row":7}}},` +
				`"retired":{"/p/old.jsonl":{"path":"/p/old.jsonl","agent":"codex","offset":9,"status":"idle","last_id":3,"left":"2026-01-01T00:00:03Z"}}}`,
			want: mark{
				Sessions: map[string]tailMark{
					"s1": {Path: "/p/s1.jsonl", Agent: "claude", Offset: 120, Parser: json.RawMessage(`{"turn":1}`),
						Status: "needs_input", Reason: "permission", Needs: "permission", Since: at(2),
						Subs:     map[string]subMark{"/p/s1/subagents/agent-1.jsonl": {Offset: 40, Parser: json.RawMessage(`{"n":2}`)}},
						SubsDone: at(1), LastID: 42},
					"tab-2": {Path: "tab-2", Agent: "cursor", Source: "conductor", Parser: json.RawMessage(`{"row":7}`)},
				},
				Retired: map[string]tailMark{"/p/old.jsonl": {Path: "/p/old.jsonl", Agent: "codex", Offset: 9, Status: "idle", LastID: 3, Left: at(3)}},
			},
		},
		{
			name: "one session, before sessions were followed one by one",
			raw: `{"path":"/p/s1.jsonl","offset":120,"parser":{"turn":1},"status":"idle","since":"2026-01-01T00:00:02Z",` +
				`"subs":{"/p/s1/subagents/agent-1.jsonl":{"offset":40,"parser":{"n":2}}},"others":{"/p/b.jsonl":{"path":"/p/b.jsonl","offset":5}}}`,
			want: mark{Path: "/p/s1.jsonl", Offset: 120, Parser: json.RawMessage(`{"turn":1}`), Status: "idle", Since: at(2),
				Subs:   map[string]subMark{"/p/s1/subagents/agent-1.jsonl": {Offset: 40, Parser: json.RawMessage(`{"n":2}`)}},
				Others: map[string]tailMark{"/p/b.jsonl": {Path: "/p/b.jsonl", Offset: 5}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got mark
			if err := json.Unmarshal([]byte(tt.raw), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("read\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestRestartResumesFromAnEarlierBuildsJournal: a workspace's journal as
// an earlier build left it (a whole mark with the first turn's events,
// then a delta line with its idle status) and a turn written while the
// bridge was down. The restart resumes where that journal stood: the
// new turn streams, nothing of the first is read again, and ids go on
// from the journal's.
func TestRestartResumesFromAnEarlierBuildsJournal(t *testing.T) {
	h := newHome(t)
	const sid = "88888888-8888-4888-8888-888888888888"
	dir, path := h.session("earlier", sid)
	h.write(path, prompt(sid, "one"), answer(sid, "m1", "a1", "end_turn"))
	turnEnd := fileSize(path)
	h.write(path, prompt(sid, "two"), answer(sid, "m2", "a2", "end_turn")) // while the bridge was down

	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := discover.PathID(real)
	lines := []string{
		fmt.Sprintf(`{"e":[{"id":1,"type":"session","session_id":%q},{"id":2,"type":"user","session_id":%q,"content":"one"},`+
			`{"id":3,"type":"assistant","session_id":%q,"content":"a1"},{"id":4,"type":"turn_complete","session_id":%q}],`+
			`"c":{"sessions":{%q:{"path":%q,"agent":"claude","offset":%d,"status":"working","since":"2026-01-01T00:00:00Z","last_id":4}}},"n":5}`,
			sid, sid, sid, sid, sid, path, turnEnd),
		fmt.Sprintf(`{"e":[{"id":5,"type":"status","session_id":%q,"state":"idle"}],`+
			`"d":{"s":{%q:{"st":{"s":"idle","r":"","t":"2026-01-01T00:00:02Z"},"l":5}}},"n":6}`,
			sid, sid),
	}
	streams := filepath.Join(h.state, "streams")
	if err := os.MkdirAll(streams, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(streams, id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := h.start()
	if got := r.waitWorkspace(t, dir); got != id {
		t.Fatalf("workspace %s, want %s (the journal's)", got, id)
	}
	after := r.collect(t, id, 5, has(event.TurnComplete, ""))
	got := summary(after)
	if after[0].ID != 6 {
		t.Errorf("first event after the restart has id %d, want 6: %s", after[0].ID, got)
	}
	if strings.Contains(got, "user:one") || strings.Contains(got, "assistant:a1") || strings.Contains(got, "session:") {
		t.Errorf("read again what the earlier journal had: %s", got)
	}
	if !strings.Contains(got, "user:two") || !strings.Contains(got, "assistant:a2") {
		t.Errorf("missed the turn written while the bridge was down: %s", got)
	}
}
