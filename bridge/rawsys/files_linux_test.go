//go:build linux

package rawsys

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// newFile makes an empty file in the test's folder, closed when the test
// ends, and returns it with its path.
func newFile(t *testing.T) (*os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

// statfs is fd's filesystem, and whether the test knows its type for a
// local one: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs, F2FS, written out
// from the kernel's include/uapi/linux/magic.h rather than taken from
// the code under test.
func statfs(t *testing.T, fd int) (st unix.Statfs_t, local bool) {
	t.Helper()
	if err := unix.Fstatfs(fd, &st); err != nil {
		t.Fatal(err)
	}
	switch uint32(st.Type) {
	case 0xEF53, 0x01021994, 0x58465342, 0x9123683E, 0x794c7630, 0xF2F52010:
		local = true
	}
	return st, local
}
