//go:build !unix

package localsock

import (
	"context"
	"errors"
	"net"
	"runtime"
)

var errUnsupported = errors.New("no local socket on " + runtime.GOOS)

// Listener is never made here.
type Listener struct{ net.Listener }

// Listen fails: the bridge serves browsers only.
func Listen(string) (*Listener, error) { return nil, errUnsupported }

// Path is unused here.
func (l *Listener) Path() string { return "" }

// Dial fails: clients find no bridge.
func Dial(context.Context, string) (net.Conn, error) { return nil, ErrNotRunning }
