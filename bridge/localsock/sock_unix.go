//go:build unix

package localsock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// owner returns the uid that owns info's file.
func owner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// checkDir makes sure dir is a folder of the user's that no one else may
// enter. It follows a symbolic link: what counts is the folder used.
func checkDir(dir string) error {
	return checkOwn(dir, os.Stat, "a folder", fs.FileInfo.IsDir, 0o700)
}

// checkSocket makes sure path is a socket of the user's, closed to others.
func checkSocket(path string) error {
	isSocket := func(info fs.FileInfo) bool { return info.Mode().Type() == fs.ModeSocket }
	return checkOwn(path, os.Lstat, "a socket", isSocket, 0o600)
}

// checkOwn makes sure path, read with stat, is kind (is tells), is the
// user's, and is closed to everyone else; mode is what the error asks
// for when it is not.
func checkOwn(path string, stat func(string) (fs.FileInfo, error), kind string, is func(fs.FileInfo) bool, mode fs.FileMode) error {
	info, err := stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (no %s)", ErrNotRunning, path)
	}
	if err != nil {
		return err
	}
	switch {
	case !is(info):
		return unsafe(path, "is not %s", kind)
	case owner(info) != os.Getuid():
		return unsafe(path, "belongs to uid %d, not to you (uid %d)", owner(info), os.Getuid())
	case info.Mode().Perm()&0o077 != 0:
		return unsafe(path, "is open to other users (mode %04o; it must be %04o)", info.Mode().Perm(), mode)
	}
	return nil
}

// PeerUID returns the uid of the process at the other end of c, as the
// kernel recorded it when the connection was made.
func PeerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, credErr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerCred(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, credErr
}

// Dial connects to the bridge's socket at path after checking the folder
// and the file, and then the peer itself: a connection whose other end is
// not the user is closed before anything is sent.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (no %s)", ErrNotRunning, path)
	}
	if err := checkDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := checkSocket(path); err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w (nothing accepts on %s)", ErrNotRunning, path)
		}
		return nil, err
	}
	uid, err := PeerUID(c.(*net.UnixConn))
	if err != nil || uid != os.Getuid() {
		c.Close()
		if err == nil {
			err = fmt.Errorf("the other end is uid %d", uid)
		}
		return nil, unsafe(path, "%v", err)
	}
	return c, nil
}

// A Listener is the bridge's socket. It accepts the user's connections
// only, and on Close removes its file (if the file is still its own).
type Listener struct {
	*net.UnixListener
	path string
	file fs.FileInfo // the socket file as made, to recognise it at Close
}

// Listen makes the bridge's socket at path, 0600 in a 0700 folder of the
// user's (a missing folder is made, one of the user's left open to others
// is closed). The socket is bound under a temporary name, closed to
// others, and renamed into place: no one ever sees it open, and a socket
// left by a bridge that died is replaced in one step. Call it only while
// holding the state folder's lock, so that no other bridge owns it.
func Listen(path string) (*Listener, error) {
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("local socket: %w", err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("local socket: %w", err)
	}
	if !info.IsDir() || owner(info) != os.Getuid() {
		return nil, unsafe(dir, "is not a folder of yours (uid %d); remove it or choose another --state-dir", owner(info))
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("local socket: close %s to other users: %w", dir, err)
		}
	}
	if old, err := os.Lstat(path); err == nil && old.Mode().Type() != fs.ModeSocket {
		return nil, unsafe(path, "is in the way and is not a socket; remove it")
	}
	// As long as the final name, so that if one fits so does the other.
	last := byte('~')
	if path[len(path)-1] == last {
		last = '!'
	}
	tmp := path[:len(path)-1] + string(last)
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("local socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("local socket: %w", err)
	}
	ln.SetUnlinkOnClose(false) // the file moves: Close removes it by its final name
	fail := func(err error) (*Listener, error) {
		ln.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("local socket: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(err)
	}
	made, err := os.Lstat(tmp)
	if err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	return &Listener{UnixListener: ln, path: path, file: made}, nil
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Accept returns the next connection from the user. A connection from
// anyone else (who would have had to get past the folder's permissions)
// is closed unanswered.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if uid, err := PeerUID(c); err == nil && uid == os.Getuid() {
			return c, nil
		}
		c.Close()
	}
}

// Close stops listening and removes the socket file, unless another has
// taken its place since.
func (l *Listener) Close() error {
	if info, err := os.Lstat(l.path); err == nil && os.SameFile(info, l.file) {
		os.Remove(l.path)
	}
	return l.UnixListener.Close()
}
