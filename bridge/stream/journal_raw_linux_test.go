//go:build linux && (amd64 || arm64)

package stream

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/rawsys"
	"golang.org/x/sys/unix"
)

// countedFile counts the journal's ordinary writes: a raw one passes it by.
type countedFile struct {
	*os.File
	writes int
}

func (c *countedFile) Write(b []byte) (int, error) {
	c.writes++
	return c.File.Write(b)
}

// rawJournal readies tp's journal for a test of its raw writes: its
// ordinary writes counted, its own guard on clock, its log kept.
func rawJournal(t *testing.T, tp *Topic, clock func() time.Time) (*countedFile, *[]string) {
	t.Helper()
	j := tp.journal
	f, ok := j.f.(*os.File)
	if !ok {
		t.Fatalf("journal file is %T", j.f)
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	switch uint32(st.Type) { // local filesystems, from the kernel's uapi magic.h
	case 0xEF53, 0x01021994, 0x58465342, 0x9123683E, 0x794c7630, 0xF2F52010:
	default:
		t.Skipf("the temporary folder is on filesystem %#x, not one this test knows local", st.Type)
	}
	if !j.raw.ok {
		t.Fatalf("a journal on local filesystem %#x is not written raw", st.Type)
	}
	c := &countedFile{File: f}
	j.f = c
	j.raw.guard = &rawsys.Guard{Now: clock, Tripped: new(atomic.Pointer[rawsys.Slow]), Stalls: new(rawsys.Stalls)}
	var logged []string
	j.log = func(msg string) { logged = append(logged, msg) }
	return c, &logged
}

// A journal on a local filesystem writes its lines raw until one write
// takes long (30 ms); that one is logged, naming the journal, and every
// later line is an ordinary write. Two of 10 ms, which the budget holds,
// change nothing. Nothing is lost on the way.
func TestJournalRawWriteStopsAfterASlowOne(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	now, step := time.Unix(0, 0), 20*time.Microsecond
	c, logged := rawJournal(t, tp, func() time.Time { now = now.Add(step); return now })
	publish := func(n int) {
		t.Helper()
		for range n {
			if _, err := tp.Publish(texts(1, "a"), json.RawMessage(`{"off":1}`)); err != nil {
				t.Fatal(err)
			}
		}
	}

	publish(3)
	if c.writes != 0 || len(*logged) != 0 {
		t.Fatalf("fast lines: %d ordinary writes, logged %q; want raw writes, nothing logged", c.writes, *logged)
	}
	step = 10 * time.Millisecond // preempted, or the disk's odd wait
	publish(2)
	if c.writes != 0 || len(*logged) != 0 {
		t.Fatalf("two 10 ms lines: %d ordinary writes, logged %q; want raw writes, nothing logged", c.writes, *logged)
	}
	step = 30 * time.Millisecond // throttled for the disk
	publish(1)
	if c.writes != 0 {
		t.Fatalf("the slow line was an ordinary write")
	}
	if len(*logged) != 1 || !strings.Contains((*logged)[0], filepath.Join(dir, "w.jsonl")) {
		t.Fatalf("logged %q; want one line naming the journal", *logged)
	}
	step = 20 * time.Microsecond
	publish(3)
	if c.writes != 3 {
		t.Errorf("after the slow line: %d ordinary writes of 3 lines", c.writes)
	}
	if len(*logged) != 1 {
		t.Errorf("logged %q; want the one line", *logged)
	}

	path := filepath.Join(dir, "w.jsonl")
	if n := wholeLines(t, path); n != 9 {
		t.Errorf("journal has %d lines, want 9", n)
	}
	h.Close()
	tp2, err := NewHub(dir, 100).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	if tp2.LastID() != 9 || len(tp2.History(0)) != 9 {
		t.Errorf("after reload: last id %d, %d events; want 9, 9", tp2.LastID(), len(tp2.History(0)))
	}
}

// A raw write the kernel cuts short (the file size limit reached part way
// through the line: write(2) writes what fits, the next call fails with
// EFBIG) takes today's error path: the partial line is cut off, the file
// stays whole lines, and the next line is written whole.
func TestJournalRawWriteCutShortLeavesNoTornLine(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	c, _ := rawJournal(t, tp, func() time.Time { return time.Time{} })
	path := filepath.Join(dir, "w.jsonl")
	if _, err := tp.Publish(texts(1, "a"), json.RawMessage(`{"off":1}`)); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	small := limit
	small.Cur = uint64(before.Size()) + 10 // ten bytes of the next line fit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Fatal(err)
	}
	_, perr := tp.Publish(texts(1, "lost"), json.RawMessage(`{"off":2}`))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(perr, syscall.EFBIG) {
		t.Fatalf("publish past the size limit: %v; want EFBIG", perr)
	}
	if after, _ := os.Stat(path); after.Size() != before.Size() {
		t.Errorf("journal is %d bytes after the cut-short write, want %d: partial line not cut off", after.Size(), before.Size())
	}
	if _, err := tp.Publish(texts(1, "b"), nil); err != nil {
		t.Fatal(err)
	}
	if c.writes != 0 {
		t.Errorf("%d ordinary writes; want every line raw", c.writes)
	}
	if n := wholeLines(t, path); n != 2 {
		t.Errorf("journal has %d lines, want 2", n)
	}
	h.Close()
	tp2, err := NewHub(dir, 100).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(tp2.History(0)); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("history after reload = %v, want [1 3]", got)
	}
}
