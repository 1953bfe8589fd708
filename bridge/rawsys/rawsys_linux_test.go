//go:build linux && (amd64 || arm64)

package rawsys

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A call interrupted by a signal is made again; its result or any other
// error is returned as it came.
func TestAgainRetriesOnlyEINTR(t *testing.T) {
	type result struct {
		r uintptr
		e syscall.Errno
	}
	for _, tc := range []struct {
		name    string
		results []result
		n       int
		err     error
		calls   int
	}{
		{"at once", []result{{7, 0}}, 7, nil, 1},
		{"interrupted twice", []result{{0, syscall.EINTR}, {0, syscall.EINTR}, {5, 0}}, 5, nil, 3},
		{"would wait", []result{{0, syscall.EAGAIN}}, 0, syscall.EAGAIN, 1},
		{"interrupted, then fails", []result{{0, syscall.EINTR}, {0, syscall.EBADF}}, 0, syscall.EBADF, 2},
	} {
		calls := 0
		n, err := again(func() (uintptr, syscall.Errno) {
			r := tc.results[calls]
			calls++
			return r.r, r.e
		})
		if n != tc.n || err != tc.err || calls != tc.calls {
			t.Errorf("%s: %d, %v after %d calls; want %d, %v after %d", tc.name, n, err, calls, tc.n, tc.err, tc.calls)
		}
	}
}

// PreadNoWait reads what the page cache holds and no more: with the
// second half of a file dropped from it, a read of that half is EAGAIN
// and a read of the whole is short, where pread would read the disk.
// Each is the first read after the drop: the read itself starts reading
// the disk ahead, which a later one may find done.
func TestPreadNoWaitStopsWhereTheDiskWouldBeRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const half = 2 << 20 // a huge page: ext4's and XFS's biggest folio, dropped whole or not at all
	data := bytes.Repeat([]byte("0123456789abcdef"), 2*half/16)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := f.Sync(); err != nil { // written back: clean pages can be dropped
		t.Fatal(err)
	}
	drop := func() {
		t.Helper()
		if _, err := f.ReadAt(make([]byte, half), half); err != nil { // what a read ahead is under way ends
			t.Fatal(err)
		}
		if err := unix.Fadvise(fd, half, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
		if cached(t, fd, len(data), half) {
			t.Skip("the kernel kept the dropped pages (tmpfs): nothing to wait for")
		}
	}
	b := make([]byte, len(data))
	drop()
	if n, err := stillGuard().PreadNoWait(fd, b, half); err != syscall.EAGAIN {
		t.Fatalf("PreadNoWait of the dropped half = %d, %v; want EAGAIN", n, err)
	}
	drop()
	n, err := stillGuard().PreadNoWait(fd, b, 0)
	if err != nil || n != half || !bytes.Equal(b[:n], data[:n]) {
		t.Fatalf("PreadNoWait of the whole = %d, %v; want its cached %d bytes", n, err, half)
	}
}

// cached reports whether the page at off of fd's first size bytes is in
// the page cache (mincore of a mapping of them).
func cached(t *testing.T, fd, size, off int) bool {
	m, err := unix.Mmap(fd, 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, 1)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[off])), uintptr(os.Getpagesize()), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	return vec[0]&1 != 0
}
