// Package browsertest starts a real Chromium for tests and drives it with
// chromedp. A machine without Chromium skips those tests, except under
// CI=true, where a missing browser is a failure: CI installs it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Find returns the path of Chromium (or Chrome).
func Find(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Chromium is not installed (CI installs the Debian package chromium)")
	}
	t.Skip("Chromium not installed; install it (Debian: apt-get install chromium) to run browser tests")
	return ""
}

// New starts a headless Chromium with a fresh profile and returns the
// context of its first tab. The browser goes away when the test ends.
func New(t testing.TB, exe string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, // tests run as root in CI, where the sandbox refuses to start
		chromedp.DisableGPU,
		// This machine's network is closed: keep Chromium from trying.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// Start the browser now, so a broken install fails here, clearly. (The
	// first run's context owns the browser: it must be ctx itself.)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium %s: %v", exe, err)
	}
	return ctx
}

// Poll waits until the JavaScript expression is truthy, or fails the test
// after limit, saying what it waited for.
func Poll(t testing.TB, ctx context.Context, what, expr string, limit time.Duration) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		_, err := chromedp.Run(c, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(10*time.Millisecond)))
		if err == nil {
			return
		}
		// Just after a navigation, chromedp may still hold the execution
		// context of the document the tab left (its event announcing the
		// new one not yet handled, on a busy machine): Chromium answers
		// that it has no such context. The page is there; ask again in the
		// context chromedp has learned since.
		if c.Err() == nil && staleContext(err) {
			continue
		}
		t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// staleContext reports whether err is Chromium's answer to an evaluation in
// an execution context that a navigation has torn down.
func staleContext(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed")
}

// Eval evaluates a JavaScript expression and decodes its value.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}
