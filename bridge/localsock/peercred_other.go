//go:build unix && !linux && !darwin

package localsock

import (
	"fmt"
	"net"
	"runtime"
)

// PeerUID cannot tell here: callers fail closed.
func PeerUID(*net.UnixConn) (int, error) {
	return -1, fmt.Errorf("peer credentials are not read on %s", runtime.GOOS)
}
