package discover

import (
	"os"
	"slices"
	"sync"
	"time"
)

// transcriptCache remembers what earlier scans read from transcripts, so a
// scan every two seconds over hundreds of projects reads almost nothing. A
// nil *transcriptCache is valid and remembers nothing.
//
// It relies on transcripts being append-only: once a file's first cwd is
// known it cannot change while the file only grows.
type transcriptCache struct {
	mu    sync.Mutex
	gen   uint64
	files map[string]*cachedFile
	dirs  map[string]*cachedProject
}

type cachedFile struct {
	size int64
	mod  time.Time
	cwd  string
	gen  uint64
}

type cachedProject struct {
	mod    time.Time // the folder's mtime when read
	readAt time.Time
	cwds   []string
	files  []string // the transcripts read: still in use while the folder is
	gen    uint64
}

// racyWindow is how long after a folder's mtime its listing is not trusted:
// a file created within the same clock tick as the listing leaves the
// mtime unchanged (the race git calls "racy clean").
const racyWindow = 2 * time.Second

func newTranscriptCache() *transcriptCache {
	return &transcriptCache{
		files: make(map[string]*cachedFile),
		dirs:  make(map[string]*cachedProject),
	}
}

// begin starts a scan; entries not used by the time of sweep are dropped.
func (c *transcriptCache) begin() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

func (c *transcriptCache) sweep() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range c.files {
		if v.gen != c.gen {
			delete(c.files, k)
		}
	}
	for k, v := range c.dirs {
		if v.gen != c.gen {
			delete(c.dirs, k)
		}
	}
}

// projectCwds returns the distinct cwds recorded in the newest transcripts
// of projectDir, a folder of a's, newest first.
func (c *transcriptCache) projectCwds(a Projects, projectDir string) ([]string, error) {
	fi, err := os.Stat(projectDir)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.mu.Lock()
		p := c.dirs[projectDir]
		if p != nil && p.mod.Equal(fi.ModTime()) && p.readAt.Sub(p.mod) > racyWindow {
			p.gen = c.gen
			for _, f := range p.files {
				if e := c.files[f]; e != nil {
					e.gen = c.gen
				}
			}
			c.mu.Unlock()
			return p.cwds, nil
		}
		c.mu.Unlock()
	}

	readAt := time.Now()
	files, err := transcripts(projectDir)
	if err != nil {
		return nil, err
	}
	if len(files) > maxCwdFiles {
		files = files[:maxCwdFiles]
	}
	var cwds, paths []string
	complete := true
	for _, f := range files {
		paths = append(paths, f.path)
		cwd, settled := c.fileCwd(a, f)
		if !settled {
			complete = false // may record a cwd later without the folder changing
		}
		if cwd == "" {
			continue
		}
		if !slices.Contains(cwds, cwd) {
			cwds = append(cwds, cwd)
		}
	}
	if c != nil {
		c.mu.Lock()
		if complete {
			c.dirs[projectDir] = &cachedProject{mod: fi.ModTime(), readAt: readAt, cwds: cwds, files: paths, gen: c.gen}
		} else {
			delete(c.dirs, projectDir)
		}
		c.mu.Unlock()
	}
	return cwds, nil
}

// fileCwd returns the cwd of a transcript of a's, read once and
// remembered. It is settled when it can no longer change: found, or not in
// the part a reads for it (a.CwdLimit) already written.
func (c *transcriptCache) fileCwd(a Projects, f transcriptFile) (cwd string, settled bool) {
	size, mod, limit := f.info.Size(), f.info.ModTime(), a.CwdLimit()
	if c != nil {
		c.mu.Lock()
		e := c.files[f.path]
		if e != nil && (e.settled(limit) && size >= e.size || size == e.size && mod.Equal(e.mod)) {
			e.gen = c.gen
			c.mu.Unlock()
			return e.cwd, e.settled(limit)
		}
		c.mu.Unlock()
	}
	cwd, err := a.RecordCwd(f.path)
	if err != nil {
		return "", false // gone since listed, or unreadable for now
	}
	e := &cachedFile{size: size, mod: mod, cwd: cwd}
	if c != nil {
		c.mu.Lock()
		e.gen = c.gen
		c.files[f.path] = e
		c.mu.Unlock()
	}
	return cwd, e.settled(limit)
}

// settled reports whether the cwd is found, or the file already holds the
// limit bytes its reader looks through.
func (e *cachedFile) settled(limit int64) bool {
	return e.cwd != "" || e.size >= limit
}
