package discover

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// PathID returns the id of a workspace Conductor's database does not know:
// "p-" and the first 12 hex digits of the SHA-256 of the cleaned path. It
// depends on nothing but the path, so it is the same after a restart; it is
// short and URL-safe; and hashing keeps the path itself out of URLs. Callers
// pass the resolved Directory so that every spelling of one directory shares
// an id.
func PathID(dir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(dir)))
	return "p-" + hex.EncodeToString(sum[:6])
}

// resolvePath returns p made absolute with its symlinks resolved. Where p
// does not exist (an archived workspace, a deleted project) the deepest
// existing ancestor is resolved and the rest appended, so a directory keeps
// one spelling whether or not it exists today (on macOS /var and /tmp are
// links into /private).
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs
	}
	return filepath.Join(resolvePath(parent), filepath.Base(abs))
}

// within reports whether p is root or lies under it. Both must be clean.
func within(p, root string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// isDir reports whether p exists and is a directory (following symlinks).
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
