//go:build !linux && !darwin

package peer

import (
	"fmt"
	"net/netip"
	"runtime"
)

// lookup knows no socket table here: callers fail closed.
func lookup(local, remote netip.AddrPort) (int, error) {
	return -1, fmt.Errorf("%w: no socket table on %s", ErrUnknown, runtime.GOOS)
}
