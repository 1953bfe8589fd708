package discover

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
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
	return resolver{}.resolve(p)
}

// resolver is resolvePath remembering the directories it has resolved. The
// paths of one scan share their parents, so each directory costs one lstat
// per scan instead of one per path below it (filepath.EvalSymlinks looks at
// every component every time). Use one resolver per scan: a link changed
// later is only seen by a new one.
type resolver map[string]string

func (r resolver) resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return r.resolveAbs(abs)
}

// resolveAbs resolves a clean absolute path.
func (r resolver) resolveAbs(p string) string {
	if v, ok := r[p]; ok {
		return v
	}
	out := p
	if parent := filepath.Dir(p); parent != p { // not the root
		out = filepath.Join(r.resolveAbs(parent), filepath.Base(p))
		if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := filepath.EvalSymlinks(out); err == nil {
				out = target
			}
		}
	}
	r[p] = out
	return out
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
