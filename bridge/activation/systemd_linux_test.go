package activation

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"conductorbridge/testkit/activationtest"
)

// TestHandedOverChild is what systemd starts in the test below: it takes
// the socket and answers the connection that started it.
func TestHandedOverChild(t *testing.T) {
	if os.Getenv("CB_ACTIVATION_CHILD") == "" {
		t.Skip("started by TestSystemdHandsOverItsSocket")
	}
	ln, who, err := Listener()
	if err != nil {
		t.Fatal(err)
	}
	left := os.Getenv("LISTEN_PID") + os.Getenv("LISTEN_FDS") + os.Getenv("LISTEN_FDNAMES")
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "%s %s env-left=%q", who, ln.Addr(), left)
	c.Close()
}

// systemd's own implementation of the protocol hands a listening socket
// to a child it execs on the first connection; the child takes it, and
// leaves nothing of the protocol in its environment.
func TestSystemdHandsOverItsSocket(t *testing.T) {
	tool := activationtest.Tool(t)
	port := freePort(t)
	self, _ := os.Executable()
	cmd := exec.Command(tool, "-l", "127.0.0.1:"+port, "--fdname=conductor-bridge.socket",
		"-E", "CB_ACTIVATION_CHILD=1", self, "-test.run=^TestHandedOverChild$")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "Listening on") {
	}
	go io.Copy(io.Discard, stderr)
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := io.ReadAll(c)
	if want := "systemd 127.0.0.1:" + port + ` env-left=""`; string(b) != want {
		t.Errorf("the child said %q (%v), want %q", b, err, want)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
