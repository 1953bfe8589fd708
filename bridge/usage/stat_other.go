//go:build !unix

package usage

import "io/fs"

// statOf is what a listing says of a file (no inode here: size and time).
func statOf(info fs.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
}
