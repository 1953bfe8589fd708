package usage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestAResumedSessionsWarmupsCountInIt reads what real Claude Code 2.0.77
// wrote for `claude -p --session-id 1111… first`, then `claude -p --resume
// 1111… again`, against the fake model (testdata, copied as the binary left
// it). Each run sent three warm-ups (100 input and 20 output tokens each,
// the fake model's answer to a request that sets none). The resumed run
// started under an id of its own, left an empty record of it, and wrote
// its warm-ups' prompts in that id's name. The empty record is no session
// (the streams do not list it): usage lists one session, whose two turns
// spent the fake model's 111+11 and 222+22 tokens and every warm-up
// of both runs. In resume2077 the answers came after the run took the
// resumed id; in resume2077hooked, run with a SessionStart hook that takes
// half a second (as the bridge's hooks take a moment), before: those three
// count in the session whose prompt came next in the folder, the resumed
// one, as ccusage counts them (933 input tokens in all).
func TestAResumedSessionsWarmupsCountInIt(t *testing.T) {
	for _, tt := range []struct {
		dir     string
		warmups int64 // counted in the session
	}{
		{"resume2077", 6},
		{"resume2077hooked", 6},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			projects := t.TempDir()
			copyTree(t, filepath.Join("testdata", tt.dir), filepath.Join(projects, "-tmp-demo"))
			h, err := Source{Formats: agentsAt(projects, "")}.ReadFresh(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Summarize(h, Query{By: "session", Loc: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			want := event.Usage{InputTokens: 111 + 222 + tt.warmups*100, OutputTokens: 11 + 22 + tt.warmups*20}
			if len(rep.Rows) != 1 {
				t.Fatalf("%d sessions, want 1: %+v", len(rep.Rows), rep.Rows)
			}
			row := rep.Rows[0]
			if !strings.HasSuffix(row.Key, "11111111-2222-4333-8444-555555555555") || row.Turns != 2 || row.Usage != want {
				t.Errorf("session %s: %d turns, %+v; want 1111…, 2 turns, %+v", row.Key, row.Turns, row.Usage, want)
			}
		})
	}
}
