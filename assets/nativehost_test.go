package assets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/nativehost"
)

// testHostEnv, in the environment Chromium gives the hosts it starts,
// makes this test binary the side panel's native host for the fake bridge
// at its value. It runs the real host (nativehost.Host, its framing and its
// check of who listens on the port) with that address and a stand-in
// credential: the fake bridge has no state to read one from.
const testHostEnv = "CB_TEST_HOST_BRIDGE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(testHostEnv); addr != "" && len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "chrome-extension://") {
		os.Exit(hostForTests(addr, os.Args[1]))
	}
	os.Exit(m.Run())
}

func hostForTests(addr, origin string) int {
	h := &nativehost.Host{
		Origin: origin, Allowed: []string{"chrome-extension://" + ExtensionID}, UID: os.Getuid(),
		Bridge:     func() (string, error) { return addr, nil },
		Credential: func() (string, error) { return "t", nil },
		Errors:     os.Stderr,
	}
	if err := h.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// installTestHost writes the host manifest naming this test binary into
// profile/NativeMessagingHosts, where Chromium run with
// --user-data-dir=profile looks for it (Chromium's
// DIR_USER_NATIVE_MESSAGING: the user data dir's NativeMessagingHosts).
func installTestHost(t *testing.T, profile string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := nativehost.NewManifest(self, []string{"chrome-extension://" + ExtensionID})
	if _, err := nativehost.WriteManifest(filepath.Join(profile, "NativeMessagingHosts", nativehost.HostName+".json"), m); err != nil {
		t.Fatal(err)
	}
}
