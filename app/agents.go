package main

import (
	"context"
	"path/filepath"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/proc"
)

// agentScanner is the workspace scan with each agent's pid (Claude Code
// or Codex) from the process table, read in-process (bridge/proc):
// nothing forks, however often it runs. A session's pid comes first from
// its process's own arguments (--resume <id>, --session-id <id>, Codex's
// resume <thread>); only a process that names no session the scan knows
// is placed by its working directory. Environments are never read.
type agentScanner struct {
	scan  func(context.Context) ([]discover.Workspace, error)
	procs func() ([]proc.Process, error) // proc.List in production
	cwd   func(pid int) (string, error)  // proc.Cwd in production
}

// newAgentScanner wraps s, which must not look for processes itself.
func newAgentScanner(s *discover.Scanner) *agentScanner {
	s.Processes = func() (map[string]int, error) { return nil, nil }
	return &agentScanner{scan: s.Scan, procs: proc.List, cwd: proc.Cwd}
}

func (a *agentScanner) Scan(ctx context.Context) ([]discover.Workspace, error) {
	ws, err := a.scan(ctx)
	a.assign(ws)
	return ws, err
}

// assign sets the PID of every session and workspace it can place. When
// several processes claim one session or directory (a wrapper and the
// binary it started), the lowest pid wins, so the answer is stable.
func (a *agentScanner) assign(ws []discover.Workspace) {
	ps, err := a.procs()
	if err != nil || len(ws) == 0 {
		return
	}
	bySession := make(map[string]int)
	stdio := make(map[string]bool) // session id → its process sends permission prompts over stdio
	var agents []proc.Process
	codexes := make(map[int]bool) // pids of Codex processes among agents
	for _, p := range ps {
		switch {
		case discover.IsClaudeCommand(p.Comm, p.Args):
			agents = append(agents, p)
			if id := proc.SessionArg(p.Args); id != "" {
				keepLowest(bySession, id, p.PID)
				stdio[id] = stdio[id] || proc.PromptToolStdio(p.Args)
			}
		case discover.IsCodexCommand(p.Comm, p.Args):
			agents = append(agents, p)
			codexes[p.PID] = true
			if id := proc.CodexThreadArg(p.Args); id != "" {
				keepLowest(bySession, id, p.PID)
			}
		}
	}
	if len(agents) == 0 {
		return
	}
	placed := make(map[int]bool)
	for i := range ws {
		for j := range ws[i].Sessions {
			s := &ws[i].Sessions[j]
			if pid := bySession[s.ID]; pid != 0 {
				s.PID, s.StdioPrompts = pid, stdio[s.ID]
				placed[pid] = true
				if ws[i].PID == 0 || pid < ws[i].PID {
					ws[i].PID = pid
				}
			}
		}
	}
	byDir := make(map[string]int)
	codexDir := make(map[string]int) // cwd → a Codex process that names no thread
	for _, p := range agents {
		if placed[p.PID] {
			continue
		}
		cwd, err := a.cwd(p.PID)
		if err != nil || !filepath.IsAbs(cwd) {
			continue // gone, or another user's
		}
		if r, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = r
		}
		keepLowest(byDir, cwd, p.PID)
		if codexes[p.PID] {
			keepLowest(codexDir, cwd, p.PID)
		}
	}
	for i := range ws {
		if ws[i].PID == 0 {
			ws[i].PID = byDir[ws[i].Directory]
		}
		// A Codex run that names no thread (a new `codex` session) holds
		// one of the directory's Codex sessions, which one the process
		// table cannot say: each counts as held, so no message is
		// resumed into a thread a process is writing (0.47 would
		// interleave the two).
		if pid := codexDir[ws[i].Directory]; pid != 0 {
			for j := range ws[i].Sessions {
				if s := &ws[i].Sessions[j]; s.Agent == discover.AgentCodex && s.PID == 0 {
					s.PID = pid
				}
			}
		}
	}
}

func keepLowest(m map[string]int, key string, pid int) {
	if old, ok := m[key]; !ok || pid < old {
		m[key] = pid
	}
}
