// Package auth keeps the bridge's secrets: random tokens in 0600 files,
// compared in constant time, never logged.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// Secret is a random token stored in a file only its owner can read.
type Secret struct {
	path    string
	mu      sync.RWMutex
	value   string
	rotated chan struct{} // closed when the value is replaced
}

// LoadOrCreate reads the secret at path, creating it (and its directory,
// 0700) on first use. A file readable by others is tightened to 0600.
func LoadOrCreate(path string) (*Secret, error) {
	s, err := Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		s = &Secret{path: path}
		if err := s.Rotate(); err != nil {
			return nil, err
		}
		return s, nil
	}
	return s, err
}

// Open reads the secret at path, never creating one: for a process that
// only uses the running bridge's secret (the native host). A file readable
// by others is tightened to 0600.
func Open(path string) (*Secret, error) {
	b, err := regular.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read secret %s: %w", filepath.Base(path), err)
	}
	v := strings.TrimSpace(string(b))
	if len(v) < 32 {
		return nil, fmt.Errorf("secret %s is too short or empty; delete it to have a new one made", path)
	}
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("tighten secret %s to 0600: %w", path, err)
		}
	}
	return &Secret{path: path, value: v}, nil
}

// Read returns the secret stored at path without creating one; clients of
// the running bridge (the CLI, hooks) use it.
func Read(path string) (string, error) {
	b, err := regular.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read secret: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Rotate replaces the secret with a new random one, written atomically.
// Whoever held the old one is cut off.
func (s *Secret) Rotate() error {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("make secret: %w", err)
	}
	v := hex.EncodeToString(b[:])
	if err := atomicfile.Write(s.path, []byte(v+"\n"), 0o600); err != nil {
		return fmt.Errorf("save secret: %w", err)
	}
	s.mu.Lock()
	s.value = v
	if s.rotated != nil {
		close(s.rotated)
		s.rotated = nil
	}
	s.mu.Unlock()
	return nil
}

// Rotated returns a channel closed when the secret is next replaced, so
// whatever was let in with the old one (an open stream) can be cut off.
func (s *Secret) Rotated() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rotated == nil {
		s.rotated = make(chan struct{})
	}
	return s.rotated
}

// Value returns the secret, for handing to an authorised client.
func (s *Secret) Value() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.value
}

// Equal reports whether presented is the secret, in constant time.
func (s *Secret) Equal(presented string) bool {
	v := s.Value()
	return presented != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(v)) == 1
}

// Bearer returns the token of an "Authorization: Bearer <token>" header.
func Bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(h) > len(prefix) && strings.EqualFold(h[:len(prefix)], prefix) {
		return strings.TrimSpace(h[len(prefix):])
	}
	return ""
}

// String hides the value from fmt and loggers.
func (s *Secret) String() string { return "[secret]" }
