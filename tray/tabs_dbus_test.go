//go:build linux

package tray

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/pairing"
	"conductorbridge/testkit/dbustest"
)

const tabsChildEnv = "TRAY_TABS_DBUS_CHILD"

// TestTabsNotifyOverRealDBus: two tabs of one workspace finish together;
// the real desktop notifier (beeep over org.freedesktop.Notifications)
// sends exactly two notifications, each naming its workspace and tab,
// which a fake notification server on a private D-Bus receives. The menu
// runs in a child process: godbus connects to the session bus once per
// process.
func TestTabsNotifyOverRealDBus(t *testing.T) {
	if os.Getenv(tabsChildEnv) != "" {
		t.Skip("the child's side runs in TestTabsNotifyChild")
	}
	bus := dbustest.Start(t)
	notes := bus.Notifications(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTabsNotifyChild$")
	cmd.Env = append(bus.Environ(), tabsChildEnv+"=1", "HOME="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	all := notes.All()
	var got []string
	for _, n := range all {
		got = append(got, n.Summary+" | "+n.Body)
	}
	want := []string{
		"Login revamp · Fix login · Claude finished | Login fixed.\n$0.50 · 40s",
		"Login revamp · 019a-cod · Codex finished | Handler renamed.\n$0.25 · 50s",
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("notifications over D-Bus:\n got %q\nwant %q\nchild:\n%s", got, want, out.String())
	}
	for _, n := range all {
		if n.AppName != "Conductor Bridge" {
			t.Errorf("app name %q", n.AppName)
		}
	}
}

// TestTabsNotifyChild is the child of TestTabsNotifyOverRealDBus: a Menu
// with the real notifier, and two tabs finishing in one workspace.
func TestTabsNotifyChild(t *testing.T) {
	if os.Getenv(tabsChildEnv) == "" {
		t.Skip("run by TestTabsNotifyOverRealDBus")
	}
	pairs, err := pairing.Open(filepath.Join(t.TempDir(), "pairing.json"))
	if err != nil {
		t.Fatal(err)
	}
	eng := newFakeEngine(tabbed(time.Now()))
	sent := make(chan struct{}, 4)
	shell := &fakeShell{clicks: make(chan Action)}
	m := New(Config{Engine: eng, Pairing: pairs, Shell: shell, Notifier: countingNotifier{NewDesktopNotifier(), sent},
		Settings: DefaultSettings(), Log: zerolog.New(os.Stderr), Coalesce: 300 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	r := &rig{eng: eng, shell: shell}
	// Once the menu is drawn it follows the streams: what comes next is news.
	r.eventually(t, "first menu", func() bool { return shell.last() != nil })
	publishAs(r, "c1", "aaaaaaaa-1111", event.Event{Type: event.Assistant, Content: "Login fixed."})
	publishAs(r, "c1", "019a-codex-thread", event.Event{Type: event.Assistant, Content: "Handler renamed."})
	publishAs(r, "c1", "aaaaaaaa-1111", event.Event{Type: event.TurnComplete, TS: time.Now(), CostUSD: 0.5, CostKnown: true, DurationMS: 40000})
	publishAs(r, "c1", "019a-codex-thread", event.Event{Type: event.TurnComplete, TS: time.Now(), CostUSD: 0.25, CostKnown: true, DurationMS: 50000})
	for i := 0; i < 2; i++ {
		select {
		case <-sent:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of 2 notifications sent", i)
		}
	}
	// Past another coalescing window: nothing more may follow.
	time.Sleep(600 * time.Millisecond)
	if n := len(sent); n != 0 {
		t.Errorf("%d notifications more than 2", n)
	}
}

// countingNotifier says when each notification has been sent.
type countingNotifier struct {
	n    Notifier
	sent chan<- struct{}
}

func (c countingNotifier) Notify(title, body string) error {
	err := c.n.Notify(title, body)
	c.sent <- struct{}{}
	return err
}
