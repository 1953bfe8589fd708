package browseserver

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The cases of gstack's own browse/test/activity.test.ts ("filterArgs —
// privacy filtering"), expected values as that file states them.
func TestFilterArgsAsGstacksTests(t *testing.T) {
	eq := []struct {
		cmd  string
		args []string
		want []string
	}{
		{"fill", []string{"#password", "mysecret123"}, []string{"#password", "[REDACTED]"}},
		{"fill", []string{"input[type=passwd]", "abc"}, []string{"input[type=passwd]", "[REDACTED]"}},
		{"fill", []string{"#email", "user@test.com"}, []string{"#email", "user@test.com"}},
		{"type", []string{"my password"}, []string{"[REDACTED]"}},
		{"header", []string{"Authorization:Bearer abc123"}, []string{"Authorization:[REDACTED]"}},
		{"header", []string{"Content-Type:application/json"}, []string{"Content-Type:application/json"}},
		{"cookie", []string{"session_id=abc123"}, []string{"session_id=[REDACTED]"}},
		{"goto", []string{"https://example.com?page=1&sort=name"}, []string{"https://example.com?page=1&sort=name"}},
		{"click", []string{}, []string{}},
		{"click", []string{"@e3"}, []string{"@e3"}},
	}
	for _, c := range eq {
		if got := filterArgs(c.cmd, c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("filterArgs(%q, %q) = %q, want %q", c.cmd, c.args, got, c.want)
		}
	}
	got := filterArgs("goto", []string{"https://example.com?api_key=secret&page=1"})[0]
	if !strings.Contains(got, "api_key=%5BREDACTED%5D") || !strings.Contains(got, "page=1") {
		t.Errorf("secret query parameter: %q", got)
	}
	// "truncates long results": at most 200 + "...".
	if r := truncateResult(strings.Repeat("x", 500)); len(r) > 203 || !strings.HasSuffix(r, "...") {
		t.Errorf("truncateResult: %d characters", len(r))
	}
}

// The stream replays as getActivityAfter says (after 0: everything; after
// an id older than the oldest kept: a gap first; else what follows), then
// carries new entries, framed as sse-helpers.ts frames them; the token is
// required; ids count from 1 in each run.
func TestStreamSpeaksGstacksWire(t *testing.T) {
	root := t.TempDir()
	s, err := New(root, Options{Heartbeat: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var st map[string]any
	b, err := os.ReadFile(StatePath(root))
	if err != nil || json.Unmarshal(b, &st) != nil || st["token"] != s.Token || st["port"] != float64(s.Port) {
		t.Fatalf("state file: %s %v", b, err)
	}
	if fi, _ := os.Stat(StatePath(root)); fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v", fi.Mode().Perm())
	}
	base := "http://127.0.0.1:" + strconv.Itoa(s.Port)
	if resp, err := http.Get(base + "/activity/stream"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("stream without the token: %v %v", resp, err)
	}
	for i := range Capacity + 5 {
		s.Emit(Entry{Type: "command_start", Command: "c" + strconv.Itoa(i)})
	}
	first := s.Entries()[0].ID
	if first != 6 {
		t.Fatalf("oldest kept id %d, want 6 (a ring of %d)", first, Capacity)
	}
	read := func(after string, n int) []string {
		req, _ := http.NewRequest("GET", base+"/activity/stream?after="+after, nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("content type %q", ct)
		}
		var out []string
		br := bufio.NewReader(resp.Body)
		for len(out) < n {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("after %s: %v (got %d)", after, err, len(out))
			}
			out = append(out, strings.TrimSuffix(line, "\n"))
		}
		return out
	}
	if got := read("1003", 3); got[0] != "event: activity" || !strings.Contains(got[1], `"id":1004,`) || got[2] != "" {
		t.Errorf("after 1003: %q", got)
	}
	if got := read("2", 3); got[0] != "event: gap" || got[1] != `data: {"gapFrom":3,"availableFrom":6}` {
		t.Errorf("after 2: %q", got)
	}
	if got := read("0", 2); !strings.Contains(got[1], `"id":6,`) {
		t.Errorf("after 0 starts with %q", got)
	}
	// Idle, a heartbeat; then live entries. (The response's headers come
	// once the stream has subscribed.)
	req, _ := http.NewRequest("GET", base+"/activity/stream?after=1005", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if line, _ := br.ReadString('\n'); line != ": heartbeat\n" {
		t.Errorf("first line while idle: %q", line)
	}
	s.Command("goto", "https://example.com")
	var got []string
	for len(got) < 4 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line != "\n" && line != ": heartbeat\n" {
			got = append(got, strings.TrimSuffix(line, "\n"))
		}
	}
	resp.Body.Close()
	if !strings.Contains(got[1], `"type":"command_start","command":"goto","args":["https://example.com"]`) ||
		!strings.Contains(got[3], `"status":"ok","result":"Navigated to https://example.com (200)"`) {
		t.Errorf("command entries: %q", got)
	}
	resp, _ = http.Get(base + "/health")
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"status":"healthy"`) || strings.Contains(string(body), s.Token) {
		t.Errorf("health: %s", body)
	}
	s.SetHealthy(false) // its page does not answer: 200, and says so
	resp, _ = http.Get(base + "/health")
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"unhealthy"`) {
		t.Errorf("unhealthy: %d %s", resp.StatusCode, body)
	}
	if n := s.HealthChecks(); n != 2 {
		t.Errorf("%d /health requests counted, want 2", n)
	}
	s.Close()
	if _, err := os.Stat(StatePath(root)); !os.IsNotExist(err) {
		t.Errorf("state file left after shutdown: %v", err)
	}
	s2, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if e := s2.Emit(Entry{Type: "navigation", URL: "https://example.com"}); e.ID != 1 {
		t.Errorf("a new run's first id is %d, want 1", e.ID)
	}
}
