// Package browse follows gstack's browse server, the daemon that drives
// Chrome for an agent (`$B`), for each workspace the bridge follows, and
// re-emits what it does in the browser as browse events in the
// workspace's stream, beside what the agent thinks.
//
// What it relies on is gstack's own source (github.com/garrytan/gstack,
// commit 85fd9db554ae4aaaa6d356d2daf873121ee85bdd, browse/src):
//   - server.ts start() writes <git root>/.gstack/browse.json, 0600, by an
//     atomic rename: {pid, port, token, startedAt, serverPath, mode, …}; the
//     token is a random UUID (or AUTH_TOKEN, at least 16 characters with
//     every whitespace stripped). It binds 127.0.0.1 only.
//   - GET /health is open and never carries a token: {"status":"healthy",
//     "mode", "uptime", "tabs", …}; the CLI counts a server as up when it
//     answers "healthy" (cli.ts isServerHealthy).
//   - GET /activity/stream?after=N (Authorization: Bearer <token>) is SSE:
//     "event: gap" {gapFrom, availableFrom} when N is older than the 1000
//     entries it keeps, then "event: activity" with each entry after N and
//     each new one, "data:" one JSON line, no "id:"; ": heartbeat" every
//     15 s (sse-helpers.ts). Ids count from 1 in each run of the server
//     (activity.ts), so an id means nothing without the run it came from.
//
// Each workspace's state file is read only from the workspace's own root,
// never through a symlink that leaves it, only when it is a regular file
// owned by the user and writable by no one else; the token is sent only
// to the port it names on 127.0.0.1, and only once the kernel says the
// other end of that connection belongs to the user too.
package browse

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// StateDir and StateFile are where gstack keeps its state, under the
// workspace's root (config.ts resolveConfig).
const (
	StateDir  = ".gstack"
	StateFile = "browse.json"
)

// maxStateBytes bounds the state file read: gstack's is a few hundred
// bytes; a larger one is not gstack's.
const maxStateBytes = 64 << 10

// maxToken bounds the token. gstack's is a UUID (36 characters), or one
// given through AUTH_TOKEN.
const maxToken = 512

// State is what the bridge uses of a browse server's state file.
type State struct {
	PID       int    `json:"pid"`
	Port      int    `json:"port"`
	Token     Token  `json:"token"`
	StartedAt string `json:"startedAt"`
	Mode      string `json:"mode"`
}

// Token is the browse server's bearer token. It prints as "[token]" in
// any format, so no log line can carry it by accident.
type Token string

func (Token) String() string   { return "[token]" }
func (Token) GoString() string { return "[token]" }

// MarshalJSON keeps the token out of any JSON the bridge writes.
func (Token) MarshalJSON() ([]byte, error) { return []byte(`"[token]"`), nil }

// run names the browse server's run: its ids count from 1 in each, so a
// resume point is only good for the run that gave it.
func (s State) run() string {
	return strconv.Itoa(s.PID) + ":" + strconv.Itoa(s.Port) + ":" + s.StartedAt
}

// Reasons a state file is not followed; each is said once in the log.
var (
	ErrNoState = errors.New("no browse state file")
	// errUnsafe: not a regular file, not the user's, writable by others,
	// or reached through a symlink that leaves the workspace.
	errUnsafe = errors.New("browse state file refused")
	// errPartial: not the JSON gstack writes (cut short, or something else).
	errPartial = errors.New("browse state file unreadable")
	// errHostile: a port or token no gstack server writes.
	errHostile = errors.New("browse state file holds what gstack never writes")
)

// ReadState reads the browse server's state file of the workspace at
// root: from root's own .gstack folder, never through a symlink that
// leads out of root, a regular file owned by the user and not writable by
// group or others, opened without blocking (a FIFO in its place must not
// hang the bridge), at most 64 KiB. A missing file is ErrNoState.
func ReadState(root string) (State, error) {
	b, err := readStateFile(root)
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("%w: %v", errPartial, err)
	}
	if err := st.check(); err != nil {
		return State{}, err
	}
	return st, nil
}

// check refuses what gstack never writes: a pid or port out of range, a
// token of the wrong length or with bytes a header cannot carry.
func (s State) check() error {
	switch {
	case s.PID <= 0:
		return fmt.Errorf("%w: pid %d", errPartial, s.PID)
	case s.Port <= 0 || s.Port > 65535:
		return fmt.Errorf("%w: port %d", errHostile, s.Port)
	case len(s.Token) < 16 || len(s.Token) > maxToken:
		return fmt.Errorf("%w: a token of %d bytes", errHostile, len(s.Token))
	case len(s.StartedAt) > 64 || len(s.Mode) > 64:
		return fmt.Errorf("%w: startedAt or mode of %d bytes", errHostile, len(s.StartedAt)+len(s.Mode))
	}
	for i := range len(s.Token) {
		// gstack strips every whitespace from a given token; a UUID is
		// hex and dashes. A control character could split the header.
		if c := s.Token[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("%w: a token with byte %#x", errHostile, c)
		}
	}
	return nil
}

// statePath is the state file's path under root, for stat and logs.
func statePath(root string) string { return filepath.Join(root, StateDir, StateFile) }

// rel is the state file's name inside root, for os.Root.
var rel = StateDir + string(os.PathSeparator) + StateFile
