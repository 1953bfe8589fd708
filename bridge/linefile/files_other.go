//go:build !unix

package linefile

import "io/fs"

// linked cannot tell here: the path's own stat decides (see still).
func linked(fs.FileInfo) bool { return false }
