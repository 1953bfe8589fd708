package conductordb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go
)

// Writer writes a Conductor database the way Conductor does: the file in
// WAL mode, one transaction per frame, rows of session_messages keyed by
// a uuid with the frame's JSON (or the typed prompt) as content. It waits
// for no lock (busy_timeout 0): a reader that blocked Conductor would
// make a write fail, not wait. Writers of one database share Lock, so
// that they take turns as Conductor's own writers do by waiting for each
// other, and a write that fails was blocked by a reader.
type Writer struct {
	Path string
	Lock *sync.Mutex
	db   *sql.DB
	seq  int
}

// Create makes the database at path from schema (Schema, SchemaNewer, a
// Shape's) and opens it for writing.
func Create(path, schema string) (*Writer, error) {
	w, err := OpenWriter(path)
	if err != nil {
		return nil, err
	}
	for _, q := range []string{"PRAGMA journal_mode=WAL", schema} {
		if _, err := w.db.Exec(q); err != nil {
			w.Close()
			return nil, fmt.Errorf("create conductor db %s: %w", path, err)
		}
	}
	return w, nil
}

// CreateIn makes home's Conductor database where Conductor keeps it
// (Library/Application Support/com.conductor.app/conductor.db; the bridge
// looks there on every OS), its folder included, from schema.
func CreateIn(home, schema string) (*Writer, error) {
	path := filepath.Join(home, "Library", "Application Support", "com.conductor.app", "conductor.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create conductor db: %w", err)
	}
	return Create(path, schema)
}

// OpenWriter opens an existing database for writing: a second writer, as
// Conductor's sidecar and its app both write.
func OpenWriter(path string) (*Writer, error) {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	db, err := sql.Open("sqlite", u.String()+"?_pragma=busy_timeout(0)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, fmt.Errorf("open conductor db %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return &Writer{Path: path, Lock: &sync.Mutex{}, db: db}, nil
}

// Second opens another writer of w's database, taking turns with it.
func (w *Writer) Second() (*Writer, error) {
	o, err := OpenWriter(w.Path)
	if err != nil {
		return nil, err
	}
	o.Lock = w.Lock
	return o, nil
}

// Close closes the writer's connection.
func (w *Writer) Close() error { return w.db.Close() }

// Exec runs one statement in its own transaction.
func (w *Writer) Exec(q string, args ...any) error {
	w.Lock.Lock()
	defer w.Lock.Unlock()
	if _, err := w.db.Exec(q, args...); err != nil {
		return fmt.Errorf("conductor db %s: %s: %w", w.Path, q, err)
	}
	return nil
}

// AddTab adds a workspace (if new) and a chat tab of agentType to it, in
// the shape's columns: the newer shape keys workspaces by local_id and
// keeps id beside it.
func (w *Writer) AddTab(shape Shape, workspace, tab, agentType, title string) error {
	ws := "INSERT OR IGNORE INTO workspaces (id, directory_name, state) VALUES (?, ?, 'ready')"
	args := []any{workspace, workspace}
	if shape.LocalID {
		ws = "INSERT OR IGNORE INTO workspaces (local_id, id, directory_name, state) VALUES (?, ?, ?, 'ready')"
		args = []any{"L-" + workspace, workspace, workspace}
	}
	if err := w.Exec(ws, args...); err != nil {
		return err
	}
	return w.Exec("INSERT INTO sessions (id, workspace_id, status, agent_type, title, created_at) VALUES (?, ?, 'idle', ?, ?, ?)",
		tab, workspace, agentType, title, time.Now().UTC().Format("2006-01-02 15:04:05"))
}

// PlaceWorkspace says, as Conductor's rows do, that workspace (added by
// AddTab) is checked out at path on branch, from the repository named
// repo whose root is root: the repository's row (id "r-" and its name),
// added if new, and the workspace's.
func (w *Writer) PlaceWorkspace(workspace, repo, root, path, branch string) error {
	if err := w.Exec("INSERT OR IGNORE INTO repos (id, name, root_path) VALUES (?, ?, ?)", "r-"+repo, repo, root); err != nil {
		return err
	}
	return w.Exec("UPDATE workspaces SET repository_id = ?, workspace_path = ?, branch = ? WHERE id = ?", "r-"+repo, path, branch, workspace)
}

// Message is one row Writer wrote.
type Message struct {
	RowID int64
	ID    string
}

// Message appends one row to a tab's record in its own transaction: the
// person's typed prompt (role "user", plain text) or a frame (role
// "assistant", JSON). created_at alternates between the two formats
// Conductor mixes.
func (w *Writer) Message(tab, role, content string) (Message, error) {
	w.seq++
	m := Message{ID: uuid()}
	at := time.Now().UTC()
	stamp := at.Format("2006-01-02T15:04:05.000Z")
	if w.seq%2 == 0 {
		stamp = at.Format("2006-01-02 15:04:05")
	}
	var sent any
	if role == "user" {
		sent = stamp
	}
	w.Lock.Lock()
	defer w.Lock.Unlock()
	err := w.db.QueryRowContext(context.Background(),
		"INSERT INTO session_messages (id, session_id, role, content, created_at, sent_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING rowid",
		m.ID, tab, role, content, stamp, sent).Scan(&m.RowID)
	if err != nil {
		return m, fmt.Errorf("conductor db %s: write %s's message: %w", w.Path, tab, err)
	}
	return m, nil
}

// uuid is a random (version 4) uuid, as Conductor's ids are.
func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Query returns the one integer q selects.
func (w *Writer) Query(q string, args ...any) (int64, error) {
	w.Lock.Lock()
	defer w.Lock.Unlock()
	var n int64
	if err := w.db.QueryRow(q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("conductor db %s: %s: %w", w.Path, q, err)
	}
	return n, nil
}
