package conductor

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealCodexFramesAsRawPayload: the events the real Codex prints
// (`codex exec --json`, its own format), each carried as a frame's
// content.rawPayload as Conductor's cloud API carries them, streamed from
// session_messages. Tokens are Codex's own turn.completed usage, in the
// bridge's convention (input without the cached part).
func TestRealCodexFramesAsRawPayload(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	srv := fakemodel.NewTest(t, fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
		return []fakemodel.Block{fakemodel.Thinking("thinking about it"), fakemodel.Shell(r.ToolNames(), "echo hi")}
	}), fakemodel.Reply(fakemodel.Text("all done")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := codextest.Run(ctx, codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: t.TempDir(), Prompt: "say hi", Args: []string{"--json"}})
	if err != nil {
		t.Fatal(err)
	}

	w := newDB(t, conductordb.Shapes(t)[0], "s-tab", "codex")
	rec := newRecorder()
	rec.run(t, w.Path, map[string]Cursor{"s-tab": {}})
	write(t, w, "s-tab", "say hi")
	var usage struct {
		In     int64 `json:"input_tokens"`
		Cached int64 `json:"cached_input_tokens"`
		Out    int64 `json:"output_tokens"`
	}
	for _, line := range bytes.Split(bytes.TrimSpace(res.Stdout), []byte("\n")) {
		var f struct {
			Type  string          `json:"type"`
			Usage json.RawMessage `json:"usage"`
		}
		if json.Unmarshal(line, &f) != nil {
			continue // not an event line
		}
		if f.Type == "turn.completed" {
			if err := json.Unmarshal(f.Usage, &usage); err != nil {
				t.Fatal(err)
			}
		}
		write(t, w, "s-tab", obj{"type": "assistant", "content": obj{"rawPayload": json.RawMessage(line)}})
	}
	evs := rec.turns(t, "s-tab", 1)
	for i := range evs {
		evs[i].DurationMS = 0 // the rows' times, a clock's
	}
	want := []string{
		`user "say hi" cut=false`,
		`thinking "thinking about it" cut=false`,
		`tool_use item_1 Bash "/bin/bash -lc 'echo hi'" cut=false`,
		`tool_result item_1 Bash "hi\n" cut=false err=false`,
		`assistant "all done" cut=false`,
		`turn_complete unknown in=` + itoa(usage.In-usage.Cached) + ` out=` + itoa(usage.Out) + ` model=`,
	}
	if got := describe(evs); got != strings.Join(want, "\n")+"\n" || usage.Out == 0 {
		t.Errorf("events:\n%s\nwant\n%s\nCodex printed:\n%s", got, strings.Join(want, "\n"), res.Stdout)
	}
}
