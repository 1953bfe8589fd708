package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/agenttest"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
)

// TestRolloutIsWrittenLive shows what each release has written while a
// turn's command runs: the model runs a command that marks its start, then
// waits for a gate file the test creates only after reading the rollout so
// far. 0.169 writes line by line as things happen, the call included; 0.47
// writes the prompt at once but a response's items (message, call) only
// once its tool calls have finished.
func TestRolloutIsWrittenLive(t *testing.T) {
	for _, version := range []string{codextest.Latest, codextest.Legacy} {
		t.Run(version, func(t *testing.T) {
			bin := codextest.Find(t, version)
			home := t.TempDir()
			gate := agenttest.NewGate(home)
			srv := fakemodel.NewTest(t,
				fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
					return []fakemodel.Block{fakemodel.Text("Waiting for the gate."), fakemodel.Shell(r.ToolNames(), gate.Command())}
				}),
				fakemodel.Reply(fakemodel.Text("Through the gate.")))
			o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: "wait for the gate", Model: codextest.ModelFor(version)}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := startAtGate(ctx, t, o, gate)
			// The command runs until the gate opens: what is on disk now
			// was written during the turn.
			evs := readSoFar(t, o.CodexHome())
			p := parserOver(t, o.CodexHome())
			if !p.InTurn() || !sawPrompt(evs, "wait for the gate") {
				t.Fatalf("mid-turn: in turn %v, events:\n%s", p.InTurn(), eventtest.Describe(evs))
			}
			if want := version != codextest.Legacy; sawCall(evs, gate.Command()) != want {
				t.Errorf("mid-turn, the running call is on disk: %v, want %v; events:\n%s", !want, want, eventtest.Describe(evs))
			}
			if err := gate.Open(); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			evs = parseRollout(t, codextest.Rollouts(t, o.CodexHome())[0])
			if got := eventtest.Describe(evs); !strings.Contains(got, `"through\n"`) || !strings.Contains(got, "turn_complete") {
				t.Errorf("finished rollout:\n%s", got)
			}
		})
	}
}

func sawPrompt(evs []event.Event, text string) bool {
	return slices.ContainsFunc(evs, func(e event.Event) bool {
		return e.Type == event.User && !e.System && e.Content == text
	})
}

func sawCall(evs []event.Event, cmd string) bool {
	return slices.ContainsFunc(evs, func(e event.Event) bool {
		return e.Type == event.ToolUse && e.Name == ToolShell && e.Input == cmd
	})
}

// rolloutSoFar is what the session's rollout holds so far (false: there
// is none yet).
func rolloutSoFar(t *testing.T, codexHome string) ([]byte, bool) {
	t.Helper()
	files := codextest.Rollouts(t, codexHome)
	if len(files) == 0 {
		return nil, false
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return data, true
}

// parserOver parses the complete lines of the session's rollout so far.
func parserOver(t *testing.T, codexHome string) *Parser {
	t.Helper()
	p, _ := NewParser(nil)
	data, _ := rolloutSoFar(t, codexHome)
	i := strings.LastIndexByte(string(data), '\n')
	if i < 0 {
		return p
	}
	for _, line := range strings.Split(string(data[:i]), "\n") {
		if _, err := p.Line([]byte(line), nil); err != nil {
			t.Fatalf("rollout line rejected: %v", err)
		}
	}
	return p
}

func readSoFar(t *testing.T, codexHome string) []event.Event {
	t.Helper()
	data, ok := rolloutSoFar(t, codexHome)
	if !ok {
		return nil
	}
	p, _ := NewParser(nil)
	var evs []event.Event
	for _, line := range strings.Split(string(data), "\n") {
		if ev, err := p.Line([]byte(line), evs); err == nil {
			evs = ev // a partial last line is not JSON yet
		}
	}
	return evs
}

// TestResumeRefusedWhileBusy: on 0.169 a resume while another codex
// process runs the thread fails cleanly with ErrSessionBusy, and the
// message never reaches the model — also once the running command's call
// has yielded (exec_command does after its yield_time_ms, 10 s as the fake
// model asks; a loaded machine can take that long to start the resume),
// while the model waits on the command. Failed so under double load: the
// model's answer to the yield ended the first run's turn, its codex quit,
// and the resume found the thread free.
func TestResumeRefusedWhileBusy(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	home := t.TempDir()
	gate := agenttest.NewGate(home)
	srv := fakemodel.NewTest(t, fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
		// Yield at once (250 ms is the least Codex takes): the resume
		// comes after the yield, as a slow one does after 10 s.
		return []fakemodel.Block{fakemodel.ToolUse("exec_command", map[string]any{"cmd": gate.Command(), "yield_time_ms": 250})}
	}))
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: "first"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := startAtGate(ctx, t, o, gate)
	yielded := func(r fakemodel.Request) bool { return r.ContainsText("Process running with session ID") }
	if _, err := srv.WaitRequest(ctx, yielded); err != nil {
		t.Fatalf("the gated call never yielded: %v", err)
	}
	id := codextest.ThreadID(codextest.Rollouts(t, o.CodexHome())[0])
	r, err := Resume(ctx, ResumeOptions{Bin: bin, CodexHome: o.CodexHome(), ThreadID: id, Message: "INJECTED-XYZ",
		Dir: o.Dir, Env: o.Environ(), Args: []string{"--dangerously-bypass-approvals-and-sandbox"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Wait(); !errors.Is(err, ErrSessionBusy) {
		// Once seen in a double run of the suite (the resume ended well
		// after 20-odd s): say what the first run was doing then.
		reached, state := 0, "state unknown"
		for _, q := range srv.Requests() {
			if q.Contains("INJECTED-XYZ") {
				reached++
			}
		}
		if st, serr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)); serr == nil {
			if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 {
				state = "state " + f[0] // Z: it had ended
			}
		}
		t.Fatalf("resume of a busy thread: %v (model requests %d, %d with the message; the first codex: %s)", err, len(srv.Requests()), reached, state)
	}
	if err := gate.Open(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, q := range srv.Requests() {
		if q.Contains("INJECTED-XYZ") {
			t.Fatal("the refused message reached the model")
		}
	}
}

// startAtGate starts `codex exec` as o says and returns once its shell
// call waits at gate; the gate is opened and the run waited for when the
// test ends (if the test did not wait for it already).
func startAtGate(ctx context.Context, t *testing.T, o codextest.Options, gate *agenttest.Gate) *exec.Cmd {
	t.Helper()
	cmd, err := codextest.Command(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gate.Open(); _ = cmd.Wait() })
	if err := gate.Started(ctx); err != nil {
		t.Fatal(err)
	}
	return cmd
}
