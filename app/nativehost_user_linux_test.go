//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/nativehost"
	"conductorbridge/testkit/browsertest"
	"conductorbridge/testkit/usertest"
)

// The native host, tried with a real second OS user: neither the host
// started by that user's Chrome, nor a listener that user holds on the
// bridge's port, gets the owner's credential.

// TestNativeHostAsAnotherUserGetsNoCredential: another account's Chrome
// starts the same host binary, as that account. Pointed at the owner's
// home it cannot read the owner's state; pointed at an address it copied
// from somewhere, it finds the listener is not its user's. The very same
// binary, run as the owner, hands over the credential.
func TestNativeHostAsAnotherUserGetsNoCredential(t *testing.T) {
	other := usertest.Second(t)
	bin := usertest.Runnable(t, binary)
	home := t.TempDir()
	p := startBridgeProc(t, home, 0)
	// Let the other user walk to the state folder: only its own mode (0700,
	// as the bridge makes it) keeps them out.
	for d := home; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secrets := []string{p.token(), extensionTokenOf(t, p.stateDir())}

	// Their Chrome, their host, the owner's home.
	r := runHost(t, bin, other, homeEnv(home), ownExtension+"/", frames(connectMsg))
	noCredential(t, "another user's host on the owner's home", r, nativehost.CodeState, secrets)
	if !strings.Contains(r.replies[0].Error, "permission denied") {
		t.Errorf("refused for another reason: %s", r.replies[0].Error)
	}

	// Their Chrome, their host, their own state naming the owner's port.
	theirs := usertest.Home(t, other)
	state := filepath.Join(theirs, ".local", "state", "conductor-bridge")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeRunFile(state, strings.TrimPrefix(p.base, "http://")); err != nil {
		t.Fatal(err)
	}
	usertest.Chown(t, theirs, other)
	r = runHost(t, bin, other, homeEnv(theirs), ownExtension+"/", frames(connectMsg))
	noCredential(t, "another user's host aimed at the owner's bridge", r, nativehost.CodeNotYours, secrets)

	// The owner's host, the same binary: in.
	r = runHost(t, bin, nil, homeEnv(home), ownExtension+"/", frames(connectMsg))
	if len(r.replies) != 1 || r.replies[0].Token != secrets[1] {
		t.Fatalf("the owner's host: %+v %s", r.replies, r.stderr)
	}
}

// TestNativeHostRefusesAPortHeldByAnotherUser: the bridge crashed and left
// its address behind; another account now listens on that port and
// answers /health exactly as a bridge does. The host sends it nothing and
// hands the panel no credential. The same program run as the owner passes
// the host's check: it is the listener's owner that decides.
func TestNativeHostRefusesAPortHeldByAnotherUser(t *testing.T) {
	other := usertest.Second(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "conductor-bridge")
	tok, err := auth.LoadOrCreate(filepath.Join(state, tokenFile))
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{tok.Value(), (&auth.Sessions{Token: tok}).ExtensionToken()}

	sq := startSquatter(t, usertest.Runnable(t, self), other)
	if err := writeRunFile(state, fmt.Sprintf("127.0.0.1:%d", sq.port)); err != nil {
		t.Fatal(err)
	}
	r := runHost(t, binary, nil, homeEnv(home), ownExtension+"/", frames(connectMsg))
	noCredential(t, "a port another user holds", r, nativehost.CodeNotYours, secrets)
	if got := sq.stop(); got != "" {
		t.Errorf("the other user's listener received %q", got)
	}

	mine := startSquatter(t, self, nil)
	if err := writeRunFile(state, fmt.Sprintf("127.0.0.1:%d", mine.port)); err != nil {
		t.Fatal(err)
	}
	r = runHost(t, binary, nil, homeEnv(home), ownExtension+"/", frames(connectMsg))
	if len(r.replies) != 1 || r.replies[0].Port != mine.port || r.replies[0].Token != secrets[1] {
		t.Errorf("the owner's own listener: %+v %s", r.replies, r.stderr)
	}
}

