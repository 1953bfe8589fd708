package localsock

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"conductorbridge/testkit/usertest"
)

// The peer checks, tried with a real second OS user: its listener passed
// off as the bridge's socket gets nothing, and its connection to the
// bridge's socket is hung up on.

const otherPrefix = "OTHER "

// TestOtherUserProcess is the other user, run by the tests below.
func TestOtherUserProcess(t *testing.T) {
	role, path, ok := strings.Cut(os.Getenv("CB_LOCALSOCK_OTHER"), ":")
	if !ok {
		t.Skip("run by the other-user tests")
	}
	var c net.Conn
	switch role {
	case "listen":
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, 0o777)
		fmt.Println(otherPrefix + "READY")
		if c, err = ln.Accept(); err != nil {
			t.Fatal(err)
		}
		// A squatter answers at once, as a bridge would.
		io.WriteString(c, "squatter")
		c.(*net.UnixConn).CloseWrite()
	case "dial":
		var err error
		if c, err = net.Dial("unix", path); err != nil {
			fmt.Println(otherPrefix + "ERR " + err.Error())
			return
		}
	}
	b, _ := io.ReadAll(c)
	fmt.Printf(otherPrefix+"GOT %q\n", b)
}

// runOther starts this test binary as user cred in role, and returns its
// reports as they come.
func runOther(t *testing.T, cred *syscall.Credential, role, path string) (lines <-chan string, wait func()) {
	t.Helper()
	cmd := usertest.Process(t, cred, "TestOtherUserProcess", "CB_LOCALSOCK_OTHER="+role+":"+path)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 8)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), otherPrefix); ok {
				ch <- line
			}
		}
	}()
	return ch, func() { cmd.Wait() }
}

// reachable makes a folder every user may enter.
func reachable(t *testing.T, perm os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cb-localsock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, perm)
	return dir
}

func TestAnotherUsersListenerGetsNothing(t *testing.T) {
	other := usertest.Second(t)
	open := reachable(t, 0o777)
	theirs := filepath.Join(open, "theirs.sock")
	lines, wait := runOther(t, other, "listen", theirs)
	if l := <-lines; l != "READY" {
		t.Fatalf("other user: %q", l)
	}
	// Their socket, given to us and closed to others, in our own folder:
	// only the peer's credentials can still tell it apart.
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	path := filepath.Join(dir, Name)
	if err := os.Chown(theirs, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	os.Chmod(theirs, 0o600)
	if err := os.Rename(theirs, path); err != nil {
		t.Fatal(err)
	}
	err := dialHello(t, path)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("uid %d", other.Uid)) {
		t.Errorf("Dial to another user's listener: %v", err)
	}
	if got := <-lines; got != `GOT ""` {
		t.Errorf("the other user's listener %s", got)
	}
	wait()
}

func TestAnotherUsersConnectionIsHungUp(t *testing.T) {
	other := usertest.Second(t)
	dir := filepath.Join(reachable(t, 0o755), "state")
	path := filepath.Join(dir, Name)
	listenHello(t, path)
	// Open the way in, as a careless chmod would.
	os.Chmod(dir, 0o755)
	os.Chmod(path, 0o666)
	lines, wait := runOther(t, other, "dial", path)
	if got := <-lines; got != `GOT ""` {
		t.Errorf("another user's connection: %s, want it closed unanswered", got)
	}
	wait()
	os.Chmod(dir, 0o700)
	os.Chmod(path, 0o600)
	if err := dialHello(t, path); err != nil {
		t.Errorf("the user after it: %v", err)
	}
}
