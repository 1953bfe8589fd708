package codextest

import (
	"context"
	"testing"
)

// StartAppThread starts `codex app-server` for o (StartAppServer) and a
// thread in dir with an approval policy and sandbox (StartThread), failing
// t if either does not start. The server is closed when the test ends.
func StartAppThread(ctx context.Context, t testing.TB, o Options, dir, approval, sandbox string) (*AppServer, string) {
	t.Helper()
	s, err := StartAppServer(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	thread, err := s.StartThread(ctx, dir, approval, sandbox)
	if err != nil {
		t.Fatal(err)
	}
	return s, thread
}
