package peer

import (
	"bufio"
	"errors"
	"io"
	"net/netip"
	"strings"
)

// ErrNoListeners is returned where the listening sockets of a process
// cannot be listed (every OS but Linux, for now).
var ErrNoListeners = errors.New("the listening sockets of a process cannot be listed here")

// procListening reads a /proc/net/tcp or tcp6 table for the listening
// sockets (state 0A) whose inode is in inodes.
func procListening(r io.Reader, inodes map[string]bool) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
			continue
		}
		a, port, err := procAddr(f[1])
		if err != nil {
			return nil, err
		}
		out = append(out, netip.AddrPortFrom(a, port))
	}
	return out, sc.Err()
}
