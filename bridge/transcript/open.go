package transcript

import (
	"io/fs"
	"os"

	"conductorbridge/bridge/regular"
)

// OpenRegular opens path for reading only if it is a regular file, and
// never blocks doing so (a FIFO named *.jsonl must not hang a follower):
// see package regular.
func OpenRegular(path string) (*os.File, error) { return regular.Open(path) }

// openRegular is OpenRegular with the file's stat, taken once.
func openRegular(path string) (*os.File, fs.FileInfo, error) { return regular.OpenInfo(path) }
