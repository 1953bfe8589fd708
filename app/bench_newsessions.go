package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
)

// New sessions on an idle real home: sessions begin at random moments of
// one window while the bridge idles, a third each Claude Code in a plain
// project the bridge lists already, Claude Code in a folder it has never
// seen (its project folder made with the transcript) and Codex in a new
// folder (a rollout in today's day folder, made by the first). Each is
// timed from the moment its file (or folder) is made to the moment a
// client reading /api/workspaces/{id} sees the session listed.

// newSessionKinds are the kinds, in turn.
var newSessionKinds = []string{"claude in a known project", "claude in a new folder", "codex in a new folder"}

// newSession is one session made by the run.
type newSession struct {
	kind   string
	dir    string // the directory it runs in
	id     string // its session id
	made   time.Time
	listed time.Duration // 0: never listed
}

// runNewSessions makes n sessions at random moments of window on the home
// at root and reports the delays, and how many were listed within
// listWithin of being made. known are plain projects the bridge lists.
func runNewSessions(ctx context.Context, r *benchReport, c *benchChild, root string, known []string, n int, window, listWithin time.Duration, seed uint64) ([]newSession, error) {
	rng := rand.New(rand.NewPCG(seed, 25))
	at := make([]time.Duration, n)
	for i := range at {
		at[i] = time.Duration(rng.Int64N(int64(window)))
	}
	slices.Sort(at)
	sessions := make([]newSession, n)
	var wg sync.WaitGroup
	start := time.Now()
	var err error
	for i := range n {
		if wait := time.Until(start.Add(at[i])); wait > 0 {
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-time.After(wait):
			}
		}
		if err != nil {
			break
		}
		s := &sessions[i]
		if err = makeNewSession(s, root, known, i, rng); err != nil {
			break
		}
		wg.Go(func() { s.listed = waitListed(ctx, c, s, listWithin) })
	}
	wg.Wait()
	if err != nil {
		return sessions, err
	}
	var delays []time.Duration
	listed := 0
	slowest := make(map[string]time.Duration)
	for _, s := range sessions {
		if s.listed > 0 {
			listed++
			delays = append(delays, s.listed)
			slowest[s.kind] = max(slowest[s.kind], s.listed)
		}
	}
	byKind := ""
	for _, k := range newSessionKinds {
		if d, ok := slowest[k]; ok {
			byKind += fmt.Sprintf("; slowest %s %v", k, d.Round(time.Millisecond))
		}
	}
	cond := fmt.Sprintf("%d new sessions at random moments of %v on the idle real home, a third each %s, %s and %s; from the file (or folder) made to the session in /api/workspaces/{id}, polled every %v; %d of %d listed within %v%s%s",
		n, window, newSessionKinds[0], newSessionKinds[1], newSessionKinds[2], listPoll, listed, n, listWithin, byKind, benchLoad())
	r.addLatencies("real home new session listed", delays, cond)
	return sessions, nil
}

// listPoll is how often a client looks for a new session.
const listPoll = 10 * time.Millisecond

// makeNewSession makes session i as its agent would: the folder and the
// record, its first lines saying where it runs.
func makeNewSession(s *newSession, root string, known []string, i int, rng *rand.Rand) error {
	s.kind = newSessionKinds[i%len(newSessionKinds)]
	if s.kind == newSessionKinds[0] && len(known) == 0 {
		s.kind = newSessionKinds[1]
	}
	now := time.Now()
	switch s.kind {
	case newSessionKinds[0], newSessionKinds[1]:
		s.id = fmt.Sprintf("%08x-%04x-4000-8000-%012x", 0x5e550000+i, rng.IntN(0xffff), rng.Int64N(1<<40))
		if s.kind == newSessionKinds[0] {
			s.dir = known[rng.IntN(len(known))]
		} else {
			s.dir = filepath.Join(root, "src", fmt.Sprintf("new%03d", i))
			if err := os.MkdirAll(s.dir, 0o755); err != nil {
				return err
			}
		}
		proj := filepath.Join(root, ".claude", "projects", claude.EncodeProjectDir(s.dir))
		s.made = time.Now()
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return err
		}
		return writeSynth(filepath.Join(proj, s.id+".jsonl"), s.dir, uint64(i), 4<<10)
	default:
		s.id = fmt.Sprintf("019b%04x-0000-7000-8000-%012x", i, rng.Int64N(1<<40))
		s.dir = filepath.Join(root, "src", fmt.Sprintf("codex%03d", i))
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return err
		}
		day := filepath.Join(root, ".codex", "sessions", now.Format("2006"), now.Format("01"), now.Format("02"))
		s.made = time.Now()
		if err := os.MkdirAll(day, 0o755); err != nil {
			return err
		}
		return writeRollout(filepath.Join(day, "rollout-"+now.Format("2006-01-02T15-04-05")+"-"+s.id+".jsonl"), s.id, s.dir, now, 1)
	}
}

// waitListed polls the session's workspace, as a client would, until the
// session is listed, and returns how long after it was made (0: not
// within limit).
func waitListed(ctx context.Context, c *benchChild, s *newSession, limit time.Duration) time.Duration {
	dir := s.dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // the bridge names a workspace by its resolved folder
	}
	path := "/api/workspaces/" + url.PathEscape(discover.PathID(dir))
	token := c.token()
	for time.Since(s.made) < limit && ctx.Err() == nil {
		var ws apiWorkspace
		if getJSON(ctx, c.cl, path, token, &ws) == nil {
			for _, si := range ws.Sessions {
				if si.SessionID == s.id {
					return time.Since(s.made)
				}
			}
		}
		time.Sleep(listPoll)
	}
	return 0
}
