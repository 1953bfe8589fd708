package main

import "golang.org/x/sys/unix"

// readOnlyVolume reports whether path is on a file system mounted
// read-only (statfs's f_flags has ST_RDONLY).
func readOnlyVolume(path string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false, err
	}
	return st.Flags&unix.ST_RDONLY != 0, nil
}
