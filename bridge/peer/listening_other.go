//go:build !linux

package peer

import (
	"fmt"
	"net/netip"
	"runtime"
)

// Listening is not implemented here yet (macOS would need proc_pidinfo's
// socket descriptors): callers find no server.
func Listening(pid int) ([]netip.AddrPort, error) {
	return nil, fmt.Errorf("%w (%s)", ErrNoListeners, runtime.GOOS)
}
