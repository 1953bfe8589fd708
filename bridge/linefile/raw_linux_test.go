//go:build linux

package linefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"unsafe"

	"golang.org/x/sys/unix"
)

// heldRaw is a held Reader's record open with raw calls, or the test
// skipped where the temporary folder's filesystem has none.
func heldRaw(t *testing.T, r *Reader) *heldFile {
	t.Helper()
	if _, err := r.Read(func([]byte, int64) {}); err != nil {
		t.Fatal(err)
	}
	h := r.held
	if h == nil || h.f == nil {
		t.Fatal("the record is not held")
	}
	if !h.raw.stat {
		var st unix.Statfs_t
		unix.Fstatfs(h.raw.fd, &st)
		t.Skipf("no raw calls on the temporary folder's filesystem (%#x)", st.Type)
	}
	return h
}

// The raw stat of a held record says what os's says of it, and names the
// same file: a Reader compares one with the other (sameFile).
func TestRawStatIsOsStat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(path, []byte("{}\n{}\n"), 0o4750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640|os.ModeSetgid|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	r := &Reader{Path: path, Files: NewFiles(2)}
	defer r.Close()
	h := heldRaw(t, r)
	raw, err := h.stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.(*rawInfo); !ok {
		t.Fatalf("the held stat is %T, not raw", raw)
	}
	want, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"name", raw.Name(), want.Name()},
		{"size", raw.Size(), want.Size()},
		{"mode", raw.Mode(), want.Mode()},
		{"modification time", raw.ModTime().UnixNano(), want.ModTime().UnixNano()},
		{"folder", raw.IsDir(), want.IsDir()},
		{"linked", linked(raw), true},
		{"same file as os's stat", sameFile(raw, want), true},
		{"os's stat, same file as it", sameFile(want, raw), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: raw %v, os %v", c.what, c.got, c.want)
		}
	}
	other := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if o, _ := os.Stat(other); sameFile(raw, o) {
		t.Error("another file is the same file")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if gone, _ := h.stat(); linked(gone) {
		t.Error("a removed file is still linked")
	}
}

// A held record is read whole when only its start is in the page cache
// (the raw read stops short, then says EAGAIN, and the ordinary pread
// reads on), and at any length up to its end: every line comes once, in
// order, as a Reader opening it for each read hands them out. So it is
// when told Unchanged, read up to a short read without its size: the raw
// read that stops where the page cache lacks a page is no end.
func TestHeldRecordReadsWhatThePageCacheLacks(t *testing.T) {
	for _, unchanged := range []bool{false, true} {
		t.Run(fmt.Sprintf("unchanged=%v", unchanged), func(t *testing.T) {
			heldReadsWhatThePageCacheLacks(t, unchanged)
		})
	}
}

func heldReadsWhatThePageCacheLacks(t *testing.T, unchanged bool) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var lines []string
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		l := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%97))
		lines = append(lines, l)
		b.WriteString(l + "\n")
	}
	appendFile(t, path, "first\n")
	held := &Reader{Path: path, Files: NewFiles(2)}
	defer held.Close()
	h := heldRaw(t, held)
	appendFile(t, path, b.String())
	if err := h.f.Sync(); err != nil { // clean pages, which the kernel may drop
		t.Fatal(err)
	}
	// Drop all but the file's first 2 MiB (a huge folio is dropped whole
	// or not at all).
	const kept = 2 << 20
	if err := unix.Fadvise(h.raw.fd, kept, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if resident(t, h.f, kept) {
		t.Skip("the page cache kept the file's end (tmpfs): nothing to read past it")
	}
	var got collected
	held.Unchanged = unchanged
	res, err := held.Read(got.fn) // one Read, no Budget: to the end
	if err != nil || res.More || held.Seen() != res.Size || held.Seen() != int64(len("first\n")+b.Len()) {
		t.Fatalf("Read: %+v, %v; read to %d", res, err, held.Seen())
	}
	if strings.Join(got.lines, "\n") != strings.Join(lines, "\n") {
		t.Errorf("read %d lines, want %d; first %q", len(got.lines), len(lines), got.lines[:min(2, len(got.lines))])
	}
	if !h.raw.stat {
		t.Error("the held record is no longer statted raw")
	}
}

// resident reports whether the page at off of f is in the page cache
// (mincore of a mapping of it; a read would start reading ahead).
func resident(t *testing.T, f *os.File, off int64) bool {
	page := int64(os.Getpagesize())
	m, err := unix.Mmap(int(f.Fd()), off, int(page), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, 1)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(page), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	return vec[0]&1 != 0
}
