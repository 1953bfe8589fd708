//go:build !linux

package linefile

import (
	"io/fs"
	"os"
)

// Here a held record's calls are the ordinary ones (raw_linux.go).

type rawRecord struct{}

func rawRecordOf(*os.File) rawRecord { return rawRecord{} }

// stat is the held file's stat.
func (h *heldFile) stat() (fs.FileInfo, error) { return h.f.Stat() }

// readAt is f.ReadAt.
func (r *Reader) readAt(f *os.File, b []byte, off int64) (int, error) { return f.ReadAt(b, off) }

// readOnce is readOnce of the held file.
func (h *heldFile) readOnce(buf []byte, off int64) (int, error) { return readOnce(h.f, buf, off) }

// sameFile is os.SameFile.
func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
