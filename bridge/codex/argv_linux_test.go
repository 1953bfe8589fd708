package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// Issue 24, finding 6: `codex exec … resume <thread> -- <message>` kept
// the message in argv, which `ps` shows every user of the machine, for
// the whole turn. The message goes on stdin (`-` as the prompt, which both
// releases read from stdin). While the real codex works on it, no process
// on the machine has the message in its command line, and the model still
// receives it.
func TestResumeKeepsTheMessageOutOfArgv(t *testing.T) {
	for _, version := range []string{codextest.Latest, codextest.Legacy} {
		t.Run(version, func(t *testing.T) {
			bin := codextest.Find(t, version)
			inTurn, release := make(chan struct{}), make(chan struct{})
			srv := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first answer")),
				fakemodel.Build(func(fakemodel.Request) []fakemodel.Block {
					close(inTurn) // the resumed turn reached the model: codex is mid-turn
					<-release
					return []fakemodel.Block{fakemodel.Text("got it")}
				}))
			ctx, o := firstTurn(t, version, bin, srv)
			id := codextest.ThreadID(codextest.Rollouts(t, o.CodexHome())[0])
			msg := "staging password is hunter2 " + strconv.Itoa(os.Getpid()) + " -- ; $(rm -rf /)\nsecond line"
			r, err := Resume(ctx, ResumeOptions{Bin: bin, CodexHome: o.CodexHome(), ThreadID: id, Message: msg,
				Dir: o.Dir, Env: o.Environ(), Args: []string{"--dangerously-bypass-approvals-and-sandbox"}})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-inTurn:
			case <-ctx.Done():
				close(release)
				t.Fatalf("the resumed turn never reached the model: %v", r.Wait())
			}
			// Every process's command line, as ps reads it: the resumed
			// codex and whatever it started among them.
			var mine int
			secret := []byte("hunter2 " + strconv.Itoa(os.Getpid()))
			procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, p := range procs {
				b, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				if bytes.Contains(b, secret) {
					t.Errorf("%s holds the message: %q", p, b)
				}
				if bytes.Contains(b, []byte("resume\x00"+id+"\x00")) {
					mine++
				}
			}
			if mine == 0 {
				t.Error("found no running codex resume to check")
			}
			close(release)
			if err := r.Wait(); err != nil {
				t.Fatal(err)
			}
			users := srv.MainRequests()[1].UserTexts()
			if got := users[len(users)-1]; strings.TrimSpace(got) != strings.TrimSpace(msg) {
				t.Errorf("the model got %q, want the message %q", got, msg)
			}
		})
	}
}
