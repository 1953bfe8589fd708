package claudetest

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/fakemodel"
)

// record is the slice of a transcript line these tests look at.
type record struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// blocks reads a transcript and returns every content block of its user
// and assistant records (string content becomes a text block).
func blocks(t *testing.T, path string) []fakemodel.Content {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	var out []fakemodel.Content
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil || (r.Type != "user" && r.Type != "assistant") {
			continue
		}
		var s string
		if json.Unmarshal(r.Message.Content, &s) == nil {
			out = append(out, fakemodel.Content{Type: "text", Text: s})
			continue
		}
		var bs []fakemodel.Content
		if err := json.Unmarshal(r.Message.Content, &bs); err != nil {
			t.Fatalf("content of %s line: %v", r.Type, err)
		}
		out = append(out, bs...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunBashEndToEnd(t *testing.T) {
	bin := Find(t, Latest)
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Text("Running it."), fakemodel.Bash("echo hello-from-test")),
		fakemodel.Reply(fakemodel.Text("It printed hello-from-test.")),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Bin: bin, BaseURL: fm.URL(), Home: t.TempDir(), Prompt: "say hello via bash"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one-turn run took %v", res.Duration)
	if res.Output.IsError || res.Output.Result != "It printed hello-from-test." {
		t.Errorf("result: %+v", res.Output)
	}
	if _, err := fm.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.LastUserText() == "say hello via bash" }); err != nil {
		t.Errorf("prompt never reached the model: %v", err)
	}

	var toolID string
	bs := blocks(t, res.TranscriptPath)
	for _, b := range bs {
		if b.Type == "tool_use" && b.Name == "Bash" && strings.Contains(string(b.Input), "echo hello-from-test") {
			toolID = b.ID
		}
	}
	if toolID == "" {
		t.Fatalf("no Bash tool_use in %s", res.TranscriptPath)
	}
	found := false
	for _, b := range bs {
		if b.Type == "tool_result" && b.ToolUseID == toolID {
			found = true
			if b.IsError || !strings.Contains(b.ResultText(), "hello-from-test") {
				t.Errorf("tool_result: error=%v %q", b.IsError, b.ResultText())
			}
		}
	}
	if !found {
		t.Errorf("no tool_result for %s in transcript", toolID)
	}
}

func TestSessionTwoTurns(t *testing.T) {
	bin := Find(t, Latest)
	fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first answer")), fakemodel.Reply(fakemodel.Text("second answer")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Bin: bin, BaseURL: fm.URL(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, turn := range []struct{ prompt, answer string }{{"one", "first answer"}, {"two", "second answer"}} {
		if err := s.Send(turn.prompt); err != nil {
			t.Fatal(err)
		}
		res, err := s.WaitResult(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Result != turn.answer || res.SessionID != s.SessionID() {
			t.Errorf("result %+v, want %q in session %s", res, turn.answer, s.SessionID())
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, s.Stderr())
	}
	path, err := s.TranscriptPath()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, b := range blocks(t, path) {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"one", "first answer", "two", "second answer"} {
		if !strings.Contains(joined, want) {
			t.Errorf("transcript lacks %q: %s", want, joined)
		}
	}
}

func TestProjectDirName(t *testing.T) {
	for in, want := range map[string]string{
		"/Users/me/.x":                  "-Users-me--x",
		"/tmp/cbhome-2.1.328/work/demo": "-tmp-cbhome-2-1-328-work-demo",
		"/a b/ü_c😀":                     "-a-b---c--", // JS counts UTF-16 units
		// Checked against the directory 2.1.328 created for this cwd.
		"/tmp/cblong-2.1.328/w/emoji😀_dir/" + strings.Repeat("x", 120) + "/" + strings.Repeat("ü", 60): "-tmp-cblong-2-1-328-w-emoji---dir-" +
			strings.Repeat("x", 120) + strings.Repeat("-", 46) + "-hylt5n",
	} {
		if got := ProjectDirName(in); got != want {
			t.Errorf("ProjectDirName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTranscriptPathResolvesSymlinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got, err := TranscriptPath("/h", link, "sid")
	if err != nil {
		t.Fatal(err)
	}
	realRoot, _ := filepath.EvalSymlinks(real)
	if want := filepath.Join("/h/.claude/projects", ProjectDirName(realRoot), "sid.jsonl"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestTerminalShowsATurn runs Claude Code's own UI in tmux: what is typed
// reaches the model and the answer appears on the screen.
func TestTerminalShowsATurn(t *testing.T) {
	tmux := FindTmux(t)
	for _, v := range []string{Latest, "2.0.77"} {
		t.Run(v, func(t *testing.T) {
			bin := Find(t, v)
			fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("The page looks fine.")))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			term, err := StartTerminal(ctx, tmux, Options{Bin: bin, BaseURL: fm.URL(), Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer term.Close()
			if err := term.Type(ctx, "check the page"); err != nil {
				t.Fatal(err)
			}
			if _, err := term.WaitScreen(ctx, "The page looks fine."); err != nil {
				t.Fatal(err)
			}
			if r := fm.MainRequests(); len(r) != 1 || !r[0].ContainsText("check the page") {
				t.Errorf("the model got %d requests", len(r))
			}
		})
	}
}
