package zz_hookprobe

import (
	"testing"
	"time"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/fakemodel"
)

// Q2: Stop hook blocking with JSON decision.
func TestStopBlock(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, v)
			stop := e.script("stop", `
if printf '%s' "$IN" | grep -q '"stop_hook_active":true'; then exit 0; fi
printf '%s\n' '{"decision":"block","reason":"MSG-STOP line1\nline2 \"quoted\""}'
exit 0`)
			e.projectSettings(map[string]any{"hooks": map[string]any{
				"Stop": []any{group("", hookCmd(stop, nil))},
			}})
			fm := fakemodel.NewTest(t,
				fakemodel.Reply(fakemodel.Text("first answer")),
				fakemodel.Reply(fakemodel.Text("answer after block")),
			)
			ctx := ctxT(t, 2*time.Minute)
			s, err := claudetest.Start(ctx, e.opts(fm))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_ = s.Send("hello")
			res, err := s.WaitResult(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("result: %+v", res)
			time.Sleep(500 * time.Millisecond)
			_ = s.Close()
			dumpEvents(t, s)
			dumpRequests(t, fm)
			e.dumpLogs()
			p, _ := s.TranscriptPath()
			dumpTranscript(t, p)
		})
	}
}

// Q4: PostToolUse additionalContext.
func TestPostToolUseContext(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, v)
			ptu := e.script("ptu", `printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"MSG-PTU no, test the mobile view"}}'`)
			e.projectSettings(map[string]any{"hooks": map[string]any{
				"PostToolUse": []any{group("Bash", hookCmd(ptu, nil))},
			}})
			fm := fakemodel.NewTest(t,
				fakemodel.Reply(fakemodel.Bash("echo hi")),
				fakemodel.Reply(fakemodel.Text("done")),
			)
			ctx := ctxT(t, 2*time.Minute)
			s, err := claudetest.Start(ctx, e.opts(fm))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_ = s.Send("run it")
			res, err := s.WaitResult(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("result: %+v", res)
			_ = s.Close()
			dumpEvents(t, s)
			dumpRequests(t, fm)
			e.dumpLogs()
			p, _ := s.TranscriptPath()
			dumpTranscript(t, p)
		})
	}
}
