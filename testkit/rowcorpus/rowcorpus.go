// Package rowcorpus reads the recorded Conductor tabs of
// bridge/agent/conductor's corpus (testdata/corpus/<tab>/rows.jsonl): the
// session_messages rows Conductor wrote for one tab, and the events the
// bridge streams from them (rows.jsonl.events), for tests that replay a
// tab through the engine or the whole bridge.
package rowcorpus

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Row is one recorded row: the person's typed prompt as Text, every
// other row an agent's Frame, with when Conductor wrote it.
type Row struct {
	Role  string          `json:"role"`
	At    string          `json:"at"`
	Text  *string         `json:"text"`
	Frame json.RawMessage `json:"frame"`
}

// Read reads the tab recorded in dir (a corpus folder holding rows.jsonl)
// and the events it streams, failing t on any error.
func Read(t testing.TB, dir string) ([]Row, string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "rows.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "rows.jsonl.events"))
	if err != nil {
		t.Fatal(err)
	}
	return rows, string(want)
}
