package discover

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// Registry is the list of directories the bridge was asked to adopt
// (POST /api/workspaces), kept in a JSON file of its own (DESIGN.md, "Data
// sources" 3). It is safe for concurrent use.
//
// A file that cannot be parsed is never overwritten: Load reports it, and
// Add and Remove refuse to write until a Load succeeds, so a user's list is
// not lost to a bug or a half-written file from another tool.
type Registry struct {
	path string

	mu     sync.Mutex
	loaded bool
	dirs   []string // resolved, sorted, unique
}

// registryVersion is written into the file so that a future format can be
// told apart from this one.
const registryVersion = 1

// registryFile is the on-disk format.
type registryFile struct {
	Version     int      `json:"version"`
	Directories []string `json:"directories"`
}

// NewRegistry returns a registry backed by the file at path, which need not
// exist yet. Call Load before List.
func NewRegistry(path string) *Registry {
	return &Registry{path: path}
}

// Load reads the file. A missing file is an empty registry.
func (r *Registry) Load() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loadLocked()
}

func (r *Registry) loadLocked() error {
	b, err := regular.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		r.dirs, r.loaded = nil, true
		return nil
	}
	if err != nil {
		return fmt.Errorf("load registry: %w", err)
	}
	var f registryFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("load registry %s: the file is corrupt and was left untouched (fix or remove it): %w", r.path, err)
	}
	if f.Version > registryVersion {
		return fmt.Errorf("load registry %s: written by a newer bridge (format %d, this one reads %d); left untouched", r.path, f.Version, registryVersion)
	}
	var dirs []string
	for _, d := range f.Directories {
		if filepath.IsAbs(d) {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	slices.Sort(dirs)
	r.dirs, r.loaded = slices.Compact(dirs), true
	return nil
}

// List returns the registered directories, sorted.
func (r *Registry) List() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.dirs)
}

// Add registers dir, an absolute path, stored symlink-resolved. It reports
// false if dir was registered already.
func (r *Registry) Add(dir string) (bool, error) {
	if !filepath.IsAbs(dir) {
		return false, fmt.Errorf("register %q: not an absolute path", dir)
	}
	d := resolvePath(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensureLoaded(); err != nil {
		return false, err
	}
	if _, found := slices.BinarySearch(r.dirs, d); found {
		return false, nil
	}
	next := slices.Clone(r.dirs)
	next = append(next, d)
	slices.Sort(next)
	if err := r.save(next); err != nil {
		return false, err
	}
	r.dirs = next
	return true, nil
}

// Remove unregisters dir, given as registered or in any spelling that
// resolves to it. It reports false if dir was not registered.
func (r *Registry) Remove(dir string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensureLoaded(); err != nil {
		return false, err
	}
	// The directory may be gone, or its links changed, since it was added:
	// match the spelling given as well as its resolution today.
	clean, resolved := filepath.Clean(dir), resolvePath(dir)
	next := slices.DeleteFunc(slices.Clone(r.dirs), func(d string) bool {
		return d == clean || d == resolved
	})
	if len(next) == len(r.dirs) {
		return false, nil
	}
	if err := r.save(next); err != nil {
		return false, err
	}
	r.dirs = next
	return true, nil
}

// ensureLoaded loads the file if no Load has succeeded yet, so that a write
// never replaces entries it has not seen.
func (r *Registry) ensureLoaded() error {
	if r.loaded {
		return nil
	}
	return r.loadLocked()
}

func (r *Registry) save(dirs []string) error {
	b, err := json.MarshalIndent(registryFile{Version: registryVersion, Directories: dirs}, "", "  ")
	if err != nil {
		return fmt.Errorf("save registry: %w", err)
	}
	if err := atomicfile.Write(r.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save registry: %w", err)
	}
	return nil
}

// ScanRegistered turns registered directories into workspaces. A directory
// that no longer exists is skipped: it may come back (a remounted disk), and
// dropping it is the user's call.
func ScanRegistered(dirs []string) []Workspace {
	var out []Workspace
	seen := make(map[string]bool)
	r := resolver{}
	for _, dir := range dirs {
		d := r.resolve(dir)
		if seen[d] || !isDir(d) {
			continue
		}
		seen[d] = true
		w := Workspace{
			Name:      filepath.Base(d),
			Directory: d,
			Source:    SourceRegistered,
		}
		// A directory that is no longer a git checkout is still listed:
		// it was registered, and an agent can still run in it.
		if co, err := readCheckout(d); err == nil {
			w.Repo, w.Branch = co.repo(), co.Branch
		}
		out = append(out, w)
	}
	return out
}
