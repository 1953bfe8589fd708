package opencode_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/fakemodel"
	"conductorbridge/testkit/opencodetest"
)

// TestRunSessionWhileBusyRunsBeside records what the real OpenCode does
// with `opencode run --session` while another process's turn runs in that
// session (its command held open): it does not wait or refuse, it starts
// a second turn at once, whose model call carries the new message and not
// the unfinished tool call's result. This is why Pusher sends only into
// an idle session.
func TestRunSessionWhileBusyRunsBeside(t *testing.T) {
	bin := opencodetest.Find(t)
	tmp := t.TempDir()
	started, release := filepath.Join(tmp, "started"), filepath.Join(tmp, "release")
	answer := fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
		if strings.Contains(r.LastUserText(), "second message") {
			return []fakemodel.Block{fakemodel.Text("second answer")}
		}
		return []fakemodel.Block{fakemodel.Text("first done")}
	})
	srv := opencodetest.Server(t,
		fakemodel.Reply(fakemodel.Bash(fmt.Sprintf("touch %s; while [ ! -f %s ]; do sleep 0.1; done; echo $((40+2))-held-output", started, release))),
		answer, answer)
	h := opencodetest.NewHome(t, srv.URL())
	// Two runs of 15-20 s of CPU each: 191 s of wall time with two suites
	// side by side (load 24) against a 4-minute budget. The budget is for
	// a hung run, not a slow one (e2e_test.go).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	first := make(chan error, 1)
	go func() {
		_, err := h.Run(ctx, bin, "first message")
		first <- err
	}()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-first:
			t.Fatalf("the first run ended before its command ran: %v", err)
		case <-ctx.Done():
			t.Fatal("the first run's command never ran")
		case <-time.After(50 * time.Millisecond):
		}
	}
	var sid string
	if err := sqlRow(t, h.DB(), "SELECT id FROM session")(&sid); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() {
		_, err := h.Run(ctx, bin, "second message", "--session", sid)
		second <- err
	}()
	// The first turn's command is still held: nothing has released it.
	r, err := srv.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Contains("second message") })
	if err != nil {
		t.Fatalf("the second run never called the model: %v", err)
	}
	if r.Contains("42-held-output") {
		t.Error("the second turn's call carries the first turn's command output, which was never written")
	}
	if !r.Contains("first message") {
		t.Error("the second turn's call does not carry the session's first message: not the same session")
	}
	if err := <-second; err != nil {
		t.Fatalf("the second run, beside the busy first: %v", err)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	users := sqlRows(t, h.DB(), `SELECT json_extract(p.data, '$.text') FROM part p JOIN message m ON m.id = p.message_id
		WHERE p.session_id = ? AND json_extract(m.data, '$.role') = 'user' AND json_extract(p.data, '$.type') = 'text'`, sid)
	if len(users) != 2 {
		t.Errorf("the session holds the person's messages %q, want both runs'", users)
	}
}
