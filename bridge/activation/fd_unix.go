//go:build unix

package activation

import (
	"fmt"
	"net"
	"os"
)

// fileDesc is one descriptor a service manager handed over.
type fileDesc struct {
	fd   int
	name string
}

// listener makes a net.Listener of the descriptor and closes the
// descriptor itself: the listener holds a close-on-exec duplicate, so the
// agents and git the bridge runs never inherit the port (sd_listen_fds(3)
// marks them close-on-exec for the same reason).
func (f *fileDesc) listener() (net.Listener, error) {
	file := os.NewFile(uintptr(f.fd), f.name)
	defer file.Close()
	ln, err := net.FileListener(file)
	if err != nil {
		return nil, fmt.Errorf("descriptor %d (%s): %w", f.fd, f.name, err)
	}
	return ln, nil
}
