//go:build linux

package rawsys

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Only local filesystems are read raw. The numbers are written here from
// the kernel's include/uapi/linux/magic.h (XFS's "XFSB" and overlayfs's
// are in its newer copies; golang.org/x/sys/unix generates its constants
// from that header), not taken from the code's constants.
func TestOnlyLocalFilesystemsAreReadRaw(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fsType uint32
		local  bool
	}{
		{"ext2/3/4", 0xEF53, true},
		{"xfs", 0x58465342, true},
		{"btrfs", 0x9123683E, true},
		{"f2fs", 0xF2F52010, true},
		{"tmpfs", 0x01021994, true},
		{"overlayfs", 0x794c7630, true},
		{"nfs", 0x6969, false},
		{"fuse", 0x65735546, false},
		{"cifs", 0xFF534D42, false},
		{"smb2", 0xFE534D42, false},
		{"smb", 0x517B, false},
		{"9p", 0x01021997, false},
		{"ceph", 0x00C36400, false},
		{"afs", 0x5346414F, false},
		{"coda", 0x73757245, false},
		{"unknown", 0x12345678, false},
	} {
		if got := localFS(tc.fsType); got != tc.local {
			t.Errorf("%s (%#x): local %v, want %v", tc.name, tc.fsType, got, tc.local)
		}
	}
}

// The decision on a real file's statfs: read raw on the test's own
// folder's filesystem (the local ones it runs on) with O_NOATIME set; the
// same with another filesystem's type, or with O_NOATIME refused on a
// mount that writes access times, not; a noatime mount needs no flag.
func TestRawReadableDecidesFromTheFilesystem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0) // as bridge/regular opens
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	st, local := statfs(t, fd)
	if !local {
		t.Skipf("the temporary folder is on filesystem %#x, not one this test knows local", st.Type)
	}
	if !RawReads(fd) {
		t.Fatalf("a file on local filesystem %#x is not read raw", st.Type)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Flags&unix.ST_NOATIME == 0 && fl&unix.O_NOATIME == 0 {
		t.Error("read raw without O_NOATIME on a mount that writes access times")
	}
	if fl&unix.O_NONBLOCK == 0 {
		t.Error("O_NONBLOCK is gone") // F_SETFL sets them all
	}

	refused := func() error { return errors.New("EPERM") }
	allowed := func() error { return nil }
	network := st
	network.Type = 0x6969 // NFS
	atime, noatime := st, st
	atime.Flags &^= unix.ST_NOATIME
	noatime.Flags |= unix.ST_NOATIME
	for _, tc := range []struct {
		name    string
		st      *unix.Statfs_t
		noAtime func() error
		want    bool
	}{
		{"local, O_NOATIME set", &atime, allowed, true},
		{"local, O_NOATIME refused", &atime, refused, false},
		{"local, noatime mount", &noatime, refused, true},
		{"network", &network, allowed, false},
	} {
		if got := rawReadable(tc.st, tc.noAtime); got != tc.want {
			t.Errorf("%s: raw %v, want %v", tc.name, got, tc.want)
		}
	}
}
