package turn

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStart runs real commands: the message arrives on stdin and never in
// the arguments, a failing turn's error keeps the end of its output, and
// cancelling kills the turn.
func TestStart(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, tt := range []struct {
		name, script, message string
		fails                 bool
		tail                  string
	}{
		{"reads its message", `read m; [ "$m" = "hello there" ]`, "hello there\n", false, ""},
		{"fails with its output", `echo start; echo "$(cat) went wrong" >&2; exit 3`, "it", true, "start\nit went wrong"},
		{"keeps the end of a long output", `head -c 5000 /dev/zero | tr '\0' a; echo END; exit 1`, "", true, strings.Repeat("a", 1996) + "END"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Start(context.Background(), Command{Bin: sh, Args: []string{"-c", tt.script}, Dir: t.TempDir(), Env: os.Environ(), Message: tt.message})
			if err != nil {
				t.Fatal(err)
			}
			if r.PID() <= 0 {
				t.Errorf("pid %d", r.PID())
			}
			tail, err := r.Wait()
			if (err != nil) != tt.fails || tail != tt.tail {
				t.Errorf("Wait: %q, %v; want the tail %q, failing %v", tail, err, tt.tail, tt.fails)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Start(ctx, Command{Bin: sh, Args: []string{"-c", "sleep 60 & wait"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := r.Wait(); err == nil {
		t.Error("a cancelled turn ended well")
	}
	if _, err := Start(context.Background(), Command{Bin: "/nonexistent/agent"}); err == nil {
		t.Error("no error for a missing binary")
	}
}
