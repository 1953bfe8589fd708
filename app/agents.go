package main

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/proc"
)

// agentScanner is the workspace scan with each agent's pid from the
// process table, read in-process (bridge/proc): nothing forks, however
// often it runs. A process is an agent's by its driver's rule
// (agent.Process). A session's pid comes first from its process's own
// arguments (agent.ProcessArgs: --resume <id>, --session-id <id>, Codex's
// resume <thread>); only a process that names no session the scan knows
// is placed by its working directory. Environments are never read.
type agentScanner struct {
	scan   func(context.Context) ([]discover.Workspace, error)
	agents []agent.Agent
	procs  func() ([]proc.Process, error) // a proc.Table's List in production: a walk reads only new processes
	cwd    func(pid int) (string, error)  // proc.Cwd in production
	zombie func(pid int) bool             // proc.Zombie in production; nil: none is

	mu    sync.Mutex
	table writers // the last scan's agent processes, for Unowned (unowned.go)
}

// newAgentScanner wraps s, which must not look for processes itself.
func newAgentScanner(s *discover.Scanner, agents []agent.Agent) *agentScanner {
	s.Processes = nil
	return &agentScanner{scan: s.Scan, agents: agents, procs: proc.NewTable().List, cwd: proc.Cwd, zombie: proc.Zombie}
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
	at := time.Now()
	ps, err := a.procs()
	a.note(at, ps, err)
	if err != nil || len(ws) == 0 {
		return
	}
	bySession := make(map[string]int)
	stdio := make(map[string]bool) // session id → its process sends permission prompts over stdio
	var agents []proc.Process
	holds := make(map[int]string) // pid → the agent (agent.DirectoryHeld) whose sessions a run naming none holds
	for _, p := range ps {
		ag := processAgent(a.agents, p.Comm, p.Args)
		if ag == nil {
			continue
		}
		agents = append(agents, p)
		if _, ok := ag.(agent.DirectoryHeld); ok {
			holds[p.PID] = ag.Name()
		}
		if args, ok := ag.(agent.ProcessArgs); ok {
			if id := args.SessionArg(p.Args); id != "" {
				keepLowest(bySession, id, p.PID)
				stdio[id] = stdio[id] || proc.PromptToolStdio(p.Args)
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
	heldDir := make(map[string]map[string]int) // agent → cwd → its process that names no session
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
		if name, ok := holds[p.PID]; ok {
			if heldDir[name] == nil {
				heldDir[name] = make(map[string]int)
			}
			keepLowest(heldDir[name], cwd, p.PID)
		}
	}
	for i := range ws {
		if ws[i].PID == 0 {
			ws[i].PID = byDir[ws[i].Directory]
		}
		// A run that names no session (a new `codex` session) holds one
		// of the directory's sessions of its agent, which one the process
		// table cannot say: each counts as held, so no message is resumed
		// into a thread a process is writing (Codex 0.47 would interleave
		// the two).
		for j := range ws[i].Sessions {
			s := &ws[i].Sessions[j]
			if pid := heldDir[s.Agent][ws[i].Directory]; pid != 0 && s.PID == 0 {
				s.PID = pid
			}
		}
	}
}

func keepLowest(m map[string]int, key string, pid int) {
	if old, ok := m[key]; !ok || pid < old {
		m[key] = pid
	}
}

// processAgent is the agent of agents whose process comm and args are,
// nil if none.
func processAgent(agents []agent.Agent, comm string, args []string) agent.Agent {
	for _, ag := range agents {
		if is, ok := ag.(agent.Process); ok && is.IsProcess(comm, args) {
			return ag
		}
	}
	return nil
}

// listAs is the agents of list that are also a T: the drivers as
// discovery (discover.Agent) or the hooks (inject.HookAgent) take them,
// each finding the rest by type assertion.
func listAs[T any](list []agent.Agent) []T {
	var out []T
	for _, a := range list {
		if t, ok := any(a).(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// agentFolder reports whether source, a workspace's, names an agent that
// keeps its records in one folder per directory (agent.PerDirectory): the
// workspace is a folder the agent once ran in (for Claude Code any folder,
// the home folder included), not one the bridge writes hooks into
// unasked.
func agentFolder(list []agent.Agent, source string) bool {
	for _, a := range list {
		if _, ok := a.(agent.PerDirectory); ok && a.Name() == source {
			return true
		}
	}
	return false
}
