package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CookieName is the browser session cookie (HttpOnly, SameSite=Strict).
const CookieName = "cb_session"

// SessionTTL is how long a browser session cookie is valid before it must
// be renewed.
const SessionTTL = 30 * time.Minute

// MaxSession bounds renewals: a viewer left open signs in again after this.
const MaxSession = 12 * time.Hour

// Sessions mints and checks the browser's credentials. None is stored:
// each is derived from the API token (rotating it voids them all) and,
// but for the extension token, from a secret of this bridge run that
// exists only in its memory.
//
//   - The session cookie (start.expiry.nonce.mac) is for reads only. Like
//     every cookie it is sent to every port of 127.0.0.1, and to whoever
//     listens on the bridge's own port while the bridge is down, so it
//     must not be worth more than a read, and it is worth nothing to
//     another run of the bridge.
//   - The page secret ("ps.start.nonce.mac") names a viewer's session. It
//     reaches the page once, in the URL fragment of a one-time link's
//     redirect (no server sees a fragment), and the page keeps it in
//     memory only: no storage, no request carries it.
//   - The page key ("pk.…") is what the page sends to change state: an
//     HMAC of this run's public name (Run) keyed with the page secret, so
//     the page works it out for itself, a key sent to a squatter on the
//     port is useless to the real bridge's next run, and the page secret
//     never travels. Renewing the cookie keeps it valid; another cookie
//     does not.
//   - Resume: an open page whose bridge restarted proves it holds its
//     page secret with the new run's page key and gets a cookie of the
//     new run (at most MaxSession after its link was opened). A page that
//     did not come from the bridge's link (a squatter's, loaded while the
//     bridge was down) never had a page secret, so it cannot.
//   - The extension token is what an allow-listed extension gets: a
//     browser-scoped credential (paired workspaces only, no local control),
//     never the API token itself. It outlives restarts (the extension asks
//     for it again only on a 401).
type Sessions struct {
	Token *Secret
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	runOnce sync.Once
	run     [32]byte // this run's secret, in memory only
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

// runKey derives this run's signing key from the token's and the run's
// secret.
func (s *Sessions) runKey() []byte {
	s.runOnce.Do(func() { rand.Read(s.run[:]) })
	m := hmac.New(sha256.New, s.key())
	m.Write([]byte("run|"))
	m.Write(s.run[:])
	return m.Sum(nil)
}

func mac(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(parts, "|")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Sessions) sign(parts ...string) string { return mac(s.key(), parts...) }

// Run is this bridge run's public name, which pages derive their page key
// from. A restart (or a token rotation) changes it.
func (s *Sessions) Run() string { return "r." + mac(s.runKey(), "run name")[:22] }

// session is a parsed cookie.
type session struct {
	start, exp time.Time
	nonce      string
}

func (s *Sessions) cookie(sess session) string {
	st, e := strconv.FormatInt(sess.start.Unix(), 10), strconv.FormatInt(sess.exp.Unix(), 10)
	return st + "." + e + "." + sess.nonce + "." + mac(s.runKey(), "session", st, e, sess.nonce)
}

func (s *Sessions) parse(cookie string) (session, bool) {
	parts := strings.Split(cookie, ".")
	if len(parts) != 4 {
		return session{}, false
	}
	if subtle.ConstantTimeCompare([]byte(parts[3]), []byte(mac(s.runKey(), "session", parts[0], parts[1], parts[2]))) != 1 {
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

// pageSecret is the page secret of the session that began at start with
// nonce.
func (s *Sessions) pageSecret(start, nonce string) string {
	return "ps." + start + "." + nonce + "." + s.sign("page secret", start, nonce)
}

// PageSecret returns the page secret of a cookie's session: what a
// one-time link hands the page, in its fragment.
func (s *Sessions) PageSecret(cookie string) string {
	sess, ok := s.parse(cookie)
	if !ok {
		return ""
	}
	return s.pageSecret(strconv.FormatInt(sess.start.Unix(), 10), sess.nonce)
}

// pageKey is the page key of a page secret in this run: what the page
// computes with WebCrypto (HMAC-SHA-256 keyed with the secret's text, of
// Run's text, base64url without padding).
func (s *Sessions) pageKey(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(s.Run()))
	return "pk." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// PageKey returns this run's page key of a cookie's session.
func (s *Sessions) PageKey(cookie string) string {
	ps := s.PageSecret(cookie)
	if ps == "" {
		return ""
	}
	return s.pageKey(ps)
}

// ValidPageKey reports whether key is this run's page key of a valid cookie.
func (s *Sessions) ValidPageKey(cookie, key string) bool {
	want := s.PageKey(cookie)
	return want != "" && subtle.ConstantTimeCompare([]byte(key), []byte(want)) == 1
}

// Resume starts this run's cookie for a page whose bridge restarted: the
// page names its session (start.nonce, the middle of its page secret) and
// proves it holds the page secret with this run's page key. The session
// keeps its start, so MaxSession still counts from the link's opening.
func (s *Sessions) Resume(sid, key string) (cookie string, exp time.Time, ok bool) {
	start, nonce, ok := strings.Cut(sid, ".")
	st, err := strconv.ParseInt(start, 10, 64)
	if !ok || err != nil || nonce == "" || strings.Contains(nonce, ".") {
		return "", time.Time{}, false
	}
	want := s.pageKey(s.pageSecret(start, nonce))
	if subtle.ConstantTimeCompare([]byte(key), []byte(want)) != 1 {
		return "", time.Time{}, false
	}
	now := s.now().Truncate(time.Second)
	limit := time.Unix(st, 0).Add(MaxSession)
	if !now.Before(limit) || time.Unix(st, 0).After(now) {
		return "", time.Time{}, false
	}
	exp = now.Add(SessionTTL)
	if exp.After(limit) {
		exp = limit
	}
	sess := session{start: time.Unix(st, 0), exp: exp, nonce: nonce}
	return s.cookie(sess), exp, true
}

// ExtensionToken is the credential an allow-listed extension receives.
func (s *Sessions) ExtensionToken() string {
	return "ext." + s.sign("extension")
}

// ValidExtensionToken reports whether t is the current extension token.
func (s *Sessions) ValidExtensionToken(t string) bool {
	return strings.HasPrefix(t, "ext.") && subtle.ConstantTimeCompare([]byte(t), []byte(s.ExtensionToken())) == 1
}
