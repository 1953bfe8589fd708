//go:build unix && !(linux && (amd64 || arm64))

package rawsys

import "syscall"

// Read is read(2).
func Read(fd int, b []byte) (int, error) { return syscall.Read(fd, b) }

// Write is write(2).
func Write(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }

// Fstat is fstat(2).
func Fstat(fd int, st *syscall.Stat_t) error { return syscall.Fstat(fd, st) }

// PreadNoWait is pread(2), which may wait.
func PreadNoWait(fd int, b []byte, off int64) (int, error) { return syscall.Pread(fd, b, off) }

// RawReads accepts no file here: there are no raw calls.
func RawReads(int) bool { return false }
