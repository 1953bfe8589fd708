package codex

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/regular"
)

// SessionFile is one rollout file and what its session_meta line says.
type SessionFile struct {
	ThreadID   string
	Cwd        string
	CLIVersion string
	Originator string // "codex_exec", "codex_cli_rs", "codex_vscode", … as Codex wrote it
	Path       string
	ModTime    time.Time
	Size       int64
}

// maxMetaLine bounds the first line read: 0.169 puts the whole base
// instructions into session_meta (tens of KB), never megabytes.
const maxMetaLine = 4 << 20

// SessionsDir is where Codex keeps its rollout files:
// sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl. 0.169 still writes
// them live, beside its SQLite stores (state_*.sqlite, …), which the bridge
// does not read.
func SessionsDir(codexHome string) string { return filepath.Join(codexHome, "sessions") }

// Locator lists rollout files, remembering each file's session_meta by
// path, modification time and size so a rescan reads only new files. It is
// safe for concurrent use.
type Locator struct {
	mu    sync.Mutex
	cache map[string]SessionFile
}

// Sessions lists the rollout files under codexHome modified at or after
// since (zero: all), newest first, without a cache. Use a Locator to scan
// repeatedly.
func Sessions(codexHome string, since time.Time) ([]SessionFile, error) {
	var l Locator
	return l.Sessions(codexHome, since)
}

// Sessions lists the rollout files under codexHome modified at or after
// since (zero: all), newest first. A file whose first line is not a
// session_meta yet (being created) or cannot be read is left out; a
// missing sessions folder is no error.
func (l *Locator) Sessions(codexHome string, since time.Time) ([]SessionFile, error) {
	var out []SessionFile
	seen := map[string]bool{}
	root := SessionsDir(codexHome)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if path == root {
				return err
			}
			return nil // an unreadable day folder hides only itself
		}
		if d.IsDir() || !isRollout(d.Name()) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.ModTime().Before(since) {
			return nil
		}
		seen[path] = true
		sf, ok := l.cached(path, fi)
		if !ok {
			meta, err := readMeta(path)
			if err != nil {
				return nil
			}
			sf = meta
			sf.Path, sf.ModTime, sf.Size = path, fi.ModTime(), fi.Size()
			l.store(sf)
		}
		out = append(out, sf)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list codex sessions in %s: %w", root, err)
	}
	l.prune(seen, since)
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ModTime.Equal(out[j].ModTime) {
			return out[i].ModTime.After(out[j].ModTime)
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

func (l *Locator) cached(path string, fi fs.FileInfo) (SessionFile, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sf, ok := l.cache[path]
	if !ok {
		return sf, false
	}
	// The meta never changes once written; a new size or mtime only moves
	// those. A replaced file (same path, smaller) is read again.
	if fi.Size() < sf.Size {
		return sf, false
	}
	sf.ModTime, sf.Size = fi.ModTime(), fi.Size()
	l.cache[path] = sf
	return sf, true
}

func (l *Locator) store(sf SessionFile) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cache == nil {
		l.cache = map[string]SessionFile{}
	}
	l.cache[sf.Path] = sf
}

// prune forgets files that are gone, so the cache stays as large as the
// folder. Files older than since were not visited and are kept.
func (l *Locator) prune(seen map[string]bool, since time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for p, sf := range l.cache {
		if !seen[p] && !sf.ModTime.Before(since) {
			delete(l.cache, p)
		}
	}
}

func isRollout(name string) bool {
	return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
}

// readMeta reads a rollout's first line, which Codex writes as
// session_meta when it creates the file. Only a regular file is opened: a
// FIFO named like a rollout would block a plain open forever.
func readMeta(path string) (SessionFile, error) {
	f, err := regular.Open(path)
	if err != nil {
		return SessionFile{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, maxMetaLine), 64<<10).ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		if !errors.Is(err, io.EOF) {
			return SessionFile{}, fmt.Errorf("read %s: %w", path, err)
		}
		return SessionFile{}, fmt.Errorf("%s: first line incomplete", path)
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		// Longer than the buffer: read the whole line up to the bound.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return SessionFile{}, fmt.Errorf("seek %s: %w", path, err)
		}
		r := bufio.NewReaderSize(io.LimitReader(f, maxMetaLine), maxMetaLine)
		if line, err = r.ReadSlice('\n'); err != nil {
			return SessionFile{}, fmt.Errorf("%s: first line too long or incomplete: %w", path, err)
		}
	}
	jp := parsers.Get()
	defer parsers.Put(jp)
	v, err := jp.ParseBytes(line)
	if err != nil {
		return SessionFile{}, fmt.Errorf("%s: %w: %v", path, ErrNotJSON, err)
	}
	if string(v.GetStringBytes("type")) != "session_meta" {
		return SessionFile{}, fmt.Errorf("%s: first line is not session_meta", path)
	}
	pl := v.Get("payload")
	if m := pl.Get("meta"); m != nil && m.Type() == fastjson.TypeObject {
		pl = m
	}
	sf := SessionFile{
		ThreadID:   string(pl.GetStringBytes("id")),
		Cwd:        string(pl.GetStringBytes("cwd")),
		CLIVersion: string(pl.GetStringBytes("cli_version")),
		Originator: string(pl.GetStringBytes("originator")),
	}
	if sf.ThreadID == "" {
		return SessionFile{}, fmt.Errorf("%s: session_meta has no id", path)
	}
	return sf, nil
}

// ErrNoSession means no rollout file holds the thread.
var ErrNoSession = errors.New("no codex rollout for this thread")

// Find returns the rollout file of thread threadID (a Conductor Codex tab's
// sessions.claude_session_id) under codexHome. The file is named after the
// thread, so this is one glob, no read.
func Find(codexHome, threadID string) (string, error) {
	if !validThreadID(threadID) {
		return "", fmt.Errorf("find codex thread %q: not a thread id", threadID)
	}
	matches, err := filepath.Glob(filepath.Join(SessionsDir(codexHome), "*", "*", "*", "rollout-*-"+threadID+".jsonl"))
	if err != nil {
		return "", fmt.Errorf("find codex thread %s: %w", threadID, err)
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("%w: %s in %s", ErrNoSession, threadID, SessionsDir(codexHome))
	}
	sort.Strings(matches)
	return matches[len(matches)-1], nil
}

// validThreadID accepts Codex's UUID-shaped ids and nothing a glob or a
// path could misread.
func validThreadID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-') {
			return false
		}
	}
	return true
}

// MetaReady reports whether a rollout's first line, its session_meta, is
// written whole: before that no scan can place the rollout.
func MetaReady(path string) bool {
	_, err := readMeta(path)
	return err == nil
}
