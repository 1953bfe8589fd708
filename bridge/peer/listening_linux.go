package peer

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Listening lists the TCP ends process pid listens on: its descriptors'
// socket inodes (/proc/<pid>/fd, readable for one's own processes) found
// among the listening rows of /proc/<pid>/net/tcp and tcp6.
func Listening(pid int) ([]netip.AddrPort, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	fds, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return nil, fmt.Errorf("listening sockets of %d: %w", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	var out []netip.AddrPort
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(dir, "net", name))
		if err != nil {
			continue // no IPv6
		}
		ends, err := procListening(f, inodes)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("listening sockets of %d: %w", pid, err)
		}
		out = append(out, ends...)
	}
	return out, nil
}
