package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// LinkTTL is how long a one-time link may wait before it is opened.
const LinkTTL = 5 * time.Minute

// Links are one-time codes for the viewer's pairing link: opening the link
// trades the code for a session cookie, and the code is gone. Codes live in
// memory only (a link printed before a restart is simply opened again with
// `conductor-bridge open`), and only their hashes are kept, so not even a
// memory dump hands one out.
type Links struct {
	mu    sync.Mutex
	codes map[[32]byte]link
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type link struct {
	workspace string
	expires   time.Time
}

func (l *Links) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Mint returns a new code that opens the viewer on workspace ("" for the
// viewer's own choice).
func (l *Links) Mint(workspace string) string {
	var b [32]byte
	rand.Read(b[:])
	code := base64.RawURLEncoding.EncodeToString(b[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.codes == nil {
		l.codes = map[[32]byte]link{}
	}
	now := l.now()
	for h, c := range l.codes { // forget expired codes as new ones come
		if !now.Before(c.expires) {
			delete(l.codes, h)
		}
	}
	l.codes[sha256.Sum256([]byte(code))] = link{workspace: workspace, expires: now.Add(LinkTTL)}
	return code
}

// Redeem uses up a code. It reports the workspace the link was made for,
// and false for a code that is unknown, expired or already used.
func (l *Links) Redeem(code string) (workspace string, ok bool) {
	h := sha256.Sum256([]byte(code))
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.codes[h]
	if !ok {
		return "", false
	}
	delete(l.codes, h)
	if !l.now().Before(c.expires) {
		return "", false
	}
	return c.workspace, true
}
