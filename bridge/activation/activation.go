// Package activation takes the listening socket a service manager holds
// for the bridge, so that the bridge's port is never free while the login
// item is installed: launchd (a Sockets entry in the LaunchAgent) and
// systemd (a .socket unit) bind the port at login, keep it between runs,
// start the bridge on the first connection, and hand it the socket. No
// other account can listen there in between.
package activation

import (
	"errors"
	"fmt"
	"net"
)

// ErrNone: this process was not handed a socket; it binds its own.
var ErrNone = errors.New("no socket handed over")

// LaunchdName is the key of the LaunchAgent's Sockets entry
// (packaging/units/launchd.plist.tmpl).
const LaunchdName = "Listeners"

// Listener returns the TCP listener a service manager handed this
// process, and which manager it was ("systemd", "launchd"); ErrNone when
// there is none. A handed socket that is not exactly one listening TCP
// socket is an error: the unit was edited into something the bridge will
// not serve on.
func Listener() (net.Listener, string, error) {
	files, err := systemdFiles(osEnv{})
	who := "systemd"
	if errors.Is(err, ErrNone) {
		files, err = launchdFiles(LaunchdName)
		who = "launchd"
	}
	if err != nil {
		return nil, "", err
	}
	ln, err := tcpListener(files)
	if err != nil {
		return nil, "", fmt.Errorf("the socket %s handed over: %w", who, err)
	}
	return ln, who, nil
}

// tcpListener turns the handed descriptors into the one TCP listener
// they must be, closing them all.
func tcpListener(files []*fileDesc) (net.Listener, error) {
	var lns []net.Listener
	var errs []error
	for _, f := range files {
		ln, err := f.listener()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lns = append(lns, ln)
	}
	if len(errs) == 0 && len(lns) == 1 {
		if _, ok := lns[0].Addr().(*net.TCPAddr); ok {
			return lns[0], nil
		}
	}
	for _, ln := range lns {
		ln.Close()
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, fmt.Errorf("%d sockets, want one TCP listener", len(files))
}
