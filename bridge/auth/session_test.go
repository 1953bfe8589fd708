package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSessionCookie(t *testing.T) {
	tok, err := LoadOrCreate(filepath.Join(t.TempDir(), "token"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	s := &Sessions{Token: tok, Now: func() time.Time { return now }}
	c, exp := s.Mint()
	if got, ok := s.Valid(c); !ok || !got.Equal(exp) || exp.Sub(now) != SessionTTL {
		t.Fatalf("fresh cookie: valid %v, expires %v", ok, got)
	}
	if c2, _ := s.Mint(); c2 == c {
		t.Error("two cookies are the same")
	}
	if strings.Contains(c, tok.Value()) {
		t.Error("cookie carries the token")
	}
	key := s.PageKey(c)
	if !s.ValidPageKey(c, key) {
		t.Error("page key refused")
	}

	parts := strings.Split(c, ".")
	forged := []string{
		"", "garbage", c + "x", "9" + c, // tampered
		strings.Join([]string{parts[0], "9999999999", parts[2], parts[3]}, "."), // a later expiry, old signature
		strings.Join([]string{"1", parts[1], parts[2], parts[3]}, "."),          // an older start
		strings.Join([]string{parts[0], parts[1], "AAAA", parts[3]}, "."),       // another nonce
	}
	for _, f := range forged {
		if _, ok := s.Valid(f); ok {
			t.Errorf("forged cookie %q accepted", f)
		}
		if s.ValidPageKey(f, key) {
			t.Errorf("page key accepted with forged cookie %q", f)
		}
	}
	c2, _ := s.Mint()
	if s.ValidPageKey(c2, key) || s.ValidPageKey(c, key+"x") || s.ValidPageKey(c, "") {
		t.Error("page key accepted with the wrong cookie")
	}

	// Renewal extends the session and keeps its page key, up to MaxSession.
	now = now.Add(20 * time.Minute)
	renewed, rexp, ok := s.Renew(c)
	if !ok || !rexp.Equal(now.Add(SessionTTL)) || !s.ValidPageKey(renewed, key) {
		t.Fatalf("renew: %v %v", ok, rexp)
	}
	for i := 0; i < 40; i++ {
		now = now.Add(25 * time.Minute)
		if renewed, rexp, ok = s.Renew(renewed); !ok {
			break
		}
	}
	if ok || rexp.After(time.Unix(1_800_000_000, 0).Add(MaxSession)) {
		t.Errorf("renewals outlive MaxSession: %v %v", ok, rexp)
	}

	now = time.Unix(1_800_000_000, 0).Add(SessionTTL)
	if _, ok := s.Valid(c); ok {
		t.Error("expired cookie accepted")
	}
	now = exp.Add(-time.Second)
	ext := s.ExtensionToken()
	if !s.ValidExtensionToken(ext) || s.ValidExtensionToken(tok.Value()) || strings.Contains(ext, tok.Value()) {
		t.Error("extension token")
	}
	tok.Rotate()
	if _, ok := s.Valid(c); ok || s.ValidPageKey(c, key) || s.ValidExtensionToken(ext) {
		t.Error("cookie, page key or extension token survives token rotation")
	}
}

func TestSecretRotatedSignal(t *testing.T) {
	tok, _ := LoadOrCreate(filepath.Join(t.TempDir(), "token"))
	ch := tok.Rotated()
	select {
	case <-ch:
		t.Fatal("signalled before rotation")
	default:
	}
	tok.Rotate()
	select {
	case <-ch:
	default:
		t.Fatal("rotation not signalled")
	}
	select {
	case <-tok.Rotated():
		t.Fatal("new channel already closed")
	default:
	}
}

func TestLinksAreOneTime(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := &Links{Now: func() time.Time { return now }}
	code := l.Mint("ws1")
	if len(code) < 40 {
		t.Errorf("code too short: %d chars", len(code))
	}
	if ws, ok := l.Redeem(code); !ok || ws != "ws1" {
		t.Fatalf("redeem: %q %v", ws, ok)
	}
	if _, ok := l.Redeem(code); ok {
		t.Error("code redeemed twice")
	}
	if _, ok := l.Redeem("made-up"); ok {
		t.Error("unknown code redeemed")
	}
	late := l.Mint("")
	now = now.Add(LinkTTL)
	if _, ok := l.Redeem(late); ok {
		t.Error("expired code redeemed")
	}
}

// A bridge run's browser credentials are worthless to the next run: a
// squatter that held the port in between saw only those. The extension
// token, which no page and no squatter is given, outlives the restart.
func TestCredentialsDieWithTheRun(t *testing.T) {
	tok, _ := LoadOrCreate(filepath.Join(t.TempDir(), "token"))
	first, second := &Sessions{Token: tok}, &Sessions{Token: tok}
	if first.Run() == second.Run() || first.Run() != first.Run() {
		t.Fatalf("runs %q and %q", first.Run(), second.Run())
	}
	c, _ := first.Mint()
	ps, pk := first.PageSecret(c), first.PageKey(c)
	if !strings.HasPrefix(ps, "ps.") || !strings.HasPrefix(pk, "pk.") || !first.ValidPageKey(c, pk) {
		t.Fatalf("first run: secret %q key %q", ps, pk)
	}
	if _, ok := second.Valid(c); ok {
		t.Error("a cookie of the first run is valid in the second")
	}
	c2, _ := second.Mint()
	if second.ValidPageKey(c, pk) || second.ValidPageKey(c2, pk) {
		t.Error("a page key of the first run works in the second")
	}
	if _, _, ok := second.Resume(strings.Join(strings.Split(ps, ".")[1:3], "."), pk); ok {
		t.Error("the first run's page key resumes a session in the second")
	}
	if first.ExtensionToken() != second.ExtensionToken() {
		t.Error("the extension token changed with the run")
	}
}

// An open viewer whose bridge restarted resumes with the page secret it
// holds; nothing else resumes.
func TestResume(t *testing.T) {
	tok, _ := LoadOrCreate(filepath.Join(t.TempDir(), "token"))
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	first, second := &Sessions{Token: tok, Now: clock}, &Sessions{Token: tok, Now: clock}
	c, _ := first.Mint()
	ps := first.PageSecret(c)
	sid := strings.Join(strings.Split(ps, ".")[1:3], ".")
	// The page's own computation: HMAC-SHA-256 keyed with the secret's
	// text, of the run's name, base64url without padding (viewer/session.js).
	key := func(secret, run string) string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(run))
		return "pk." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	now = now.Add(time.Hour)
	resumed, exp, ok := second.Resume(sid, key(ps, second.Run()))
	if !ok || !exp.Equal(now.Add(SessionTTL)) {
		t.Fatalf("resume: %v %v", ok, exp)
	}
	if _, ok := second.Valid(resumed); !ok || second.PageSecret(resumed) != ps || !second.ValidPageKey(resumed, key(ps, second.Run())) {
		t.Error("the resumed session is not the page's own")
	}
	other, _ := first.Mint()
	for name, try := range map[string][2]string{
		"another session's secret": {sid, key(first.PageSecret(other), second.Run())},
		"the old run's key":        {sid, key(ps, first.Run())},
		"a made-up session":        {"1800000000.AAAA", key(ps, second.Run())},
		"no key":                   {sid, ""},
		"garbage":                  {"x", "pk.x"},
	} {
		if _, _, ok := second.Resume(try[0], try[1]); ok {
			t.Errorf("%s: resumed", name)
		}
	}
	now = time.Unix(1_800_000_000, 0).Add(MaxSession)
	if _, _, ok := second.Resume(sid, key(ps, second.Run())); ok {
		t.Error("resumed past MaxSession")
	}
	now = time.Unix(1_800_000_000, 0).Add(MaxSession - time.Minute)
	if _, exp, ok := second.Resume(sid, key(ps, second.Run())); !ok || !exp.Equal(time.Unix(1_800_000_000, 0).Add(MaxSession)) {
		t.Errorf("near MaxSession: %v, expires %v", ok, exp)
	}
}
