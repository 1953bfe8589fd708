// Package inject holds the messages a person sends to an agent from the
// side panel until the agent has them (DESIGN.md, "Talking back").
//
// A message moves queued → delivered (handed to exactly one hook) →
// confirmed (seen in the transcript). Every change is written to disk
// (atomic rename, fsynced) before it takes effect, so a bridge killed at any
// moment restarts with each message either confirmed or back in the queue.
package inject

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// Message states.
const (
	Queued    = "queued"
	Delivered = "delivered"
	Confirmed = "confirmed"
	Cancelled = "cancelled"
	// Lost: handed to a hook, never seen in the transcript, and no longer
	// retried (see Take and Requeue). Seen after all, it is confirmed.
	Lost = "lost"
)

// Limits.
const (
	// MaxRunes keeps a framed message within Claude Code's 10,000-character
	// cap on hook output (characters as JavaScript counts them: UTF-16 units).
	MaxRunes = 9000
	// MaxQueued bounds the messages waiting per workspace, and also those
	// handed to a hook and not yet seen in the transcript: beyond it the
	// oldest of those are Lost.
	MaxQueued = 20
	// keepDone is how many confirmed or cancelled messages are kept for
	// the listing.
	keepDone = 50
)

// Errors the API maps to status codes.
var (
	ErrEmpty     = errors.New("message is empty")
	ErrTooLong   = fmt.Errorf("message is longer than %d characters", MaxRunes)
	ErrFull      = fmt.Errorf("queue is full (%d messages waiting)", MaxQueued)
	ErrNotFound  = errors.New("no such message")
	ErrNotQueued = errors.New("message is no longer queued")
)

// Message is one message for an agent.
type Message struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Text      string    `json:"message"`
	State     string    `json:"status"`
	Created   time.Time `json:"created"`
	Delivered time.Time `json:"delivered,omitzero"`
	Confirmed time.Time `json:"confirmed,omitzero"`
	Via       string    `json:"via,omitempty"`     // the hook that took it: stop, rewake, post_tool_use
	Session   string    `json:"session,omitempty"` // the session it was handed to
	// Target is the session the message is for (the agent's session id):
	// only a hook call from that session takes it. "" lets any session of
	// the workspace take it (messages queued before sessions were told
	// apart).
	Target string `json:"session_id,omitempty"`
	// HandedOut: a hook (or a Codex resume) took it once, even if it was
	// queued again since. Only such a message can show up in a transcript
	// as the bridge's: a frame with any other id is the record's own text.
	HandedOut bool `json:"handed_out,omitempty"`
}

// handed reports whether m was ever handed out (a file from before
// HandedOut says so by its state).
func (m Message) handed() bool {
	return m.HandedOut || m.State == Delivered || m.State == Confirmed || m.State == Lost
}

// Queue is every workspace's messages, persisted in dir.
type Queue struct {
	// SetAside lists the damaged queue files Open renamed out of the way
	// (to <name>.damaged-<unix time>, in dir) rather than refusing to
	// start. It is set by Open and not changed afterwards.
	SetAside []string

	dir string
	now func() time.Time

	mu      sync.Mutex
	ws      map[string][]Message // by workspace, oldest first
	changed chan struct{}        // closed and replaced on every enqueue
}

// Open loads the queue kept in dir. A file that does not decode is set
// aside (see SetAside) so one damaged workspace does not keep the bridge
// from starting; its workspace starts with an empty queue.
func Open(dir string) (*Queue, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create queue dir: %w", err)
	}
	q := &Queue{dir: dir, now: time.Now, ws: make(map[string][]Message), changed: make(chan struct{})}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := regular.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read queue: %w", err)
		}
		var msgs []Message
		if err := json.Unmarshal(b, &msgs); err != nil {
			// Renamed, not deleted: the person may want what is in it. Left
			// in place it would be overwritten by the next enqueue.
			aside, rerr := setAside(f, q.now())
			if rerr != nil {
				return nil, fmt.Errorf("queue file %s is damaged (%v) and cannot be set aside: %w", f, err, rerr)
			}
			q.SetAside = append(q.SetAside, aside)
			continue
		}
		if len(msgs) > 0 {
			q.ws[msgs[0].Workspace] = msgs
		}
	}
	return q, nil
}

// Clean strips control characters (keeping newlines and tabs) and
// surrounding space, and checks the limits.
func Clean(text string) (string, error) {
	text = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == '\r' || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, text)
	text = strings.TrimSpace(text)
	if text == "" {
		return "", ErrEmpty
	}
	// Claude Code counts JavaScript string length: UTF-16 units, so an
	// emoji costs two.
	if n := len(utf16.Encode([]rune(text))); n > MaxRunes {
		return "", ErrTooLong
	}
	return text, nil
}

