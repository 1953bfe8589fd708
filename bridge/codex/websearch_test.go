package codex

import (
	"context"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
)

// TestWebSearchOn169: a search the API ran itself (web_search_call) is
// recorded by the real 0.169 and shows as a WebSearch call with its query.
func TestWebSearchOn169(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	srv := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.WebSearch("codex rollout format"), fakemodel.Text("Found it.")))
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: t.TempDir(), Prompt: "search the web"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := codextest.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	got := eventtest.Describe(parseRollout(t, codextest.Rollouts(t, o.CodexHome())[0]))
	if !strings.Contains(got, `tool_use WebSearch ws_fake0001_0 "codex rollout format"`) || !strings.Contains(got, `tool_result WebSearch ws_fake0001_0 error=false`) {
		t.Errorf("web search on the stream:\n%s", got)
	}
}
