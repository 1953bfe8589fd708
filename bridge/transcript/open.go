package transcript

import (
	"os"

	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/regular"
)

// OpenRegular opens path for reading only if it is a regular file, and
// never blocks doing so (a FIFO named *.jsonl must not hang a follower):
// see package regular.
func OpenRegular(path string) (*os.File, error) { return regular.Open(path) }

// DefaultMaxLine is the followers' bound on one line (linefile), which
// the usage report's own reader keeps too.
const DefaultMaxLine = linefile.DefaultMaxLine
