package discover

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// maxEncodedLen is where Claude Code 2.1.x cuts a long project folder name
// and appends a hash of the full path (verified on 2.1.328: a 232-character
// cwd). Versions up to 2.0 never cut; for the paths Conductor makes, which
// are far shorter, every version agrees.
const maxEncodedLen = 200

// EncodeProjectDir returns the name Claude Code gives the transcript folder
// of the directory absDir: every character outside [A-Za-z0-9] becomes '-'
// ("/Users/me/.x" → "-Users-me--x").
//
// Claude Code does this with a JavaScript regular expression, which sees
// UTF-16 code units, and so does this function: "é" becomes one '-', a
// character outside the Basic Multilingual Plane (an emoji) two. A name
// longer than 200 units is cut to 200 and followed by '-' and the base-36
// absolute value of the 32-bit djb2 hash ((h<<5)-h+unit) of absDir, as
// Claude Code 2.1 does.
func EncodeProjectDir(absDir string) string {
	units := utf16.Encode([]rune(absDir))
	b := make([]byte, len(units))
	for i, u := range units {
		if u < 0x80 && isAlnum(byte(u)) {
			b[i] = byte(u)
		} else {
			b[i] = '-'
		}
	}
	if len(b) <= maxEncodedLen {
		return string(b)
	}
	var h int32 // wraps like JavaScript's "|0"
	for _, u := range units {
		h = h<<5 - h + int32(u)
	}
	n := int64(h)
	if n < 0 {
		n = -n
	}
	return string(b[:maxEncodedLen]) + "-" + strconv.FormatInt(n, 36)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// maxCwdFiles bounds how many transcripts of one project folder are read to
// learn which directories it serves: the newest ones are the ones that
// matter, and a folder can hold thousands.
const maxCwdFiles = 20

// ScanClaudeProjects lists the directories Claude Code has worked in, from
// its transcript folders under projectsRoot (DESIGN.md, "Data sources" 4).
// A folder counts when it holds a top-level *.jsonl; the directory is the
// cwd recorded inside, since the folder's name cannot be decoded. Folder
// names are lossy, so one folder may serve several directories: the cwds of
// its 20 newest transcripts are all used. A cwd that no longer exists is
// skipped (a deleted checkout, an archived Conductor workspace).
// A missing projectsRoot is no error.
func ScanClaudeProjects(projectsRoot string) ([]Workspace, error) {
	return (*transcriptCache)(nil).scanProjects(projectsRoot)
}

// scanProjects is ScanClaudeProjects, with what c remembers of earlier
// scans (c may be nil).
func (c *transcriptCache) scanProjects(projectsRoot string) ([]Workspace, error) {
	entries, err := os.ReadDir(projectsRoot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan claude projects: %w", err)
	}
	c.begin()
	defer c.sweep()

	var out []Workspace
	at := make(map[string]int) // directory → index in out
	r := resolver{}
	for _, e := range entries {
		projectDir := filepath.Join(projectsRoot, e.Name())
		if !e.IsDir() && !(e.Type()&fs.ModeSymlink != 0 && isDir(projectDir)) {
			continue
		}
		cwds, err := c.projectCwds(projectDir)
		if err != nil {
			continue // gone or unreadable since ReadDir: try again next scan
		}
		for _, cwd := range cwds {
			if !filepath.IsAbs(cwd) {
				continue
			}
			dir := r.resolve(cwd)
			if !isDir(dir) {
				continue
			}
			if i, ok := at[dir]; ok {
				// Two folders for one directory: a cut name from 2.1 and
				// an uncut one from 2.0, or a link resolved differently.
				// Prefer the one Claude Code would use today.
				if e.Name() == EncodeProjectDir(dir) {
					out[i].ProjectDir = projectDir
				}
				continue
			}
			at[dir] = len(out)
			out = append(out, Workspace{
				Name:       filepath.Base(dir),
				Directory:  dir,
				Source:     SourceClaude,
				ProjectDir: projectDir,
			})
		}
	}
	return out, nil
}

// transcriptFile is a top-level transcript of a project folder.
type transcriptFile struct {
	path string
	info fs.FileInfo
}

// transcripts lists the session transcripts of projectDir, newest first:
// its top-level *.jsonl regular files. Subagent transcripts are not
// sessions of their own: 2.1 keeps them in <sessionId>/subagents/, but 2.0
// writes them next to the sessions as agent-<id>.jsonl, one per "Warmup"
// too, often newer than the session that started them.
func transcripts(projectDir string) ([]transcriptFile, error) {
	entries, err := os.ReadDir(projectDir)
	if err != nil {
		return nil, err
	}
	var out []transcriptFile
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		out = append(out, transcriptFile{path: filepath.Join(projectDir, e.Name()), info: fi})
	}
	slices.SortFunc(out, func(a, b transcriptFile) int {
		if c := b.info.ModTime().Compare(a.info.ModTime()); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
	return out, nil
}

// LiveSession returns the transcript of the session running in cwd, and its
// modification time: the newest-modified top-level *.jsonl of projectDir
// (agent-*.jsonl excluded, see transcripts) whose recorded cwd is cwd.
// DESIGN.md: a new file means a new session. Since folder names are lossy,
// newer files of another directory are passed over, newest first, stopping
// at the first match; a file that records no cwd yet (just created) counts
// as a match. An empty cwd matches any file. When there is none, the error
// wraps fs.ErrNotExist.
func LiveSession(projectDir, cwd string) (string, time.Time, error) {
	files, err := transcripts(projectDir)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("find live session: %w", err)
	}
	want := ""
	if cwd != "" {
		want = resolvePath(cwd)
	}
	for _, f := range files {
		if cwd == "" {
			return f.path, f.info.ModTime(), nil
		}
		got, err := readCwd(f.path)
		if err != nil {
			continue // removed since listed
		}
		if got == "" || got == cwd || resolvePath(got) == want {
			return f.path, f.info.ModTime(), nil
		}
	}
	return "", time.Time{}, fmt.Errorf("find live session for %s in %s: %w", cwd, projectDir, fs.ErrNotExist)
}
