package dbustest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Bus is a private session dbus-daemon started by Start.
type Bus struct {
	// Address is the bus address, suitable as DBUS_SESSION_BUS_ADDRESS.
	Address string
	// Dir is the directory holding the daemon's config file and log.
	Dir string
}

// startTimeout bounds how long Start waits for the daemon to come up.
const startTimeout = 10 * time.Second

// busConfig is a minimal session bus: one socket, EXTERNAL auth, allow
// everything, and deliberately no <servicedir>, so calls to missing names
// fail fast with ServiceUnknown instead of activating real desktop services.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
`

// Start launches a private session dbus-daemon whose config and socket live
// in a temporary directory, waits until it accepts connections, and stops it
// at test cleanup. Without dbus-daemon installed the test is skipped, except
// when CI=true, where a missing daemon is a broken CI image and fails.
func Start(t testing.TB) *Bus {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("dbustest: dbus-daemon not installed: %v", err)
		}
		t.Skipf("dbustest: dbus-daemon not installed: %v", err)
	}

	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	// sun_path is limited to 108 bytes and t.TempDir embeds the test name,
	// so long test names need a shorter directory for the socket.
	if len(sock) > 100 {
		short, err := os.MkdirTemp("", "dbt")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(short) })
		sock = filepath.Join(short, "bus")
	}
	conf := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, busConfig, sock), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "dbus-daemon.log"))
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1")
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("dbustest: starting dbus-daemon: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		// SIGTERM lets the daemon remove its socket; Kill is the fallback.
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	fail := func(format string, args ...any) {
		t.Helper()
		log, _ := os.ReadFile(logf.Name())
		t.Fatalf("dbustest: "+format+"\ndbus-daemon log:\n%s", append(args, log)...)
	}

	// The daemon prints its address once the socket is listening.
	addrCh := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addrCh <- strings.TrimSpace(line)
	}()
	b := &Bus{Dir: dir}
	select {
	case b.Address = <-addrCh:
	case <-exited:
		fail("dbus-daemon exited during startup")
	case <-time.After(startTimeout):
		fail("dbus-daemon printed no address within %v", startTimeout)
	}
	if b.Address == "" {
		fail("dbus-daemon printed an empty address")
	}

	// Belt and braces: prove a full auth + Hello round trip works before
	// handing the bus to the test.
	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := dbus.Connect(b.Address)
		if err == nil {
			conn.Close()
			return b
		}
		if time.Now().After(deadline) {
			fail("cannot connect to %s: %v", b.Address, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Conn returns a new private connection to the bus that is already
// authenticated and has said Hello (so it has a unique name). It is closed at
// test cleanup.
func (b *Bus) Conn(t testing.TB) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(b.Address)
	if err != nil {
		t.Fatalf("dbustest: connect %s: %v", b.Address, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Environ returns os.Environ() with DBUS_SESSION_BUS_ADDRESS pointing at the
// bus, for exec.Cmd.Env. Later entries win in os/exec, so no filtering is
// needed.
func (b *Bus) Environ() []string {
	return append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+b.Address)
}
