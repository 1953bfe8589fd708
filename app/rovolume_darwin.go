package main

import "golang.org/x/sys/unix"

// readOnlyVolume reports whether path is on a volume mounted read-only
// (statfs's f_flags has MNT_RDONLY, <sys/mount.h>): a disk image opened
// from Downloads is one.
func readOnlyVolume(path string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false, err
	}
	return st.Flags&unix.MNT_RDONLY != 0, nil
}
