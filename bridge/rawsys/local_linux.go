//go:build linux

package rawsys

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// localFS reports whether files of a filesystem of this type (statfs's
// f_type) are served by this machine's kernel from its memory and its own
// disks: never a server's, over a network or from a process (FUSE, NFS,
// SMB, 9p, Ceph… are not here, and nothing unknown is). The numbers are
// golang.org/x/sys/unix's, which it takes from the kernel's
// include/uapi/linux/magic.h.
//
// Overlayfs is here for the containers it is the root of: a file written
// there is in its upper layer, which must be a local filesystem (the
// kernel's overlayfs documentation: the upper layer needs trusted.*
// extended attributes and d_type, "so NFS is not suitable"). A file only
// in a lower layer on a network filesystem would be read from there; no
// record being written is.
func localFS(fsType uint32) bool {
	switch fsType {
	case unix.EXT4_SUPER_MAGIC, // ext2 and ext3 share it
		unix.XFS_SUPER_MAGIC,
		unix.BTRFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC,
		unix.TMPFS_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC:
		return true
	}
	return false
}

// rawReadable reports whether the file of a filesystem st describes may
// be read raw: on a local filesystem (localFS), and either mounted
// noatime or opened O_NOATIME (noAtime, which it tries only then).
func rawReadable(st *unix.Statfs_t, noAtime func() error) bool {
	if !localFS(uint32(st.Type)) { // a 32-bit magic number, whatever the field's type
		return false
	}
	return st.Flags&unix.ST_NOATIME != 0 || noAtime() == nil
}

// rawWritable reports whether a file of a filesystem st describes may be
// written raw: on a local filesystem (localFS), and not mounted sync,
// where every write waits for the disk. (A file made synchronous alone,
// chattr +S, is not looked for: its first slow write trips the Guard.)
func rawWritable(st *unix.Statfs_t) bool {
	return localFS(uint32(st.Type)) && st.Flags&unix.ST_SYNCHRONOUS == 0
}

// setNoAtime sets O_NOATIME on fd (only the file's owner may).
func setNoAtime(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("get file flags: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_NOATIME); err != nil {
		return fmt.Errorf("set O_NOATIME: %w", err)
	}
	return nil
}
