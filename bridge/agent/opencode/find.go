package opencode

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Session is one OpenCode session as its session row says.
type Session struct {
	ID      string
	Dir     string // the folder it runs in
	Title   string
	Version string // the release that created it
	Parent  string // a subagent's (task tool) session: its parent's id
	Created time.Time
	Updated time.Time
}

const sessionColumns = "id, directory, title, version, COALESCE(parent_id, ''), time_created, time_updated"

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, updated int64
	if err := sc.Scan(&s.ID, &s.Dir, &s.Title, &s.Version, &s.Parent, &created, &updated); err != nil {
		return Session{}, err
	}
	s.Created, s.Updated = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return s, nil
}

// Sessions lists the sessions run in dir, newest first: the top-level
// ones (a task tool's subagent sessions are their parent's), not
// archived. dir is compared as OpenCode stores it, an absolute cleaned
// path.
func (s *Store) Sessions(ctx context.Context, dir string) ([]Session, error) {
	conn, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := conn.QueryContext(ctx, "SELECT "+sessionColumns+
		" FROM session WHERE directory = ? AND parent_id IS NULL AND time_archived IS NULL ORDER BY time_updated DESC, id DESC",
		filepath.Clean(dir))
	if err != nil {
		return nil, s.fail(fmt.Errorf("opencode db %s: sessions in %s: %w", s.Path(), dir, err))
	}
	defer rs.Close()
	var out []Session
	for rs.Next() {
		ss, err := scanSession(rs)
		if err != nil {
			return nil, s.fail(fmt.Errorf("opencode db %s: sessions in %s: %w", s.Path(), dir, err))
		}
		out = append(out, ss)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("opencode db %s: sessions in %s: %w", s.Path(), dir, err))
	}
	return out, nil
}

// ErrNoSession is returned for a session the database does not hold.
var ErrNoSession = errors.New("no such opencode session")

// Session returns the session with id.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	conn, err := s.open(ctx)
	if err != nil {
		return Session{}, err
	}
	ss, err := scanSession(conn.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM session WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	if err != nil {
		return Session{}, s.fail(fmt.Errorf("opencode db %s: session %s: %w", s.Path(), id, err))
	}
	return ss, nil
}

// Tab finds the session of a Conductor "acp" tab. Conductor runs
// `opencode acp` in the workspace and keeps the id the ACP server gave it
// (session/new's sessionId, which is OpenCode's own session id, ses_…) in
// sessions.claude_session_id, as it does every agent's. That id wins
// when the database holds it and it ran in dir; else (an old row with no
// id) the newest session in dir. ok is false when there is neither.
func (s *Store) Tab(ctx context.Context, providerID, dir string) (Session, bool, error) {
	if providerID != "" {
		ss, err := s.Session(ctx, providerID)
		switch {
		case err == nil && (dir == "" || ss.Dir == filepath.Clean(dir)):
			return ss, true, nil
		case err != nil && !errors.Is(err, ErrNoSession):
			return Session{}, false, err
		}
		return Session{}, false, nil // an id of another folder, or gone: never a guess
	}
	if dir == "" {
		return Session{}, false, nil
	}
	all, err := s.Sessions(ctx, dir)
	if err != nil || len(all) == 0 {
		return Session{}, false, err
	}
	return all[0], true, nil
}

// Recent lists the sessions (not subagents') updated at or after since,
// newest first.
func (s *Store) Recent(ctx context.Context, since time.Time) ([]Session, error) {
	conn, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := conn.QueryContext(ctx, "SELECT "+sessionColumns+
		" FROM session WHERE time_updated >= ? AND parent_id IS NULL AND time_archived IS NULL ORDER BY time_updated DESC, id DESC",
		since.UnixMilli())
	if err != nil {
		return nil, s.fail(fmt.Errorf("opencode db %s: recent sessions: %w", s.Path(), err))
	}
	defer rs.Close()
	var out []Session
	for rs.Next() {
		ss, err := scanSession(rs)
		if err != nil {
			return nil, s.fail(fmt.Errorf("opencode db %s: recent sessions: %w", s.Path(), err))
		}
		out = append(out, ss)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("opencode db %s: recent sessions: %w", s.Path(), err))
	}
	return out, nil
}
