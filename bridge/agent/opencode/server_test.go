package opencode_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"conductorbridge/bridge/agent/opencode"
)

// fakeServer answers the two routes of OpenCode's server delivery uses,
// in the shapes read from OpenCode 1.18.33's server source. No test yet
// runs these routes against the real binary; the bridge does not use them
// (see the package doc).
type fakeServer struct {
	mu     sync.Mutex
	status string // the session's status, "" for none
	posted []string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/session/status":
		m := map[string]any{}
		if f.status != "" {
			m["ses_1"] = map[string]string{"type": f.status}
		}
		_ = json.NewEncoder(w).Encode(m)
	case r.Method == http.MethodPost && r.URL.Path == "/session/ses_1/prompt_async":
		var body struct {
			Parts []struct{ Type, Text string }
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		for _, p := range body.Parts {
			f.posted = append(f.posted, p.Type+":"+p.Text)
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

// TestServersFindAndPost: the busy session's server is found among a
// process's listeners and takes the message; an idle session's, one of
// another user's (the kernel's answer replaced), or a process whose
// listeners cannot be listed is a refusal with its reason.
func TestServersFindAndPost(t *testing.T) {
	f := &fakeServer{}
	srv := httptest.NewServer(f) // loopback, this user's: the real owner check passes
	defer srv.Close()
	end := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))
	unrelated := httptest.NewServer(http.NotFoundHandler())
	defer unrelated.Close()
	other := netip.MustParseAddrPort(strings.TrimPrefix(unrelated.URL, "http://"))
	listening := func(pid int) ([]netip.AddrPort, error) {
		if pid == 1 {
			return []netip.AddrPort{other, end}, nil
		}
		return nil, errors.New("no such process")
	}
	s := opencode.Servers{Listening: listening}
	ctx := context.Background()

	refused := func(what string, err error, reason string) {
		t.Helper()
		var de *opencode.DeliverError
		if !errors.As(err, &de) || !errors.Is(err, opencode.ErrCannotDeliver) || !strings.Contains(de.Reason, reason) {
			t.Errorf("%s: %v, want a refusal saying %q", what, err, reason)
		}
	}
	_, err := s.Find(ctx, "ses_1", []int{1})
	refused("idle", err, "no OpenCode server runs this session's turn")
	_, err = s.Find(ctx, "ses_1", []int{2})
	refused("unlisted", err, "cannot find the server")

	f.mu.Lock()
	f.status = "busy"
	f.mu.Unlock()
	got, err := s.Find(ctx, "ses_1", []int{2, 1})
	if err != nil || got != end {
		t.Fatalf("Find: %v %v, want %v", got, err, end)
	}
	if err := s.PromptAsync(ctx, got, "ses_1", "hello\nthere"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.posted, "|") != "text:hello\nthere" {
		t.Errorf("posted %q", f.posted)
	}

	stranger := opencode.Servers{Listening: listening, Owner: func(context.Context, net.Conn) (int, error) { return 4242, nil }, UID: 1000}
	_, err = stranger.Find(ctx, "ses_1", []int{1})
	refused("another user's", err, "belongs to another user")
	refused("another user's post", stranger.PromptAsync(ctx, end, "ses_1", "x"), "belongs to another user")
	if len(f.posted) != 1 {
		t.Errorf("another user's server was sent %q", f.posted)
	}
}

func TestProcessAndSessionArg(t *testing.T) {
	for _, c := range []struct {
		comm    string
		argv    []string
		is      bool
		session string
	}{
		{"opencode", []string{"/opt/opencode-1.18.33/node_modules/.bin/opencode", "acp"}, true, ""},
		{"node", []string{"/Users/a/Library/Application Support/com.conductor.app/agent-binaries/acp-providers/opencode/1.18.33/darwin-arm64/opencode", "acp"}, true, ""},
		{"opencode", []string{"opencode", "run", "--session", "ses_abc"}, true, "ses_abc"},
		{"opencode", []string{"opencode", "-s", "ses_x"}, true, "ses_x"},
		{"opencode", []string{"opencode", "--session=ses_y"}, true, "ses_y"},
		{"claude", []string{"claude", "--session", "ses_z"}, false, "ses_z"},
	} {
		if got := opencode.IsProcess(c.comm, c.argv); got != c.is {
			t.Errorf("IsProcess(%q, %q) = %v", c.comm, c.argv, got)
		}
		if got := opencode.SessionArg(c.argv); got != c.session {
			t.Errorf("SessionArg(%q) = %q", c.argv, got)
		}
	}
	if _, err := opencode.RunSession(context.Background(), opencode.RunOptions{Bin: "opencode", Session: "-rf", Message: "x"}); err == nil {
		t.Error("a session id that is a flag ran")
	}
}
