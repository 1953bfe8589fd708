package zz_hookprobe

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/fakemodel"
)

const onceExit2 = `
if [ -e "$LOG/fired" ]; then echo "$(date +%s.%N) skip pid=$$" >> "$LOG/order.log"; exit 0; fi
touch "$LOG/fired"
sleep 2
echo "MSG-REWAKE wake up" >&2
echo "stdout-part"
echo "$(date +%s.%N) exit2 pid=$$" >> "$LOG/order.log"
exit 2`

func rewakeSettings(e *env, body string, extra map[string]any) {
	if extra == nil {
		extra = map[string]any{"asyncRewake": true}
	}
	e.projectSettings(map[string]any{"hooks": map[string]any{
		"Stop": []any{group("", hookCmd(e.script("rewake", body), extra))},
	}})
}

func finish(t *testing.T, e *env, s *claudetest.Session, fm *fakemodel.Server) {
	t0 := time.Now()
	_ = s.CloseInput()
	select {
	case <-s.Done():
	case <-time.After(45 * time.Second):
		t.Logf("claude did not exit in 45s; killing")
		_ = s.Close()
	}
	t.Logf("exit after stdin close took %v", time.Since(t0))
	dumpEvents(t, s)
	dumpRequests(t, fm)
	e.dumpLogs()
	p, _ := s.TranscriptPath()
	dumpTranscript(t, p)
}

func isMSG(r fakemodel.Request) bool {
	return r.Kind == fakemodel.KindMain && strings.Contains(string(r.Raw), "MSG-REWAKE")
}

// A: idle wake, on every version.
func TestRewakeIdle(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, v)
			rewakeSettings(e, onceExit2, nil)
			fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first")), fakemodel.Reply(fakemodel.Text("woken")))
			ctx := ctxT(t, 2*time.Minute)
			s, err := claudetest.Start(ctx, e.opts(fm))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			t0 := time.Now()
			_ = s.Send("one")
			res, err := s.WaitResult(ctx)
			t.Logf("first result after %v: %+v", time.Since(t0), res)
			wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			r, err := fm.WaitRequest(wctx, isMSG)
			cancel()
			if err != nil {
				t.Logf("NO WAKE REQUEST: %v", err)
			} else {
				t.Logf("wake request at +%v", r.Time.Sub(t0))
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				res, err := s.WaitResult(wctx)
				cancel()
				t.Logf("result after wake: %+v err=%v", res, err)
			}
			time.Sleep(1 * time.Second)
			finish(t, e, s, fm)
		})
	}
}

// B: exit 0 does nothing; H: "async": true + exit 2 does nothing?
func TestRewakeNoWake(t *testing.T) {
	cases := map[string]struct {
		body  string
		extra map[string]any
	}{
		"exit0":          {`sleep 2; echo "MSG-REWAKE via stdout"; echo "MSG-REWAKE via stderr" >&2; exit 0`, nil},
		"asyncOnlyExit2": {onceExit2, map[string]any{"async": true}},
		"bothKeys":       {onceExit2, map[string]any{"async": true, "asyncRewake": true}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, claudetest.Latest)
			rewakeSettings(e, c.body, c.extra)
			fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first")), fakemodel.Reply(fakemodel.Text("woken")))
			ctx := ctxT(t, 2*time.Minute)
			s, err := claudetest.Start(ctx, e.opts(fm))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_ = s.Send("one")
			res, _ := s.WaitResult(ctx)
			t.Logf("first result: %+v", res)
			wctx, cancel := context.WithTimeout(ctx, 6*time.Second)
			r, err := fm.WaitRequest(wctx, isMSG)
			cancel()
			t.Logf("wake request: seq=%d err=%v", r.Seq, err)
			finish(t, e, s, fm)
		})
	}
}

// C: hook exits 2 while the agent is busy with another turn.
func TestRewakeBusy(t *testing.T) {
	e := newEnv(t, claudetest.Latest)
	rewakeSettings(e, onceExit2, nil)
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Text("first")),
		fakemodel.Reply(fakemodel.Bash("sleep 4; echo slept")),
		fakemodel.Reply(fakemodel.Text("t2 done")),
		fakemodel.Reply(fakemodel.Text("after rewake")),
	)
	ctx := ctxT(t, 2*time.Minute)
	s, err := claudetest.Start(ctx, e.opts(fm))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_ = s.Send("one")
	res, _ := s.WaitResult(ctx)
	t.Logf("first result: %+v", res)
	_ = s.Send("two")
	res, _ = s.WaitResult(ctx)
	t.Logf("second result: %+v", res)
	wctx, cancel := context.WithTimeout(ctx, 6*time.Second)
	res, err = s.WaitResult(wctx)
	cancel()
	t.Logf("third result: %+v err=%v", res, err)
	finish(t, e, s, fm)
}

