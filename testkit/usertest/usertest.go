// Package usertest gives a test a second OS user of this machine, to try
// what another account can and cannot do to the user's bridge. Creating
// one needs root and useradd: elsewhere the test is skipped, except under
// CI=true, where it fails (CI runs as root with useradd installed).
package usertest

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Second creates a throwaway OS user, removed when the test ends, and
// returns the credential to run a process as that user.
func Second(t testing.TB) *syscall.Credential {
	t.Helper()
	skip := func(why string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot create a second OS user under CI: "+why, args...)
		}
		t.Skipf("cannot create a second OS user: "+why, args...)
	}
	if os.Getuid() != 0 {
		skip("not root")
	}
	useradd, err := exec.LookPath("useradd")
	if err != nil {
		skip("%v", err)
	}
	// Unique per process and per call: other tests, and other test
	// binaries on this machine, create theirs at the same time.
	var r [3]byte
	rand.Read(r[:])
	name := fmt.Sprintf("cb%d%x", os.Getpid()%1000000, r)
	if out, err := exec.Command(useradd, "--system", "--no-create-home", "--user-group",
		"--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		skip("useradd: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// Runnable copies the program at path into a folder any user may enter,
// so that the second user can run it, and returns the copy's path.
func Runnable(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(shared(t), filepath.Base(path))
	if err := os.WriteFile(out, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// Home makes a home folder (0700) owned by the user of cred, in a folder
// any user may enter.
func Home(t testing.TB, cred *syscall.Credential) string {
	t.Helper()
	home := filepath.Join(shared(t), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	Chown(t, home, cred)
	return home
}

// Chown gives root and everything in it to the user of cred.
func Chown(t testing.TB, root string, cred *syscall.Credential) {
	t.Helper()
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// shared is a new folder (0755) any user may enter, removed when the test
// ends. (t.TempDir's are 0700.)
func shared(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cb-other-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Process is a command that runs one test of this test binary, test (a
// TestXxxProcess helper that env tells what to do), as the user of cred
// (nil: as ourselves), from a copy that user may run, with env and a bare
// PATH, nothing else of ours. The caller starts it and reads its output.
func Process(t testing.TB, cred *syscall.Credential, test string, env ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := Runnable(t, self)
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v")
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	return cmd
}
