//go:build !unix

package transcript

import "io/fs"

// linked cannot tell here: the path's own stat decides (see still).
func linked(fs.FileInfo) bool { return false }
