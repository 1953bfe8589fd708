package claudetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/testkit/agenttest"
)

// Terminal is Claude Code run the way a person runs it: `claude` with no
// -p, its full-screen UI in a tmux pane that tests type into and read back
// (tmux capture-pane), with no display.
type Terminal struct {
	tmux string
	sock string // the tmux server's own socket: nothing else shares it
}

// FindTmux returns the tmux binary, skipping the test when there is none,
// except under CI=true, where a missing tmux is a broken image.
func FindTmux(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err == nil {
		return p
	}
	agenttest.Missing(t, "claudetest: tmux not found: %v", err)
	return ""
}

// screenSize is wide enough that Claude Code's lines seldom wrap.
const screenCols, screenRows = "160", "50"

// StartTerminal starts `claude` in a new tmux server (binary tmux) with o's
// environment, home and workspace, and waits until its prompt takes input.
// o.Prompt is not used: type it with Type. The server ends with Close.
func StartTerminal(ctx context.Context, tmux string, o Options) (*Terminal, error) {
	o, err := o.prepare()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "claudetest-tmux-")
	if err != nil {
		return nil, fmt.Errorf("tmux socket dir: %w", err)
	}
	term := &Terminal{tmux: tmux, sock: filepath.Join(dir, "sock")}
	// The pane runs env -i: tmux would otherwise hand claude the test's
	// own environment, not o's.
	args := []string{"new-session", "-d", "-s", "claude", "-x", screenCols, "-y", screenRows, "-c", o.Dir, "--",
		"env", "-i"}
	args = append(args, o.Environ()...)
	args = append(args, "TERM=xterm-256color", o.Bin)
	args = append(args, o.commonArgs()...)
	args = append(args, o.Args...)
	if out, err := term.run(ctx, args...); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start claude in tmux: %w: %s", err, out)
	}
	if _, err := term.WaitScreen(ctx, readyMarks...); err != nil {
		term.Close()
		return nil, err
	}
	return term, nil
}

// readyMarks are the hints under the prompt box once it takes input (2.0:
// "? for shortcuts"; 2.1 in its default auto mode: "shift+tab to cycle").
var readyMarks = []string{"for shortcuts", "shift+tab to cycle"}

func (t *Terminal) run(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, t.tmux, append([]string{"-S", t.sock}, args...)...).CombinedOutput()
	return string(out), err
}

// Screen is the pane's text, its scrollback included, with wrapped lines
// joined.
func (t *Terminal) Screen(ctx context.Context) (string, error) {
	out, err := t.run(ctx, "capture-pane", "-p", "-J", "-S", "-", "-t", "claude")
	if err != nil {
		return "", fmt.Errorf("tmux capture-pane: %w: %s", err, out)
	}
	return out, nil
}

// WaitScreen polls the pane until it shows any of texts and returns it.
func (t *Terminal) WaitScreen(ctx context.Context, texts ...string) (string, error) {
	return t.WaitFor(ctx, fmt.Sprintf("%q", texts), func(s string) bool {
		for _, want := range texts {
			if strings.Contains(s, want) {
				return true
			}
		}
		return false
	})
}

// WaitFor polls the pane until ok holds for it (what names the wait in an
// error) and returns it.
func (t *Terminal) WaitFor(ctx context.Context, what string, ok func(screen string) bool) (string, error) {
	for {
		s, err := t.Screen(ctx)
		if err != nil {
			return s, err
		}
		if ok(s) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("the terminal never showed %s: %w\n%s", what, ctx.Err(), s)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Type types text into the prompt box, waits until the box shows it, and
// presses Enter, as a person does (a newline sent along with the text would
// read as part of a paste). 2.0 now and then drops an Enter that comes
// while it redraws; an Enter is pressed again only while the box still
// holds the text, so a prompt is never sent twice.
func (t *Terminal) Type(ctx context.Context, text string) error {
	if strings.ContainsAny(text, "\r\n") {
		return errors.New("claudetest: Type takes one line")
	}
	if out, err := t.run(ctx, "send-keys", "-t", "claude", "-l", text); err != nil {
		return fmt.Errorf("tmux send-keys: %w: %s", err, out)
	}
	if err := t.waitBox(ctx, func(box string) bool { return box == text }); err != nil {
		return err
	}
	for {
		if out, err := t.run(ctx, "send-keys", "-t", "claude", "Enter"); err != nil {
			return fmt.Errorf("tmux send-keys: %w: %s", err, out)
		}
		actx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := t.waitBox(actx, func(box string) bool { return box != text })
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
}

// Press presses one key, by tmux's name for it ("Escape", "C-c"), as a
// person does: Escape stops the turn at work.
func (t *Terminal) Press(ctx context.Context, key string) error {
	if out, err := t.run(ctx, "send-keys", "-t", "claude", key); err != nil {
		return fmt.Errorf("tmux send-keys %s: %w: %s", key, err, out)
	}
	return nil
}

// waitBox polls until the prompt box's text satisfies ok.
func (t *Terminal) waitBox(ctx context.Context, ok func(string) bool) error {
	for {
		s, err := t.Screen(ctx)
		if err != nil {
			return err
		}
		if ok(promptBox(s)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the prompt box holds %q: %w\n%s", promptBox(s), ctx.Err(), s)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// promptBox is the text in the input box: the last line that starts with
// the prompt sign (earlier ones are prompts already sent).
func promptBox(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "❯"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// Close stops claude as a closed terminal window would (SIGHUP), waits for
// it to go, and ends the tmux server.
func (t *Terminal) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if out, err := t.run(ctx, "display-message", "-p", "-t", "claude", "#{pane_pid}"); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(out)); err == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGHUP)
			for syscall.Kill(pid, 0) == nil && ctx.Err() == nil {
				select {
				case <-ctx.Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
			if ctx.Err() != nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	t.run(context.Background(), "kill-server")
	os.RemoveAll(filepath.Dir(t.sock))
}
