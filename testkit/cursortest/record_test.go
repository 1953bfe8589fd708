package cursortest

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/testkit/fakemodel"
)

var record = flag.Bool("record", false, "TestRecord: rewrite "+recordDir+"/index.sql from a real SDK run")

// recordDir is where TestRecord writes the store's rows (index.sql) and
// checks its schema (SchemaFile), for the reader of Cursor SDK stores
// (bridge/agent/cursor) to test on.
const recordDir = "../../bridge/agent/cursor/testdata/sdk-" + SDKVersion

// TestRecord runs the script in one store, agent 1 two turns and agent 2
// a run the backend fails, and writes the store's index.db as SQL text,
// its rows in index.sql and its schema in schema.sql. A schema.sql there
// already, which the recorded dumps of the reader's tests are loaded
// after, must be the schema the SDK made: the test fails, naming both,
// where it is not (a new SDK version records to a new folder).
//
//	go test ./testkit/cursortest -run TestRecord -args -record
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("run with -args -record to rewrite " + recordDir + "/index.sql")
	}
	tools := Find(t)
	h := NewHome(t)
	sc := newScript(h.Work)
	res, _ := runJob(t, tools, h, sc, []fakemodel.Turn{sc.first, sc.second},
		[][]string{{"read hello.txt", "and again"}, {"fail please"}})
	schema, dump, err := Dump(openStore(t, h))
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeRecording(recordDir, schema, dump)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: agents %+v", path, res.Agents)
}

// writeRecording writes a store's dump to the recording's folder dir
// (made): its schema to SchemaFile (writeSchema: one there already must be
// the same), then its rows to index.sql, whose path it returns.
func writeRecording(dir, schema, rows string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := writeSchema(filepath.Join(dir, SchemaFile), schema); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "index.sql")
	return path, os.WriteFile(path, []byte(rows), 0o644)
}

// writeSchema writes schema at path where there is none yet, and is an
// error naming both where the one there differs.
func writeSchema(path, schema string) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return os.WriteFile(path, []byte(schema), 0o644)
	}
	if err != nil {
		return err
	}
	if string(old) != schema {
		return fmt.Errorf("the SDK's schema is not %s, which the recorded dumps are loaded after: it is\n%s\nwhere %s has\n%s", path, schema, path, old)
	}
	return nil
}

// TestWriteSchema: the recorder writes the SDK's schema where there is
// none, keeps the one there that is the same, and fails, naming the
// file and the SDK's schema, where it differs, leaving the file as it was.
func TestWriteSchema(t *testing.T) {
	const sdk = "CREATE TABLE agents (agent_id TEXT);\n"
	cases := []struct {
		name, there string // there: the file's text before, "" for none
		wantErr     bool
		want        string // the file's text after
	}{
		{name: "none yet", want: sdk},
		{name: "the same", there: sdk, want: sdk},
		{name: "another", there: "CREATE TABLE agents (id TEXT);\n", wantErr: true, want: "CREATE TABLE agents (id TEXT);\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), SchemaFile)
			if c.there != "" {
				if err := os.WriteFile(path, []byte(c.there), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := writeSchema(path, sdk)
			if c.wantErr != (err != nil) {
				t.Fatalf("writeSchema = %v, want an error: %v", err, c.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), sdk)) {
				t.Errorf("the error %q names neither the file nor the SDK's schema", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("the file holds %q, want %q", got, c.want)
			}
		})
	}
}
