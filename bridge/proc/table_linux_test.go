//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// fakeProc is a process table in a folder, as /proc lays it out.
type fakeProc struct {
	t    *testing.T
	root string
}

func (f fakeProc) set(pid int, comm string, args ...string) {
	f.t.Helper()
	dir := filepath.Join(f.root, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	var cmdline []byte
	for _, a := range args {
		cmdline = append(append(cmdline, a...), 0)
	}
	if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cmdline"), cmdline, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// TestTableReadsOnlyWhatMayHaveChanged walks a process table three times
// and more: a process read twice alike is not read again (its files
// changed behind the table's back still show the old reading) until
// Fresh has passed; a new process is read at once; a process caught
// between its fork and its exec (its parent's arguments, then its own)
// is read again; a gone process is gone.
func TestTableReadsOnlyWhatMayHaveChanged(t *testing.T) {
	f := fakeProc{t, t.TempDir()}
	clock := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	tab := &Table{Fresh: time.Minute, root: f.root, now: func() time.Time { return clock }}
	walk := func() map[int][]string {
		t.Helper()
		ps, err := tab.List()
		if err != nil {
			t.Fatal(err)
		}
		out := make(map[int][]string)
		for _, p := range ps {
			out[p.PID] = p.Args
		}
		return out
	}
	f.set(10, "bash", "bash", "wrapper.sh")
	f.set(11, "node", "node", "conductor-sidecar.js")
	walk()
	walk()                                            // read twice alike: sure
	f.set(10, "claude", "claude", "--resume", "x")    // execs under its pid
	f.set(12, "node", "node", "conductor-sidecar.js") // forked, not exec'd yet
	got := walk()
	if !slices.Equal(got[10], []string{"bash", "wrapper.sh"}) {
		t.Errorf("a known process was read again within Fresh: %q", got[10])
	}
	if !slices.Equal(got[12], []string{"node", "conductor-sidecar.js"}) {
		t.Errorf("a new process: %q", got[12])
	}
	f.set(12, "node", "node", "claude-cli.js", "--session-id", "y") // its exec
	if got := walk(); !slices.Equal(got[12], []string{"node", "claude-cli.js", "--session-id", "y"}) {
		t.Errorf("a process read once is read again: %q", got[12])
	}
	clock = clock.Add(time.Minute)
	if got := walk(); !slices.Equal(got[10], []string{"claude", "--resume", "x"}) {
		t.Errorf("after Fresh: %q", got[10])
	}
	if err := os.RemoveAll(filepath.Join(f.root, "11")); err != nil {
		t.Fatal(err)
	}
	if got := walk(); got[11] != nil {
		t.Errorf("a gone process is listed: %q", got[11])
	}
}
