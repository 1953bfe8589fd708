//go:build !unix

package activation

import (
	"errors"
	"net"
)

type fileDesc struct {
	fd   int
	name string
}

func (f *fileDesc) listener() (net.Listener, error) {
	return nil, errors.New("no inherited sockets on this system")
}
