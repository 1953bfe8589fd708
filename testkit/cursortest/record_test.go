package cursortest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/testkit/fakemodel"
)

var record = flag.Bool("record", false, "TestRecord: rewrite "+recordPath+" from a real SDK run")

// recordPath is where TestRecord writes the store's dump, for the reader
// of Cursor SDK stores (bridge/agent/cursor) to test on.
const recordPath = "../../bridge/agent/cursor/testdata/sdk-" + SDKVersion + "/index.sql"

// TestRecord runs the script in one store, agent 1 two turns and agent 2
// a run the backend fails, and writes the store's index.db as SQL text:
//
//	go test ./testkit/cursortest -run TestRecord -args -record
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("run with -args -record to rewrite " + recordPath)
	}
	tools := Find(t)
	h := NewHome(t)
	sc := newScript(h.Work)
	res, _ := runJob(t, tools, h, sc, []fakemodel.Turn{sc.first, sc.second},
		[][]string{{"read hello.txt", "and again"}, {"fail please"}})
	dump, err := Dump(openStore(t, h))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(recordPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordPath, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: agents %+v", recordPath, res.Agents)
}
