//go:build linux

package linefile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"conductorbridge/bridge/rawsys"
)

// A held record's fstat and pread are raw system calls where they cannot
// wait (rawsys: a local filesystem, no access time written, reads only
// from the page cache), so reading a line does not wake the Go runtime's
// sysmon. Decided once for each file opened; a record opened for one read
// alone (no Files) is read with the ordinary calls.

// rawRecord is a held file's descriptor for raw calls.
type rawRecord struct {
	fd     int
	stat   bool // fstat raw
	nowait bool // pread raw (rawsys.PreadNoWait), until the kernel refuses it
}

// rawRecordOf decides for f, just opened.
func rawRecordOf(f *os.File) rawRecord {
	fd := int(f.Fd())
	ok := rawsys.RawReads(fd)
	return rawRecord{fd: fd, stat: ok, nowait: ok}
}

// stat is the held file's stat.
func (h *heldFile) stat() (fs.FileInfo, error) {
	if !h.raw.stat {
		return h.f.Stat()
	}
	info := &rawInfo{name: filepath.Base(h.f.Name())}
	if err := rawsys.Fstat(h.raw.fd, &info.st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: h.f.Name(), Err: err}
	}
	return info, nil
}

// readAt is f.ReadAt, what the page cache holds of it read raw when f is
// r's held file: what it does not hold is read with the ordinary pread.
func (r *Reader) readAt(f *os.File, b []byte, off int64) (int, error) {
	h := r.held
	if h == nil || h.f != f || !h.raw.nowait {
		return f.ReadAt(b, off)
	}
	n := 0
	for n < len(b) {
		m, err := rawsys.PreadNoWait(h.raw.fd, b[n:], off+int64(n))
		if err != nil {
			if err != syscall.EAGAIN {
				h.raw.nowait = false // no RWF_NOWAIT here (tmpfs): never again for this file
			}
			break // the ordinary pread reads on, waiting if it must
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	if n == len(b) {
		return n, nil
	}
	m, err := f.ReadAt(b[n:], off+int64(n))
	return n + m, err
}

// readOnce is readOnce of the held file (a read told Unchanged, of no
// known size): fewer bytes than buf holds are the end of the file as it
// stands. What the page cache holds is read raw. A raw read stops short
// at the end of the file, or where the page cache lacks a page, which is
// only ever at a page's start: a short read that ends there is read on
// with the ordinary pread, as is one the kernel refuses (EAGAIN: the
// first page is not in the page cache).
func (h *heldFile) readOnce(buf []byte, off int64) (int, error) {
	if !h.raw.nowait {
		return readOnce(h.f, buf, off)
	}
	n, err := rawsys.PreadNoWait(h.raw.fd, buf, off)
	if err != nil {
		if err != syscall.EAGAIN {
			h.raw.nowait = false // no RWF_NOWAIT here (tmpfs): never again for this file
		}
		return readOnce(h.f, buf, off)
	}
	if n == 0 || n == len(buf) || (off+int64(n))%int64(os.Getpagesize()) != 0 {
		return n, nil // 0: at the end (a page not cached is EAGAIN)
	}
	m, err := readOnce(h.f, buf[n:], off+int64(n))
	return n + m, err
}

// sameFile is os.SameFile, for raw stats too.
func sameFile(a, b fs.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return os.SameFile(a, b)
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// rawInfo is an fs.FileInfo of a raw fstat, as os makes one.
type rawInfo struct {
	name string
	st   syscall.Stat_t
}

func (i *rawInfo) Name() string       { return i.name }
func (i *rawInfo) Size() int64        { return i.st.Size }
func (i *rawInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i *rawInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i *rawInfo) Sys() any           { return &i.st }

func (i *rawInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if i.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
