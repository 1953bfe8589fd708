//go:build unix

package sqliteread

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writer makes a WAL database at path with one table, as the programs the
// bridge reads do, and returns a connection that commits to it.
func writer(t *testing.T, path string) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, err := w.Exec("CREATE TABLE t (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestOpenRefusesWhatIsNotARegularDatabase(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
		isNot error
	}{
		{name: "missing", setup: func(*testing.T, string) {}, want: "no such file", isNot: fs.ErrNotExist},
		{name: "a folder", setup: func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, want: "not a regular file"},
		{name: "a FIFO", setup: func(t *testing.T, path string) { mkfifo(t, path) }, want: "not a regular file"},
		{name: "a FIFO as its WAL", setup: func(t *testing.T, path string) {
			writer(t, path).Close()
			os.Remove(path + "-wal")
			mkfifo(t, path+"-wal")
		}, want: "-wal"},
		{name: "a FIFO as its journal", setup: func(t *testing.T, path string) {
			writer(t, path).Close()
			mkfifo(t, path+"-journal")
		}, want: "-journal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			tt.setup(t, path)
			c := New("test db", path)
			defer c.Close()
			_, _, err := c.Open(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "open test db") {
				t.Fatalf("Open = %v, want an error naming the database and %q", err, tt.want)
			}
			if tt.isNot != nil && !errors.Is(err, tt.isNot) {
				t.Errorf("Open = %v, want it to be %v", err, tt.isNot)
			}
			if c.SQL() != nil {
				t.Error("a connection is kept after a refused open")
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
}

// A reader learns of each commit another connection makes, and only of
// those; a database replaced by a new file is read on a new connection.
func TestDataVersionMovesOnlyWithCommits(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	w := writer(t, path)
	c := New("test db", path)
	defer c.Close()

	step := func(what string, wantFresh, wantMoved bool, last int64) int64 {
		t.Helper()
		v, fresh, err := c.DataVersion(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if fresh != wantFresh || (!fresh && (v != last) != wantMoved) {
			t.Fatalf("%s: version %d (was %d), fresh %v; want fresh %v, moved %v", what, v, last, fresh, wantFresh, wantMoved)
		}
		return v
	}
	v := step("first read", true, false, 0)
	v = step("no commit", false, false, v)
	if _, err := w.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	v = step("after a commit", false, true, v)
	v = step("no commit since", false, false, v)

	if _, err := c.SQL().ExecContext(ctx, "INSERT INTO t VALUES (2)"); err == nil {
		t.Error("the connection wrote to the database")
	}

	w.Close()
	next := filepath.Join(filepath.Dir(path), "next.db")
	writer(t, next).Close()
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	step("a new file in its place", true, false, v)
}
