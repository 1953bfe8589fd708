package opencode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
)

// corpus is a recorded session: the rows the real OpenCode wrote
// (testdata/<name>.jsonl, one Row.Line each) and what they must say.
type corpus struct {
	name  string
	lines [][]byte
	want  want
}

func corpora(t testing.TB) []corpus {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata (%v)", err)
	}
	var out []corpus
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := corpus{name: strings.TrimSuffix(filepath.Base(f), ".jsonl")}
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			c.lines = append(c.lines, l)
		}
		w, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".want.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(w, &c.want); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestCorpus replays what the real binary wrote: the events are the
// recorded run's, in one pass, resumed from a saved state at every row,
// and with every row fed twice.
func TestCorpus(t *testing.T) {
	for _, c := range corpora(t) {
		t.Run(c.name, func(t *testing.T) {
			p, _ := opencode.NewParser(nil)
			whole := eventtest.Parse(t, p, c.lines, nil)
			c.want.check(t, whole)
			if p.InTurn() {
				t.Error("a turn is open after the recorded run ended")
			}
			for i := range c.lines {
				a, _ := opencode.NewParser(nil)
				evs := eventtest.Parse(t, a, c.lines[:i], nil)
				saved, err := a.Save()
				if err != nil {
					t.Fatal(err)
				}
				b, err := opencode.NewParser(saved)
				if err != nil {
					t.Fatal(err)
				}
				// A restart reads again from a little before its cursor.
				evs = eventtest.Parse(t, b, c.lines[max(0, i-3):], evs)
				if !reflect.DeepEqual(evs, whole) {
					t.Fatalf("resumed at row %d: %d events, want %d", i, len(evs), len(whole))
				}
			}
		})
	}
}

// TestBadLinesLoseNothing: a line that is not an event row is refused
// with ErrNotJSON and leaves the parser as it was.
func TestBadLinesLoseNothing(t *testing.T) {
	c := corpora(t)[0]
	bad := [][]byte{
		[]byte("not json"), []byte(`[1,2]`), []byte(`{"seq":"1","type":"x","data":{}}`),
		[]byte(`{"seq":-1,"type":"x","data":{}}`), []byte(`{"seq":99,"type":"x","data":"{not json"}`),
		[]byte(`{"seq":99,"type":"x"}`), []byte(`{"seq":1.5,"type":"x","data":{}}`),
	}
	p, _ := opencode.NewParser(nil)
	var evs []event.Event
	for i, l := range c.lines {
		before, _ := p.Save()
		for _, b := range bad {
			var err error
			if evs, err = p.Line(b, evs); !errors.Is(err, opencode.ErrNotJSON) {
				t.Fatalf("%s: err %v", b, err)
			}
			if after, _ := p.Save(); !bytes.Equal(before, after) {
				t.Fatalf("%s changed the state", b)
			}
		}
		var err error
		if evs, err = p.Line(l, evs); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	c.want.check(t, evs)
}

// TestRowLineIsOneObject: data that is not JSON cannot smuggle fields
// into the line (a seq or a type of its own).
func TestRowLineIsOneObject(t *testing.T) {
	for _, data := range []string{`{"a":1}`, `1},"seq":99,"x":{`, "", `{"a":"\n"}`, "{\n\"a\": 1\n}"} {
		line := opencode.Row{Seq: 7, Type: `a"b`, Data: []byte(data)}.Line()
		var v struct {
			Seq  int64           `json:"seq"`
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(line, &v); err != nil || v.Seq != 7 || v.Type != `a"b` {
			t.Errorf("%q: %s (%v)", data, line, err)
		}
		if bytes.ContainsAny(line, "\r\n") {
			t.Errorf("%q: the line %q has a line break", data, line)
		}
	}
}
