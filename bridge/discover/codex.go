package discover

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"conductorbridge/bridge/codex"
)

// SourceCodex is a workspace found only by a plain Codex run in it.
const SourceCodex = "codex"

// codexSessions finds Codex sessions in a Codex home: a Conductor Codex
// tab by its thread id, and every plain run written within the active
// window by its working directory. What it read of each rollout (its
// session_meta) is remembered by the Locator, and a tab's file by its
// thread, so a rescan reads only new files.
type codexSessions struct {
	home     string
	loc      codex.Locator
	byThread map[string]string // thread id → rollout file
}

// file returns the rollout of thread, "" when none exists (yet).
func (c *codexSessions) file(thread string) string {
	if thread == "" {
		return ""
	}
	if p, ok := c.byThread[thread]; ok && isRegular(p) {
		return p
	}
	p, err := codex.Find(c.home, thread)
	if err != nil {
		return ""
	}
	if c.byThread == nil {
		c.byThread = make(map[string]string)
	}
	c.byThread[thread] = p
	return p
}

// fillTabs gives each Conductor Codex tab its rollout file. The thread id
// is sessions.claude_session_id (Conductor reuses the column), else the
// row's own id.
func (c *codexSessions) fillTabs(ws []Workspace) {
	for i := range ws {
		for j := range ws[i].Sessions {
			s := &ws[i].Sessions[j]
			if s.Agent != AgentCodex || s.Transcript != "" {
				continue
			}
			for k, id := range []string{s.ID, s.ConductorID} {
				if k == 1 && id == s.ID {
					break // no claude_session_id: the row's id was tried already
				}
				if p := c.file(id); p != "" {
					s.ID, s.Transcript = id, p
					break
				}
			}
		}
	}
}

// recent lists the Codex sessions written since then as workspaces, one
// per working directory (symlinks resolved, so a run in a branch-named
// link joins its worktree). merge folds each into the workspace of the
// same directory when another source has one.
func (c *codexSessions) recent(since time.Time) ([]Workspace, error) {
	files, err := c.loc.Sessions(c.home, since)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []Workspace
	at := make(map[string]int)
	for _, f := range files {
		if !filepath.IsAbs(f.Cwd) {
			continue // a session_meta with no usable cwd places nothing
		}
		dir := f.Cwd
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		} else {
			continue // the directory is gone: not a workspace
		}
		i, ok := at[dir]
		if !ok {
			i = len(out)
			at[dir] = i
			out = append(out, Workspace{Name: filepath.Base(dir), Directory: dir, Source: SourceCodex})
		}
		out[i].Sessions = append(out[i].Sessions, Session{ID: f.ThreadID, Agent: AgentCodex, Transcript: f.Path})
	}
	for i := range out {
		// By id, not by last write: two sessions taking turns must not
		// look like a change to every scan.
		slices.SortFunc(out[i].Sessions, func(a, b Session) int { return strings.Compare(a.ID, b.ID) })
	}
	return out, nil
}

// mergeSessions adds to dst the sessions of src it does not have, by id:
// a Conductor Codex tab also listed as a recent run stays one session, and
// takes the run's file if it had none.
func mergeSessions(dst []Session, src []Session) []Session {
	for _, s := range src {
		found := false
		for i := range dst {
			if d := &dst[i]; d.ID == s.ID && d.Agent == s.Agent {
				found = true
				if d.Transcript == "" {
					d.Transcript = s.Transcript
				}
				break
			}
		}
		if !found {
			dst = append(dst, s)
		}
	}
	return dst
}
