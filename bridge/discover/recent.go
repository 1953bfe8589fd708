package discover

import (
	"fmt"
	"path/filepath"
	"time"
)

// Transcript is one Claude Code session transcript of a directory.
type Transcript struct {
	ID      string // the session id: the file's base name
	Path    string
	ModTime time.Time
	Size    int64
}

// RecentTranscripts lists the session transcripts in projectDir that hold
// something and record cwd as their directory, as recordCwd (its agent's)
// reads them, or no cwd yet (just created), and were modified at or after
// since, newest first.
// Folder names are lossy, so a file of another directory that shares the
// folder is passed over. With
// keepNewest the newest matching file is always included, however old, so
// a workspace whose sessions are known by no id still shows its last one;
// with none at all the list is empty.
func RecentTranscripts(recordCwd func(record string) (string, error), projectDir, cwd string, since time.Time, keepNewest bool) ([]Transcript, error) {
	files, err := transcripts(projectDir)
	if err != nil {
		return nil, fmt.Errorf("list transcripts of %s: %w", projectDir, err)
	}
	want := ""
	if cwd != "" {
		want = resolvePath(cwd)
	}
	var out []Transcript
	for _, f := range files {
		if (len(out) > 0 || !keepNewest) && f.info.ModTime().Before(since) {
			break // newest first: the rest are older still
		}
		if f.info.Size() == 0 {
			// Nothing in it yet, and maybe never: 2.0.77's `--resume`
			// leaves an empty record of the id it started under. A
			// session is listed once its record holds a line (its
			// first write asks for a scan).
			continue
		}
		if cwd != "" {
			got, err := recordCwd(f.path)
			if err != nil || (got != "" && got != cwd && resolvePath(got) != want) {
				continue
			}
		}
		base := filepath.Base(f.path)
		out = append(out, Transcript{ID: base[:len(base)-len(".jsonl")], Path: f.path, ModTime: f.info.ModTime(), Size: f.info.Size()})
	}
	return out, nil
}
