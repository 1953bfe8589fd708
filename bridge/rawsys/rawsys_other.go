//go:build unix && !(linux && (amd64 || arm64))

package rawsys

import "syscall"

// Read is read(2).
func Read(fd int, b []byte) (int, error) { return syscall.Read(fd, b) }

// Write is write(2).
func Write(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }

// Fstat is fstat(2).
func Fstat(fd int, st *syscall.Stat_t) error { return syscall.Fstat(fd, st) }

// preadNoWait is pread(2), which may wait.
func preadNoWait(fd int, b []byte, off int64) (int, error) { return syscall.Pread(fd, b, off) }

// writeFile is write(2).
func writeFile(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }

// RawWrites accepts no file here: there are no raw calls.
func RawWrites(int) bool { return false }

// RawReads accepts no file here: there are no raw calls.
func RawReads(int) bool { return false }