// Enqueue adds a message for any session of workspace; see EnqueueTo.
func (q *Queue) Enqueue(workspace, text string) (Message, int, error) {
	return q.EnqueueTo(workspace, "", text)
}

// EnqueueTo adds a message for one session of workspace ("" for any) and
// returns it with its position among the messages waiting for that
// session (1 is next).
func (q *Queue) EnqueueTo(workspace, target, text string) (Message, int, error) {
	text, err := Clean(text)
	if err != nil {
		return Message{}, 0, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.ws[workspace]
	waiting, ahead := 0, 0
	for _, m := range msgs {
		if m.State == Queued {
			waiting++
			if m.for_(target) {
				ahead++
			}
		}
	}
	if waiting >= MaxQueued {
		return Message{}, 0, ErrFull
	}
	m := Message{ID: newID(), Workspace: workspace, Text: text, State: Queued, Created: q.now().UTC(), Target: target}
	if err := q.saveLocked(workspace, append(msgs, m)); err != nil {
		return Message{}, 0, err
	}
	q.wakeLocked()
	return m, ahead + 1, nil
}

// List returns a workspace's messages, oldest first.
func (q *Queue) List(workspace string) []Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Message(nil), q.ws[workspace]...)
}

// Cancel withdraws a message that no hook has taken yet.
func (q *Queue) Cancel(workspace, id string) (Message, error) {
	return q.update(workspace, id, func(m *Message) error {
		if m.State != Queued {
			return ErrNotQueued
		}
		m.State = Cancelled
		return nil
	})
}

// finished reports whether m will not move again unless seen in the
// transcript: confirmed, cancelled or lost.
func (m Message) finished() bool {
	return m.State == Confirmed || m.State == Cancelled || m.State == Lost
}

// for_ reports whether a hook call from session may take m: m is for any
// session, or for that one.
func (m Message) for_(session string) bool {
	return m.Target == "" || m.Target == session
}

// Take hands the oldest queued message of workspace that is for session to
// one hook. The hand-over is on disk before Take returns, so it happens
// exactly once.
func (q *Queue) Take(workspace, via, session string) (Message, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := append([]Message(nil), q.ws[workspace]...)
	for i := range msgs {
		if msgs[i].State != Queued || !msgs[i].for_(session) {
			continue
		}
		m := &msgs[i]
		m.State, m.Via, m.Session, m.Delivered, m.HandedOut = Delivered, via, session, q.now().UTC(), true
		if err := q.saveLocked(workspace, msgs); err != nil {
			return Message{}, false, err
		}
		return *m, true, nil
	}
	return Message{}, false, nil
}

// Wait blocks until workspace has a queued message for any session, or ctx
// ends.
func (q *Queue) Wait(ctx context.Context, workspace string) error {
	return q.WaitFor(ctx, workspace, "")
}

// WaitFor blocks until workspace has a queued message that a hook call from
// session may take ("" for any session), or ctx ends.
func (q *Queue) WaitFor(ctx context.Context, workspace, session string) error {
	for {
		q.mu.Lock()
		for _, m := range q.ws[workspace] {
			if m.State == Queued && (session == "" || m.for_(session)) {
				q.mu.Unlock()
				return nil
			}
		}
		ch := q.changed
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// Confirm marks a message handed out (delivered, lost, or queued again by
// a restart) as seen in the transcript. It returns the message when the
// id is one the bridge handed out in workspace — the zero Message for any
// other: a frame the bridge did not deliver is not its message — and
// reports whether the message was waiting to be seen.
func (q *Queue) Confirm(workspace, id string) (Message, bool) {
	m, err := q.update(workspace, id, func(m *Message) error {
		if !m.handed() {
			return errNotHanded
		}
		if m.State == Confirmed || m.State == Cancelled {
			return ErrNotQueued
		}
		m.State, m.Confirmed = Confirmed, q.now().UTC()
		return nil
	})
	if errors.Is(err, errNotHanded) || errors.Is(err, ErrNotFound) {
		return Message{}, false
	}
	return m, err == nil
}

var errNotHanded = errors.New("message was never handed out")

// Requeue puts back the messages of workspace that were handed to a hook
// before `before` and never seen in the transcript: the hook died, or the
// bridge died before the hook got its answer. Never past MaxQueued: the
// newest go back (in their places), and the rest are Lost, so a restart
// never replays a backlog turn after turn.
func (q *Queue) Requeue(workspace string, before time.Time) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := append([]Message(nil), q.ws[workspace]...)
	room := MaxQueued
	for _, m := range msgs {
		if m.State == Queued {
			room--
		}
	}
	n, lost := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- { // newest first
		m := &msgs[i]
		if m.State != Delivered || !m.Delivered.Before(before) {
			continue
		}
		if n < room {
			m.State, m.Via, m.Session, m.Delivered = Queued, "", "", time.Time{}
			n++
		} else {
			m.State = Lost
			lost++
		}
	}
	if n+lost == 0 {
		return 0, nil
	}
	if err := q.saveLocked(workspace, msgs); err != nil {
		return 0, err
	}
	q.wakeLocked()
	return n, nil
}

// Workspaces returns the workspaces that have messages.
func (q *Queue) Workspaces() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Collect(maps.Keys(q.ws))
}

