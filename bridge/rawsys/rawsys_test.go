//go:build unix

package rawsys

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Each call does what its system call does, on a file and a pipe.
func TestCallsDoWhatTheirSystemCallsDo(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if n, err := Write(fd, []byte("hello world\n")); n != 12 || err != nil {
		t.Fatalf("Write = %d, %v; want 12, nil", n, err)
	}
	var st syscall.Stat_t
	if err := Fstat(fd, &st); err != nil || st.Size != 12 {
		t.Fatalf("Fstat: size %d, %v; want 12", st.Size, err)
	}
	want, err := os.Stat(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if got := want.Sys().(*syscall.Stat_t); got.Ino != st.Ino || got.Dev != st.Dev {
		t.Errorf("Fstat names inode %d/%d, stat %d/%d", st.Dev, st.Ino, got.Dev, got.Ino)
	}
	for _, tc := range []struct {
		off  int64
		size int
		want string
	}{
		{0, 5, "hello"},
		{6, 64, "world\n"}, // short: the file ends
		{12, 8, ""},
		{100, 8, ""},
	} {
		b := make([]byte, tc.size)
		n, err := stillGuard().PreadNoWait(fd, b, tc.off)
		if err == syscall.EOPNOTSUPP {
			t.Logf("this filesystem has no RWF_NOWAIT (tmpfs): its files are read with pread")
			break
		}
		if err != nil || string(b[:n]) != tc.want {
			t.Errorf("PreadNoWait at %d = %q, %v; want %q", tc.off, b[:n], err, tc.want)
		}
	}
	if err := Fstat(-1, &st); err != syscall.EBADF {
		t.Errorf("Fstat(-1) = %v, want EBADF", err)
	}

	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	if err := syscall.SetNonblock(p[0], true); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	if n, err := Read(p[0], b); err != syscall.EAGAIN {
		t.Errorf("Read of an empty non-blocking pipe = %d, %v; want EAGAIN", n, err)
	}
	if _, err := Write(p[1], []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if n, err := Read(p[0], b); string(b[:n]) != "ping" || err != nil {
		t.Errorf("Read = %q, %v; want ping", b[:n], err)
	}
}

// stillGuard is a guard whose clock stands still, so that tests of the
// calls themselves never trip it however long the machine makes them take.
func stillGuard() *Guard {
	return &Guard{Now: func() time.Time { return time.Time{} }, Tripped: new(atomic.Pointer[Slow])}
}
