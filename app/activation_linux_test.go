package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/testkit/activationtest"
)

// activated starts `serve` the way the login item's socket unit does:
// systemd's implementation holds listen (a TCP address or a socket path)
// and execs the bridge on the first connection, handing it the socket
// (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES). --addr names a port the bridge
// must not use: the handed socket wins.
func activated(t *testing.T, home, listen string) (cmd *exec.Cmd, exited <-chan error, stderr *strings.Builder) {
	t.Helper()
	cmd = exec.Command(activationtest.Tool(t), "-l", listen, "--fdname=conductor-bridge.socket",
		"-E", "HOME="+home, "-E", "PATH", "-E", "CLAUDE_CONFIG_DIR=", "-E", "XDG_STATE_HOME=",
		"-E", "DBUS_SESSION_BUS_ADDRESS=disabled:",
		binary, "serve", "--headless", "--if-not-running", "--home", home, "--addr", "127.0.0.1:1")
	pipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// systemd-socket-activate says it listens before it waits for a connection.
	sc := bufio.NewScanner(pipe)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "Listening on") {
	}
	stderr = &strings.Builder{}
	done, finished := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(finished)
		io.Copy(stderr, pipe)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-finished
	})
	return cmd, done, stderr
}

// The login item's socket unit holds the port while the bridge is not
// running, so another user cannot take it; the first connection starts
// the bridge on that very socket, and the CLI then finds it by its
// socket file.
func TestServeTakesTheSocketSystemdHolds(t *testing.T) {
	home := t.TempDir()
	dir, _ := plainProject(t, home, "shop")
	port, _ := freePort()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd, exited, stderr := activated(t, home, addr)
	if said := tryImpostor(t, addr); !strings.Contains(said, "address already in use") {
		t.Errorf("another user on the held port: %q, want it refused", said)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	began := time.Now()
	// The first connection starts the bridge: askHealth waits as long as ctx
	// allows, where tcpHealth (the probe for a running bridge) gives up after
	// 2 s, and the bridge's start takes seconds on a busy machine.
	h, err := askHealth(ctx, addr)
	t.Logf("the first connection was answered after %v (logged, not asserted)", time.Since(began))
	if err != nil || h.Service != "conductor-bridge" {
		t.Fatalf("health on the held port: %+v %v\n%s", h, err, stderr.String())
	}
	p := &bridgeProc{t: t, cmd: cmd, base: "http://" + addr, home: home}
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir })
	if ri, err := readRunFile(p.stateDir()); err != nil || ri.Addr != addr || ri.PID != cmd.Process.Pid {
		t.Errorf("bridge.json: %+v %v, want %s and pid %d", ri, err, addr, cmd.Process.Pid)
	}
	if out, err := runCLI(t, "workspaces", "--home", home); err != nil || !strings.Contains(out, dir) || strings.Contains(out, "scanning directly") {
		t.Errorf("workspaces: %v\n%s", err, out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	<-exited
	if !strings.Contains(stderr.String(), "on the socket systemd holds for it") {
		t.Errorf("the bridge did not say it took systemd's socket:\n%s", stderr.String())
	}
}

// A handed socket the bridge will not serve on (here a socket file, not a
// TCP port; an edited unit) is refused, and said so.
func TestServeRefusesAHandedSocketItCannotServeOn(t *testing.T) {
	home := t.TempDir()
	sock := filepath.Join(t.TempDir(), "not-tcp.sock")
	_, exited, stderr := activated(t, home, sock)
	c, err := (&net.Dialer{}).Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("serve is still running on a socket it should refuse:\n%s", stderr.String())
	}
	if err == nil || !strings.Contains(stderr.String(), "want one TCP listener") {
		t.Errorf("serve on a handed socket file: %v\n%s", err, stderr.String())
	}
}
