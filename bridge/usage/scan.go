package usage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/price"
)

// Source is where the history is: each agent's folder and the prices.
type Source struct {
	ClaudeProjects string       // ~/.claude/projects ("" or missing: none)
	CodexHome      string       // $CODEX_HOME, ~/.codex ("" or missing: none)
	Prices         *price.Table // nil: the built-in table
	Workers        int          // files read at once; 0: GOMAXPROCS
	Cache          *Cache       // nil: every Read parses every file
}

// History is every turn read, oldest first, with what was read.
type History struct {
	Turns  []Turn
	Limits []Limit // the newest plan limits recorded, by agent and window
	Files  int
	Bytes  int64
	Errors []string // files that could not be read (the rest still count)
}

// group is one unit of work: a Claude session's files (its own first,
// then its subagents'), or one Codex rollout.
type group struct {
	agent   string
	files   []string
	session string // from the file name, until the lines say
	orphan  bool   // subagent files whose session file is gone
	size    int64
	mod     time.Time
}

// Read reads the whole history, files in parallel (at most Workers at
// once, each streamed line by line).
func (s Source) Read(ctx context.Context) (*History, error) {
	prices := s.Prices
	if prices == nil {
		prices = price.Default()
	}
	groups, err := s.groups()
	if err != nil {
		return nil, err
	}
	// Largest first, so one big session does not finish last alone.
	slices.SortFunc(groups, func(a, b group) int { return cmp.Compare(b.size, a.size) })
	workers := cmp.Or(s.Workers, runtime.GOMAXPROCS(0))
	h := &History{}
	var mu sync.Mutex // guards h, parts and limits
	var parts [][]Turn
	limits := map[string]Limit{}
	work := make(chan group)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var turns [][]Turn // by group: joined once at the end
			var bufs buffers   // this worker's, lent to each file it reads
			for g := range work {
				c, ok := s.Cache.get(g)
				if !ok {
					c = readGroup(g, prices, &bufs)
					if c.err == nil { // a file that failed is tried again next time
						s.Cache.put(g, c)
					}
				}
				turns = append(turns, c.turns)
				mu.Lock()
				for _, l := range c.limits {
					k := l.Agent + "/" + l.Name
					if old, ok := limits[k]; !ok || l.Seen.After(old.Seen) {
						limits[k] = l
					}
				}
				h.Files += len(g.files)
				h.Bytes += c.bytes
				if c.err != nil {
					h.Errors = append(h.Errors, c.err.Error())
				}
				mu.Unlock()
			}
			mu.Lock()
			parts = append(parts, turns...)
			mu.Unlock()
		})
	}
feed:
	for _, g := range groups {
		select {
		case work <- g:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read usage history: %w", err)
	}
	s.Cache.keep(groups)
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h.Turns = make([]Turn, 0, n)
	for _, p := range parts {
		h.Turns = append(h.Turns, p...)
	}
	slices.SortStableFunc(h.Turns, func(a, b Turn) int { return a.End.Compare(b.End) })
	for _, l := range limits {
		h.Limits = append(h.Limits, l)
	}
	slices.SortFunc(h.Limits, func(a, b Limit) int { return cmp.Compare(a.Agent+a.Name, b.Agent+b.Name) })
	return h, nil
}

// readGroup reads one unit of work.
func readGroup(g group, prices *price.Table, bufs *buffers) cached {
	var c cached
	collect := func(t Turn) { c.turns = append(c.turns, t) }
	if g.agent == AgentCodex {
		c.bytes, c.err = readCodex(g.files[0], prices, collect, func(ls []Limit) { c.limits = ls })
	} else {
		c.bytes, c.err = readClaude(g, prices, bufs, collect)
	}
	return c
}

// groups lists the work: every Claude session with its subagents' files,
// and every Codex rollout.
func (s Source) groups() ([]group, error) {
	var out []group
	claude, err := claudeGroups(s.ClaudeProjects)
	if err != nil {
		return nil, err
	}
	out = append(out, claude...)
	if s.CodexHome != "" {
		err := filepath.WalkDir(codex.SessionsDir(s.CodexHome), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // a missing or unreadable folder hides only itself
			}
			if d.IsDir() || !strings.HasPrefix(d.Name(), "rollout-") || !strings.HasSuffix(d.Name(), ".jsonl") {
				return nil
			}
			info, err := d.Info()
			if err != nil || !info.Mode().IsRegular() {
				return nil
			}
			out = append(out, group{agent: AgentCodex, files: []string{path}, size: info.Size(), mod: info.ModTime()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list codex rollouts: %w", err)
		}
	}
	return out, nil
}

// claudeGroups walks the projects folder. A session is <project>/<id>.jsonl;
// its subagents write <project>/<id>/subagents/*.jsonl (2.1) or
// <project>/agent-*.jsonl naming the session inside (2.0). 1.0 writes
// them inline, which the parser reads as it reads the session.
func claudeGroups(root string) ([]group, error) {
	if root == "" {
		return nil, nil
	}
	sessions := map[string]*group{} // by session file path minus .jsonl
	var loose []string              // subagent files, attached once all sessions are known
	var sizes = map[string]fs.FileInfo{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		sizes[path] = info
		rel, _ := filepath.Rel(root, path)
		depth := strings.Count(rel, string(filepath.Separator))
		if depth == 1 && !strings.HasPrefix(d.Name(), "agent-") {
			key := strings.TrimSuffix(path, ".jsonl")
			sessions[key] = &group{agent: AgentClaude, files: []string{path}, session: strings.TrimSuffix(d.Name(), ".jsonl"),
				size: info.Size(), mod: info.ModTime()}
			return nil
		}
		loose = append(loose, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list claude transcripts in %s: %w", root, err)
	}
	var orphans []group
	for _, path := range loose {
		key := ""
		dir := filepath.Dir(path)
		if filepath.Base(dir) == "subagents" {
			key = filepath.Dir(dir) // <project>/<id>/subagents/x.jsonl → <project>/<id>
		} else if sid, err := firstSessionID(path); err == nil && sid != "" {
			key = filepath.Join(dir, sid) // 2.0: agent-*.jsonl names its session
		}
		info := sizes[path]
		if g, ok := sessions[key]; ok {
			g.files = append(g.files, path)
			g.size += info.Size()
			if info.ModTime().After(g.mod) {
				g.mod = info.ModTime()
			}
			continue
		}
		sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		if key != "" {
			sid = filepath.Base(key)
		}
		orphans = append(orphans, group{agent: AgentClaude, files: []string{path}, orphan: true,
			session: sid, size: info.Size(), mod: info.ModTime()})
	}
	out := make([]group, 0, len(sessions)+len(orphans))
	for _, g := range sessions {
		slices.Sort(g.files[1:])
		out = append(out, *g)
	}
	return append(out, orphans...), nil
}