func (q *Queue) update(workspace, id string, fn func(*Message) error) (Message, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := append([]Message(nil), q.ws[workspace]...)
	for i := range msgs {
		if msgs[i].ID != id {
			continue
		}
		if err := fn(&msgs[i]); err != nil {
			return msgs[i], err
		}
		if err := q.saveLocked(workspace, msgs); err != nil {
			return Message{}, err
		}
		return msgs[i], nil
	}
	return Message{}, ErrNotFound
}

// saveLocked writes a workspace's messages and only then makes them
// current. Beyond MaxQueued delivered messages not seen in the transcript,
// the oldest are Lost; beyond keepDone finished ones, the oldest are
// dropped. So the file stays bounded however many messages an agent
// never shows.
func (q *Queue) saveLocked(workspace string, msgs []Message) error {
	unseen := 0
	for _, m := range msgs {
		if m.State == Delivered {
			unseen++
		}
	}
	if unseen > MaxQueued {
		msgs = append([]Message(nil), msgs...) // q.ws keeps the old states if the write fails
	}
	for i := range msgs {
		if unseen <= MaxQueued {
			break
		}
		if msgs[i].State == Delivered {
			msgs[i].State = Lost
			unseen--
		}
	}
	done := 0
	for _, m := range msgs {
		if m.finished() {
			done++
		}
	}
	if done > keepDone {
		kept := msgs[:0:0]
		for _, m := range msgs {
			if m.finished() && done > keepDone {
				done--
				continue
			}
			kept = append(kept, m)
		}
		msgs = kept
	}
	b, err := json.MarshalIndent(msgs, "", " ")
	if err != nil {
		return fmt.Errorf("encode queue: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(q.dir, fileName(workspace)), b, 0o600); err != nil {
		return fmt.Errorf("save queue: %w", err)
	}
	q.ws[workspace] = msgs
	return nil
}

// setAside renames a damaged file to <path>.damaged-<unix time>, which the
// "*.json" glob no longer matches, never over an earlier one.
func setAside(path string, now time.Time) (string, error) {
	base := fmt.Sprintf("%s.damaged-%d", path, now.Unix())
	to := base
	for i := 1; ; i++ {
		_, err := os.Lstat(to)
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		to = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	return to, nil
}

// fileName maps a workspace id to a safe file name.
func fileName(workspace string) string {
	return hex.EncodeToString([]byte(workspace)) + ".json"
}

func newID() string {
	var b [6]byte
	rand.Read(b[:])
	return "m-" + hex.EncodeToString(b[:])
}

// Return puts a delivered message back in the queue: the route that took
// it could not hand it over (a Codex resume that failed to start, or found
// the thread held). A confirmed message stays confirmed.
func (q *Queue) Return(workspace, id string) (Message, error) {
	m, err := q.update(workspace, id, func(m *Message) error {
		if m.State != Delivered {
			return ErrNotQueued
		}
		m.State, m.Via, m.Session, m.Delivered = Queued, "", "", time.Time{}
		return nil
	})
	if err == nil {
		q.mu.Lock()
		q.wakeLocked()
		q.mu.Unlock()
	}
	return m, err
}

// wake wakes everyone waiting on the queue.
func (q *Queue) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.wakeLocked()
}

// wakeLocked wakes everyone waiting on the queue.
func (q *Queue) wakeLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// Changed returns a channel closed at the next change to the queue (a
// message queued or put back): a deliverer that pushes messages, rather
// than waiting for a hook to pull them, waits on it.
func (q *Queue) Changed() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

// Waiting lists the sessions of workspace that have a message queued for
// them by id ("" for a message any session may take).
func (q *Queue) Waiting(workspace string) map[string]bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make(map[string]bool)
	for _, m := range q.ws[workspace] {
		if m.State == Queued {
			out[m.Target] = true
		}
	}
	return out
}
