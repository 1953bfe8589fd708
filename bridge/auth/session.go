package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// CookieName is the browser session cookie (HttpOnly, SameSite=Strict).
const CookieName = "cb_session"

// SessionTTL is how long a browser session cookie is valid.
const SessionTTL = 30 * time.Minute

// Sessions mints and checks browser session cookies and the page keys
// derived from them.
//
// A cookie is an expiry and a nonce signed with a key derived from the API
// token. Nothing is stored: cookies survive a bridge restart (a viewer open
// across one reconnects without asking the user again), and rotating the
// token voids every cookie and page key at once.
//
// A cookie is accepted for reads only. The built-in viewer, which never
// sees the token, changes state with a page key: a second credential bound
// to its cookie, handed to the viewer's own script by a cookie-authenticated
// read that no other origin can make (see api).
type Sessions struct {
	Token *Secret
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Sessions) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// key derives the signing key from the current token.
func (s *Sessions) key() []byte {
	m := hmac.New(sha256.New, []byte(s.Token.Value()))
	m.Write([]byte("conductor-bridge browser session v1"))
	return m.Sum(nil)
}

func (s *Sessions) sign(parts ...string) string {
	m := hmac.New(sha256.New, s.key())
	m.Write([]byte(strings.Join(parts, "|")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Mint returns a new cookie value and when it expires.
func (s *Sessions) Mint() (string, time.Time) {
	exp := s.now().Add(SessionTTL).Truncate(time.Second)
	var nonce [16]byte
	rand.Read(nonce[:])
	e := strconv.FormatInt(exp.Unix(), 10)
	n := base64.RawURLEncoding.EncodeToString(nonce[:])
	return e + "." + n + "." + s.sign("session", e, n), exp
}

// Valid reports whether a cookie value is one this bridge minted with its
// current token and not yet expired, and when it expires.
func (s *Sessions) Valid(cookie string) (time.Time, bool) {
	e, rest, ok := strings.Cut(cookie, ".")
	if !ok {
		return time.Time{}, false
	}
	n, mac, ok := strings.Cut(rest, ".")
	if !ok {
		return time.Time{}, false
	}
	if subtle.ConstantTimeCompare([]byte(mac), []byte(s.sign("session", e, n))) != 1 {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(e, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	exp := time.Unix(sec, 0)
	if !s.now().Before(exp) {
		return time.Time{}, false
	}
	return exp, true
}

// PageKey returns the page key bound to a cookie value.
func (s *Sessions) PageKey(cookie string) string {
	return "pk." + s.sign("page", cookie)
}

// ValidPageKey reports whether key is the page key of a valid cookie.
func (s *Sessions) ValidPageKey(cookie, key string) bool {
	if _, ok := s.Valid(cookie); !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(key), []byte(s.PageKey(cookie))) == 1
}