// noCredential checks that the host refused with code and gave away none
// of secrets.
func noCredential(t *testing.T, what string, r hostRun, code string, secrets []string) {
	t.Helper()
	if len(r.replies) != 1 || r.replies[0].Code != code || r.replies[0].Token != "" || r.replies[0].Port != 0 {
		t.Fatalf("%s: %+v (stderr %s), want one refusal %s", what, r.replies, r.stderr, code)
	}
	for _, s := range secrets {
		if strings.Contains(replyText(r.replies)+r.stderr, s) {
			t.Errorf("%s: a secret in the host's answer", what)
		}
	}
}

// extensionTokenOf is the browser credential of the bridge on stateDir.
func extensionTokenOf(t *testing.T, stateDir string) string {
	t.Helper()
	tok, err := auth.Open(filepath.Join(stateDir, tokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return (&auth.Sessions{Token: tok}).ExtensionToken()
}

// TestSidePanelIgnoresASquatter: in real Chromium, the bridge stops and
// another account takes its port, answering /health as a bridge would,
// while a crashed bridge's address still points there. The panel says
// another user holds the port and sends that listener nothing; when the
// real bridge is back, on another port, it follows it.
func TestSidePanelIgnoresASquatter(t *testing.T) {
	other := usertest.Second(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := newPanelEnv(t)
	e.cli("pair", "tokyo")
	e.poll("tokyo shown", `document.querySelector('#workspace').textContent.includes('tokyo') && document.querySelector('#notice').hidden`)

	sq := startSquatter(t, usertest.Runnable(t, self), other)
	e.p.kill(syscall.SIGTERM)
	e.poll("the not-running state", `document.querySelector('#notice').dataset.state === 'Start Conductor Bridge'`)
	if err := writeRunFile(e.p.stateDir(), fmt.Sprintf("127.0.0.1:%d", sq.port)); err != nil {
		t.Fatal(err)
	}
	e.poll("the squatter named", `document.querySelector('#notice').dataset.state === "Another user holds the bridge's port" && document.querySelector('#composer').hidden`)
	if got := sq.stop(); got != "" {
		t.Errorf("the other user's listener received %q", got)
	}

	e.tokyo.prompt("written while a squatter held the port")
	e.restartOnAnotherPort()
	e.poll("back with the real bridge", `[...document.querySelectorAll('.bubble.you')].some(n => n.textContent.includes('while a squatter held the port')) && document.querySelector('#notice').hidden`)
}

// TestSidePanelSendsNothingToASquatterOnItsPort: the bridge dies and
// another account takes the very port the panel was signed in on. The
// panel must not send that listener its extension token (nor follow its
// stream there with the cookie): it forgets the credential at the first
// failure and asks the native host, which finds the listener is not the
// user's. Counted over three of the panel's own tries after it says so.
func TestSidePanelSendsNothingToASquatterOnItsPort(t *testing.T) {
	e := newPanelEnv(t)
	e.cli("pair", "tokyo")
	e.poll("tokyo shown", `document.querySelector('#workspace').textContent.includes('tokyo') && document.querySelector('#notice').hidden`)
	// Each try of the panel's ends in a question to the native host.
	browsertest.Eval[bool](t, e.ctx, `(() => {
		window.asks = 0;
		const ask = chrome.runtime.sendNativeMessage.bind(chrome.runtime);
		chrome.runtime.sendNativeMessage = (...a) => { window.asks++; return ask(...a); };
		return true;
	})()`)

	e.p.kill(syscall.SIGKILL)
	sq := startImpostor(t, e.addr)
	e.poll("the squatter named", `document.querySelector('#notice').dataset.state === "Another user holds the bridge's port"`)
	asked := browsertest.Eval[int](t, e.ctx, `window.asks`)
	e.poll("three more tries", fmt.Sprintf(`window.asks >= %d`, asked+3))
	reqs := sq.stop()
	for _, r := range reqs {
		t.Errorf("the other user's listener got %s %s (authorization %t, cookie %t)", r.Method, r.Path, r.Auth != "", r.Cookie != "")
	}
}
