//go:build unix && !linux && !darwin

package localsock

import (
	"fmt"
	"runtime"
)

// peerCred cannot tell here: callers fail closed.
func peerCred(int) (int, error) {
	return -1, fmt.Errorf("peer credentials are not read on %s", runtime.GOOS)
}
