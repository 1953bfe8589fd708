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

// SessionTTL is how long a browser session cookie is valid before it must
// be renewed.
const SessionTTL = 30 * time.Minute

// MaxSession bounds renewals: a viewer left open signs in again after this.
const MaxSession = 12 * time.Hour

// Sessions mints and checks the browser's credentials, all derived from the
// API token so that nothing needs storing: they survive a bridge restart (a
// viewer open across one reconnects by itself), and rotating the token
// voids every one at once.
//
//   - The session cookie (start.expiry.nonce.mac) is for reads only. Like
//     every cookie it is sent to every port of 127.0.0.1, so it must not be
//     worth more than a read.
//   - A page key lets the built-in viewer change state. It is handed out
//     only when a one-time link is redeemed, in the URL fragment (which no
//     server ever sees), and it is bound to that link's session: renewing
//     the cookie keeps it valid, another cookie does not.
//   - The extension token is what an allow-listed extension gets: a
//     browser-scoped credential (paired workspaces only, no local control),
//     never the API token itself.
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
	m.Write([]byte("conductor-bridge browser session v2"))
	return m.Sum(nil)
}

func (s *Sessions) sign(parts ...string) string {
	m := hmac.New(sha256.New, s.key())
	m.Write([]byte(strings.Join(parts, "|")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// session is a parsed cookie.
type session struct {
	start, exp time.Time
	nonce      string
}

func (s *Sessions) cookie(sess session) string {
	st, e := strconv.FormatInt(sess.start.Unix(), 10), strconv.FormatInt(sess.exp.Unix(), 10)
	return st + "." + e + "." + sess.nonce + "." + s.sign("session", st, e, sess.nonce)
}

func (s *Sessions) parse(cookie string) (session, bool) {
	parts := strings.Split(cookie, ".")
	if len(parts) != 4 {
		return session{}, false
	}
	if subtle.ConstantTimeCompare([]byte(parts[3]), []byte(s.sign("session", parts[0], parts[1], parts[2]))) != 1 {
		return session{}, false
	}
	st, err1 := strconv.ParseInt(parts[0], 10, 64)
	e, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return session{}, false
	}
	sess := session{start: time.Unix(st, 0), exp: time.Unix(e, 0), nonce: parts[2]}
	if !s.now().Before(sess.exp) {
		return session{}, false
	}
	return sess, true
}

// Mint starts a new session: its cookie value and when that expires.
func (s *Sessions) Mint() (string, time.Time) {
	var nonce [16]byte
	rand.Read(nonce[:])
	now := s.now().Truncate(time.Second)
	sess := session{start: now, exp: now.Add(SessionTTL), nonce: base64.RawURLEncoding.EncodeToString(nonce[:])}
	return s.cookie(sess), sess.exp
}

// Valid reports whether a cookie value is one this bridge minted with its
// current token and not yet expired, and when it expires.
func (s *Sessions) Valid(cookie string) (time.Time, bool) {
	sess, ok := s.parse(cookie)
	return sess.exp, ok
}

// Renew extends a valid cookie's session by SessionTTL, up to MaxSession
// after it began. The page key stays the same.
func (s *Sessions) Renew(cookie string) (string, time.Time, bool) {
	sess, ok := s.parse(cookie)
	if !ok {
		return "", time.Time{}, false
	}
	exp := s.now().Truncate(time.Second).Add(SessionTTL)
	if limit := sess.start.Add(MaxSession); exp.After(limit) {
		exp = limit
	}
	if !exp.After(sess.exp) {
		return cookie, sess.exp, true
	}
	sess.exp = exp
	return s.cookie(sess), exp, true
}

// PageKey returns the page key of a cookie's session.
func (s *Sessions) PageKey(cookie string) string {
	sess, ok := s.parse(cookie)
	if !ok {
		return ""
	}
	return "pk." + s.sign("page", strconv.FormatInt(sess.start.Unix(), 10), sess.nonce)
}

// ValidPageKey reports whether key is the page key of a valid cookie.
func (s *Sessions) ValidPageKey(cookie, key string) bool {
	want := s.PageKey(cookie)
	return want != "" && subtle.ConstantTimeCompare([]byte(key), []byte(want)) == 1
}

// ExtensionToken is the credential an allow-listed extension receives.
func (s *Sessions) ExtensionToken() string {
	return "ext." + s.sign("extension")
}

// ValidExtensionToken reports whether t is the current extension token.
func (s *Sessions) ValidExtensionToken(t string) bool {
	return strings.HasPrefix(t, "ext.") && subtle.ConstantTimeCompare([]byte(t), []byte(s.ExtensionToken())) == 1
}
