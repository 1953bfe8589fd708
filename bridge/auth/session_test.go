package auth

import (
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
