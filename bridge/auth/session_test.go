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

	e, rest, _ := strings.Cut(c, ".")
	forged := []string{
		"", "garbage", c + "x", "9" + c, // tampered expiry or MAC
		"9999999999." + rest, // a later expiry, old signature
		e + ".AAAA." + strings.SplitN(c, ".", 3)[2],
	}
	for _, f := range forged {
		if _, ok := s.Valid(f); ok {
			t.Errorf("forged cookie %q accepted", f)
		}
	}
	c2, _ := s.Mint()
	if s.ValidPageKey(c2, key) || s.ValidPageKey(c, key+"x") || s.ValidPageKey(c, "") {
		t.Error("page key accepted with the wrong cookie")
	}

	now = exp
	if _, ok := s.Valid(c); ok {
		t.Error("expired cookie accepted")
	}
	now = exp.Add(-time.Second)
	tok.Rotate()
	if _, ok := s.Valid(c); ok || s.ValidPageKey(c, key) {
		t.Error("cookie or page key survives token rotation")
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
