//go:build unix

package localsock

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// serveHello answers each connection ln accepts with "hello".
func serveHello(ln net.Listener) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "hello")
			c.Close()
		}
	}()
}

// listenHello listens at path (Listen) until the test ends and answers
// each connection with "hello".
func listenHello(t *testing.T, path string) {
	t.Helper()
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	serveHello(ln)
}

func dialHello(t *testing.T, path string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, path)
	if err != nil {
		return err
	}
	defer c.Close()
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "hello" {
		t.Errorf("read %q, %v", b, err)
	}
	return nil
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode()
}

func TestListenDialClose(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	path, short := Path(state)
	if short || path != filepath.Join(state, Name) {
		t.Fatalf("Path(%s) = %s, %v", state, path, short)
	}
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(t, state); m.Perm() != 0o700 || !m.IsDir() {
		t.Errorf("state folder %v, want a 0700 folder", m)
	}
	if m := mode(t, path); m.Type() != fs.ModeSocket || m.Perm() != 0o600 {
		t.Errorf("socket %v, want a 0600 socket", m)
	}
	serveHello(ln)
	if err := dialHello(t, path); err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if err := dialHello(t, path); !errors.Is(err, ErrNotRunning) {
		t.Errorf("closed: %v, want ErrNotRunning", err)
	}
}

// A bridge that died leaves its socket file: the next one replaces it,
// and the dead one's Close never removes its successor's.
func TestStaleSocketIsReplaced(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	path := filepath.Join(dir, Name)
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	os.Chmod(path, 0o600)
	if err := dialHello(t, path); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("stale socket: %v, want ErrNotRunning", err)
	}
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	serveHello(second)
	first.Close()
	if err := dialHello(t, path); err != nil {
		t.Errorf("after the replaced listener closed: %v", err)
	}
}

func TestSomethingElseInTheWayIsLeftAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	os.WriteFile(path, []byte("mine"), 0o600)
	if _, err := Listen(path); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Listen over a file: %v, want ErrUnsafe", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Errorf("the file was touched: %q", b)
	}
}

func TestBridgeClosesItsOpenFolder(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	ln, err := Listen(filepath.Join(dir, Name))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if m := mode(t, dir); m.Perm() != 0o700 {
		t.Errorf("folder left %v", m.Perm())
	}
}

// A client sends nothing to a socket it cannot trust.
func TestClientChecksFolderAndFile(t *testing.T) {
	someoneElse := 4242
	tests := []struct {
		name  string
		root  bool // needs root to give a file away
		spoil func(t *testing.T, dir, path string)
		want  error
	}{
		{"folder open to others", false, func(t *testing.T, dir, _ string) { os.Chmod(dir, 0o755) }, ErrUnsafe},
		{"folder readable by the group", false, func(t *testing.T, dir, _ string) { os.Chmod(dir, 0o750) }, ErrUnsafe},
		{"socket open to others", false, func(t *testing.T, _, path string) { os.Chmod(path, 0o666) }, ErrUnsafe},
		{"socket of another user", true, func(t *testing.T, _, path string) { os.Lchown(path, someoneElse, someoneElse) }, ErrUnsafe},
		{"folder of another user", true, func(t *testing.T, dir, _ string) { os.Chown(dir, someoneElse, someoneElse) }, ErrUnsafe},
		{"a link in the socket's place", false, func(t *testing.T, dir, path string) {
			os.Rename(path, filepath.Join(dir, "real"))
			os.Symlink(filepath.Join(dir, "real"), path)
		}, ErrUnsafe},
		{"a file in the socket's place", false, func(t *testing.T, _, path string) {
			os.Remove(path)
			os.WriteFile(path, nil, 0o600)
		}, ErrUnsafe},
		{"no socket", false, func(t *testing.T, _, path string) { os.Remove(path) }, ErrNotRunning},
		{"no folder", false, func(t *testing.T, dir, _ string) { os.RemoveAll(dir) }, ErrNotRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Getuid() != 0 {
				t.Skip("giving a file away needs root")
			}
			dir := filepath.Join(t.TempDir(), "state")
			path := filepath.Join(dir, Name)
			listenHello(t, path)
			if err := dialHello(t, path); err != nil {
				t.Fatalf("before: %v", err)
			}
			tt.spoil(t, dir, path)
			if err := dialHello(t, path); !errors.Is(err, tt.want) {
				t.Errorf("Dial: %v, want %v", err, tt.want)
			}
		})
	}
}

// MaxPath is sun_path less its NUL: 104 on macOS (xnu bsd/sys/un.h,
// "char sun_path[104]"), 108 on Linux (unix(7), "char sun_path[108]").
// The kernel takes a path of that length and refuses a longer one.
func TestMaxPathIsTheKernels(t *testing.T) {
	sunPath := map[string]int{"darwin": 104, "linux": 108}
	if want, ok := sunPath[runtime.GOOS]; ok && MaxPath() != want-1 {
		t.Errorf("MaxPath() = %d, want %d", MaxPath(), want-1)
	}
	dir := t.TempDir()
	fits := filepath.Join(dir, strings.Repeat("s", MaxPath()-len(dir)-1))
	if len(fits) != MaxPath() {
		t.Fatalf("built a path of %d", len(fits))
	}
	ln, err := net.Listen("unix", fits)
	if err != nil {
		t.Fatalf("a path of %d bytes: %v", len(fits), err)
	}
	ln.Close()
	if ln, err := net.Listen("unix", fits+"s"); err == nil {
		ln.Close()
		t.Errorf("a path of %d bytes was taken", len(fits)+1)
	}
}

// A state folder too deep for a socket path gets a short one of its own
// in a per-user folder, with the same checks.
func TestTooDeepFallsBackToAShortPath(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60), "state")
	path, short := pathIn(root, deep)
	if !short || len(path) > MaxPath() || filepath.Dir(filepath.Dir(path)) != root {
		t.Fatalf("pathIn(%s) = %s, %v", deep, path, short)
	}
	if again, _ := pathIn(root, deep); again != path {
		t.Errorf("not stable: %s, then %s", path, again)
	}
	if other, _ := pathIn(root, deep+"2"); other == path {
		t.Errorf("two state folders share %s", path)
	}
	listenHello(t, path)
	if m := mode(t, filepath.Dir(path)); m.Perm() != 0o700 {
		t.Errorf("per-user folder %v", m.Perm())
	}
	if err := dialHello(t, path); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		return
	}
	// Another user made the per-user folder first (and put a socket in
	// it): neither side uses it.
	os.Chown(filepath.Dir(path), 4242, 4242)
	if err := dialHello(t, path); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Dial in another user's folder: %v", err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Listen in another user's folder: %v", err)
	}
}
