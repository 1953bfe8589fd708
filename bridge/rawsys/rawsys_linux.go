//go:build linux && (amd64 || arm64)

package rawsys

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Each call converts its pointers to uintptr in the RawSyscall6 call
// itself, as unsafe.Pointer's rules ask, inside a function again runs.

// Read is read(2) of a non-blocking descriptor.
func Read(fd int, b []byte) (int, error) {
	return again(func() (uintptr, syscall.Errno) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, 0, 0)
		return r, e
	})
}

// Write is write(2) to a non-blocking descriptor.
func Write(fd int, b []byte) (int, error) {
	return again(func() (uintptr, syscall.Errno) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, 0, 0)
		return r, e
	})
}

// Fstat is fstat(2) of a file RawReads accepted.
func Fstat(fd int, st *syscall.Stat_t) error {
	_, err := again(func() (uintptr, syscall.Errno) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0, 0, 0, 0)
		return r, e
	})
	return err
}

// preadNoWait is preadv2(2) with RWF_NOWAIT (see PreadNoWait).
func preadNoWait(fd int, b []byte, off int64) (int, error) {
	iov := unix.Iovec{Base: unsafe.SliceData(b)}
	iov.SetLen(len(b))
	return again(func() (uintptr, syscall.Errno) {
		// 64-bit: the offset is one register, pos_l; pos_h is unused.
		r, _, e := syscall.RawSyscall6(unix.SYS_PREADV2, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1, uintptr(off), 0, unix.RWF_NOWAIT)
		return r, e
	})
}

// writeFile is write(2) of a regular file (see Guard.WriteFile).
func writeFile(fd int, b []byte) (int, error) {
	return again(func() (uintptr, syscall.Errno) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, 0, 0)
		return r, e
	})
}

// again makes call until a signal no longer interrupts it (EINTR), and
// returns its result or its error.
func again(call func() (uintptr, syscall.Errno)) (int, error) {
	for {
		r, e := call()
		switch e {
		case 0:
			return int(r), nil
		case syscall.EINTR:
		default:
			return 0, e
		}
	}
}

// RawReads decides once, for a regular file just opened, whether Fstat
// and PreadNoWait may be used on fd (see the package doc: a local
// filesystem, no access time written); yes, it has set O_NOATIME unless
// the mount is noatime. Its own fstatfs and fcntl are ordinary calls: on
// a network filesystem they may wait.
func RawReads(fd int) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return false
	}
	return rawReadable(&st, func() error { return setNoAtime(fd) })
}

// RawWrites decides once, for a regular file just opened for writing,
// whether Guard.WriteFile may be used on fd (see the package doc): on a
// local filesystem not mounted sync. Its fstatfs is an ordinary call.
func RawWrites(fd int) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return false
	}
	return rawWritable(&st)
}
