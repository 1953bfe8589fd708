// Package localsock is the bridge's Unix domain socket: where it is, how
// the bridge makes it, and how a client (the CLI, the hook relay) checks
// it before it sends a secret there.
//
// 127.0.0.1 is a poor place for secrets: any account on the machine may
// listen on the bridge's port while the bridge is down, and a client that
// dials the port cannot tell who answers. A socket file in the 0700 state
// folder can: only its owner can reach it, so its permissions prove both
// ends (docker's and tailscaled's sockets work the same way). The bridge
// serves the same API on it; browsers, which cannot dial a socket file,
// keep to TCP.
//
// A client refuses the socket unless the folder is the user's own and
// closed to others (0700), and the file is a socket of the user's, closed
// to others (0600); once connected it asks the kernel who holds the other
// end (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS) and hangs up on
// anyone but the user. The bridge likewise drops a connection from anyone
// else.
package localsock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Name is the socket's file name in the state folder.
const Name = "bridge.sock"

// ErrNotRunning: nothing listens on the socket (no file, or no one
// accepting). Hooks stay quiet; the CLI says there is no bridge.
var ErrNotRunning = errors.New("Conductor Bridge is not running")

// ErrUnsafe: the socket or its folder is not the user's alone, so nothing
// is sent there.
var ErrUnsafe = errors.New("not safe to use")

// MaxPath is the longest socket path the kernel takes: sun_path less its
// terminating NUL. sun_path is char[104] on macOS (xnu bsd/sys/un.h) and
// char[108] on Linux (unix(7), include/uapi/linux/un.h); Go's syscall
// package declares RawSockaddrUnix from those headers, and refuses a path
// that leaves no room for the NUL (syscall_bsd.go, syscall_linux.go).
func MaxPath() int { return len(syscall.RawSockaddrUnix{}.Path) - 1 }

// fallbackRoot holds the per-user folders for state folders too deep for
// a socket path. It is fixed, not $TMPDIR: the bridge started at login and
// a hook started by an agent must find the same path whatever their
// environment says.
const fallbackRoot = "/tmp"

// Path is where the bridge of stateDir listens: <stateDir>/bridge.sock,
// or when that path is too long for the kernel, a short one in a per-user
// folder, /tmp/conductor-bridge-<uid>/<hash of stateDir>.sock, which gets
// the same checks. The bridge and its clients work it out alike.
func Path(stateDir string) (path string, short bool) { return pathIn(fallbackRoot, stateDir) }

func pathIn(root, stateDir string) (path string, short bool) {
	if abs, err := filepath.Abs(stateDir); err == nil {
		stateDir = abs
	}
	p := filepath.Join(stateDir, Name)
	if len(p) <= MaxPath() {
		return p, false
	}
	sum := sha256.Sum256([]byte(stateDir))
	dir := filepath.Join(root, "conductor-bridge-"+strconv.Itoa(os.Getuid()))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock"), true
}

func unsafe(path, why string, args ...any) error {
	return fmt.Errorf("%w: %s %s", ErrUnsafe, path, fmt.Sprintf(why, args...))
}