// D: several async hooks at once; E: what happens on exit.
func TestRewakeMany(t *testing.T) {
	e := newEnv(t, claudetest.Latest)
	rewakeSettings(e, `echo $$ >> "$LOG/pids"; sleep 6; echo "$(date +%s.%N) end pid=$$" >> "$LOG/order.log"; exit 0`, nil)
	fm := fakemodel.NewTest(t)
	ctx := ctxT(t, 2*time.Minute)
	s, err := claudetest.Start(ctx, e.opts(fm))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{"one", "two", "three"} {
		_ = s.Send(p)
		_, _ = s.WaitResult(ctx)
	}
	time.Sleep(500 * time.Millisecond)
	alive(t, e)
	finish(t, e, s, fm)
	alive(t, e)
}

// E2: a rewake hook waiting a long time when stdin closes.
func TestRewakeExitLong(t *testing.T) {
	e := newEnv(t, claudetest.Latest)
	rewakeSettings(e, `echo $$ >> "$LOG/pids"; sleep 60; echo "$(date +%s.%N) end pid=$$" >> "$LOG/order.log"; echo MSG-REWAKE late >&2; exit 2`, nil)
	fm := fakemodel.NewTest(t)
	ctx := ctxT(t, 2*time.Minute)
	s, err := claudetest.Start(ctx, e.opts(fm))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_ = s.Send("one")
	_, _ = s.WaitResult(ctx)
	time.Sleep(500 * time.Millisecond)
	alive(t, e)
	finish(t, e, s, fm)
	alive(t, e)
	killAll(e)
}

// E3: the whole process killed (SIGTERM to claude only) while a hook waits.
func TestRewakeSigterm(t *testing.T) {
	e := newEnv(t, claudetest.Latest)
	rewakeSettings(e, `echo $$ >> "$LOG/pids"; sleep 60; exit 2`, nil)
	fm := fakemodel.NewTest(t)
	ctx := ctxT(t, 2*time.Minute)
	s, err := claudetest.Start(ctx, e.opts(fm))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_ = s.Send("one")
	_, _ = s.WaitResult(ctx)
	time.Sleep(500 * time.Millisecond)
	alive(t, e)
	t0 := time.Now()
	_ = syscall.Kill(s.Pid(), syscall.SIGTERM)
	select {
	case <-s.Done():
	case <-time.After(40 * time.Second):
	}
	t.Logf("exit after SIGTERM took %v", time.Since(t0))
	time.Sleep(300 * time.Millisecond)
	alive(t, e)
	killAll(e)
	_ = fm
}

// F: timeout on a rewake hook.
func TestRewakeTimeout(t *testing.T) {
	e := newEnv(t, claudetest.Latest)
	rewakeSettings(e, `echo $$ >> "$LOG/pids"; sleep 10; echo "$(date +%s.%N) end pid=$$" >> "$LOG/order.log"; echo MSG-REWAKE after 10s >&2; exit 2`,
		map[string]any{"asyncRewake": true, "timeout": 3})
	fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first")), fakemodel.Reply(fakemodel.Text("woken")))
	ctx := ctxT(t, 2*time.Minute)
	s, err := claudetest.Start(ctx, e.opts(fm))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now()
	_ = s.Send("one")
	_, _ = s.WaitResult(ctx)
	time.Sleep(4 * time.Second)
	alive(t, e)
	wctx, cancel := context.WithTimeout(ctx, 9*time.Second)
	r, err := fm.WaitRequest(wctx, func(r fakemodel.Request) bool {
		return r.Kind == fakemodel.KindMain && r.Seq > 1 && len(fm.MainRequests()) > 1
	})
	cancel()
	t.Logf("second main request: seq=%d at +%v err=%v", r.Seq, r.Time.Sub(t0), err)
	alive(t, e)
	finish(t, e, s, fm)
	killAll(e)
}

// G: asyncRewake in a plain -p run (no streaming input).
func TestRewakePrint(t *testing.T) {
	e := newEnv(t, claudetest.Latest)
	rewakeSettings(e, onceExit2, nil)
	fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first")), fakemodel.Reply(fakemodel.Text("woken")))
	ctx := ctxT(t, 2*time.Minute)
	o := e.opts(fm)
	o.Prompt = "one"
	o.OutputFormat = "stream-json"
	res, err := claudetest.Run(ctx, o)
	if err != nil {
		t.Logf("run error: %v", err)
	}
	t.Logf("run took %v result=%+v", res.Duration, res.Output)
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if !strings.Contains(l, `"subtype":"init"`) {
			t.Logf("OUT %s", trunc(l, 1200))
		}
	}
	dumpRequests(t, fm)
	e.dumpLogs()
	dumpTranscript(t, res.TranscriptPath)
}

func pids(e *env) []int {
	var out []int
	for _, f := range strings.Fields(e.logFile("pids")) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func alive(t *testing.T, e *env) {
	var st []string
	for _, p := range pids(e) {
		err := syscall.Kill(p, 0)
		st = append(st, strconv.Itoa(p)+"="+strconv.FormatBool(err == nil))
	}
	t.Logf("hook pids alive at %s: %v", time.Now().Format("15:04:05.000"), st)
}

func killAll(e *env) {
	for _, p := range pids(e) {
		if data, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline"); err == nil && strings.Contains(string(data), e.hookDir) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}
