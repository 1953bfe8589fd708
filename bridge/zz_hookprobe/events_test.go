package zz_hookprobe

import (
	"testing"
	"time"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/fakemodel"
)

// Q1/Q5/Q7: all events' stdin, project + user scope, order.
func TestEvents(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, v)
			ev := func(name string) []any {
				return []any{group("", hookCmd(e.script("proj_"+name, ""), nil))}
			}
			e.projectSettings(map[string]any{"hooks": map[string]any{
				"SessionStart":     ev("SessionStart"),
				"UserPromptSubmit": ev("UserPromptSubmit"),
				"PreToolUse":       []any{group("Bash", hookCmd(e.script("proj_PreToolUse", ""), nil))},
				"PostToolUse":      []any{group("Bash", hookCmd(e.script("proj_PostToolUse", ""), nil))},
				"Stop":             ev("Stop"),
				"SessionEnd":       ev("SessionEnd"),
				"Notification":     ev("Notification"),
			}})
			e.userSettings(map[string]any{"hooks": map[string]any{
				"Stop":        []any{group("", hookCmd(e.script("user_Stop", ""), nil))},
				"PostToolUse": []any{group("Bash", hookCmd(e.script("user_PostToolUse", ""), nil))},
			}})
			fm := fakemodel.NewTest(t,
				fakemodel.Reply(fakemodel.Text("Running."), fakemodel.Bash("echo hi")),
				fakemodel.Reply(fakemodel.Text("first done")),
				fakemodel.Reply(fakemodel.Text("second done")),
			)
			ctx := ctxT(t, 2*time.Minute)
			s, err := claudetest.Start(ctx, e.opts(fm))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, p := range []string{"run echo hi", "again"} {
				if err := s.Send(p); err != nil {
					t.Fatal(err)
				}
				if _, err := s.WaitResult(ctx); err != nil {
					t.Fatal(err)
				}
			}
			t0 := time.Now()
			err = s.Close()
			t.Logf("close took %v err=%v", time.Since(t0), err)
			dumpEvents(t, s)
			e.dumpLogs()
			p, _ := s.TranscriptPath()
			dumpTranscript(t, p)
			_ = claudetest.Latest
		})
	}
}
