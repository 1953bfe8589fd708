package cursor

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"conductorbridge/bridge/sqliteread"
)

// Mark is a place in one SDK agent's record: the run (turn_number) and
// the event (seq) read last; the zero Mark is before the first row.
type Mark struct {
	Turn, Seq int64
}

// maxRows bounds one read, so a long history is caught up with in pieces.
const maxRows = 512

// nonWord is what the SDK's project slug turns into dashes.
var nonWord = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// StoreDir is where the SDK keeps the store of a workspace (its cwd) for
// a user: ~/.cursor/projects/<slug>/sdk-agent-store/<md5 of the cwd in
// hex>, the slug being the cwd with each run of characters other than
// ASCII letters and digits one dash, and no dash at either end (the SDK's
// own rule, @cursor/sdk 1.0.32).
func StoreDir(home, cwd string) string {
	slug := strings.Trim(nonWord.ReplaceAllString(cwd, "-"), "-")
	sum := md5.Sum([]byte(cwd))
	return filepath.Join(home, ".cursor", "projects", slug, "sdk-agent-store", hex.EncodeToString(sum[:]))
}

// DBName is the store's SQLite database in its folder.
const DBName = "index.db"

// Store reads one SDK store's index.db, read-only: it is the database's
// sqliteread.Conn (its Path, DataVersion, a move when the SDK committed,
// and Close are the Conn's), short statements on one connection, so the
// SDK never waits for it. It is not safe for concurrent use.
type Store struct {
	*sqliteread.Conn
}

// NewStore returns a store for the database at path; nothing is opened
// until the first read.
func NewStore(path string) *Store {
	return &Store{sqliteread.New("cursor store", path)}
}

// rowsQuery reads an agent's events after a mark, with their runs'
// columns: runs by UNIQUE(agent_id, turn_number), events by their primary
// key (run_id, seq).
const rowsQuery = `SELECT r.turn_number, e.seq, e.run_id, e.event_type, COALESCE(e.payload_json, ''), e.created_at,
	r.status, COALESCE(r.model, ''), COALESCE(r.usage_json, ''), COALESCE(r.started_at, ''),
	COALESCE(r.finished_at, r.cancelled_at, r.expired_at, ''), COALESCE(r.error_code, '')
FROM runs r JOIN run_events e ON e.run_id = r.run_id
WHERE r.agent_id = ? AND (r.turn_number > ? OR (r.turn_number = ? AND e.seq > ?))
ORDER BY r.turn_number, e.seq LIMIT ?`

// Rows returns agent's rows after mark, in (turn, seq) order, at most
// limit (0 or less, or more than 512: 512). Fewer than the limit means
// the caller caught up.
func (s *Store) Rows(ctx context.Context, agentID string, after Mark, limit int) ([]Row, error) {
	if limit <= 0 || limit > maxRows {
		limit = maxRows
	}
	conn, _, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error {
		_ = s.Close()
		return fmt.Errorf("cursor store %s: read events of %s: %w", s.Path(), agentID, err)
	}
	rs, err := conn.QueryContext(ctx, rowsQuery, agentID, after.Turn, after.Turn, after.Seq, limit)
	if err != nil {
		return nil, fail(err)
	}
	defer rs.Close()
	var out []Row
	for rs.Next() {
		var r Row
		if err := rs.Scan(&r.Turn, &r.Seq, &r.Run, &r.Type, &r.Payload, &r.At,
			&r.Status, &r.Model, &r.Usage, &r.Started, &r.Finished, &r.Error); err != nil {
			return nil, fail(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fail(err)
	}
	return out, nil
}

// AgentInfo is one SDK agent of a store (never its metadata_json, which
// holds a key).
type AgentInfo struct {
	ID        string // agent-…
	Workspace string // workspace_ref: the cwd it runs in
	Status    string // IDLE, RUNNING, ERROR, ARCHIVED
	Name      string
	Updated   string // updated_at, ISO
}

// Agents lists the store's agents, the last updated first.
func (s *Store) Agents(ctx context.Context) ([]AgentInfo, error) {
	conn, _, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	// Columns by name: metadata_json is never read.
	rs, err := conn.QueryContext(ctx, `SELECT agent_id, workspace_ref, status, COALESCE(name, ''), updated_at
		FROM agents ORDER BY updated_at DESC`)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("cursor store %s: list agents: %w", s.Path(), err)
	}
	defer rs.Close()
	var out []AgentInfo
	for rs.Next() {
		var a AgentInfo
		if err := rs.Scan(&a.ID, &a.Workspace, &a.Status, &a.Name, &a.Updated); err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("cursor store %s: list agents: %w", s.Path(), err)
		}
		out = append(out, a)
	}
	return out, rs.Err()
}
