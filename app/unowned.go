package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/proc"
)

var _ engine.ProcessWitness = (*agentScanner)(nil)

// Which live agent process can be writing a session. An agent already
// dead when the bridge first reads its open turn (the bridge started
// after a crash, a session found late) was never seen alive, so the
// engine cannot end its turn as that agent's (engine/orphan.go). But
// where the bridge sees every agent process, "none can be this session's
// writer" is knowable: after a scan that read the whole process table,
// no process of the session's agent names the session, runs in its
// directory or below it, or names that directory in its arguments, and
// none is a server that may run sessions anywhere (agent.Serving). Then
// the engine ends the turn after the short quiet it gives a dead agent
// (engine.ProcessWitness), not the long one of a record from elsewhere.
//
// Doubt keeps a turn open: a process whose directory cannot be read (but
// for one that has exited and waits to be reaped: a zombie), one
// naming another session in the session's directory (after /clear, or a
// fork, a process writes a session its arguments do not name), a scan
// that could not read the table.

// writers is the agent processes one scan found.
type writers struct {
	at    time.Time // when the scan began reading the table; zero: it could not
	procs []writer
}

// writer is one live agent process.
type writer struct {
	agent   string   // its driver's Name
	session string   // the session its arguments name, "" if none
	cwd     string   // its working directory, symlinks resolved; "" if unreadable
	serves  bool     // a server whose sessions may be anywhere (agent.Serving)
	paths   []string // what its arguments name as paths, resolved against cwd
}

// note keeps what a scan that began at at found in the process table.
func (a *agentScanner) note(at time.Time, ps []proc.Process, err error) {
	var w writers
	if err == nil {
		w.at = at
		for _, p := range ps {
			ag := processAgent(a.agents, p.Comm, p.Args)
			if ag == nil {
				continue
			}
			if wr, ok := a.writer(ag, p); ok {
				w.procs = append(w.procs, wr)
			}
		}
	}
	a.mu.Lock()
	a.table = w
	a.mu.Unlock()
}

// writer is what p, a process of ag, may write; false for one that has
// exited and only waits to be reaped (a zombie: its pid and name still
// show, its folder does not), which writes nothing.
func (a *agentScanner) writer(ag agent.Agent, p proc.Process) (writer, bool) {
	wr := writer{agent: ag.Name()}
	if args, ok := ag.(agent.ProcessArgs); ok {
		wr.session = args.SessionArg(p.Args)
	}
	if s, ok := ag.(agent.Serving); ok {
		wr.serves = s.Serves(p.Args)
	}
	if cwd, err := a.cwd(p.PID); err == nil && filepath.IsAbs(cwd) {
		wr.cwd = resolved(cwd)
	} else if a.zombie != nil && a.zombie(p.PID) {
		return wr, false
	}
	for _, arg := range p.Args {
		if _, v, ok := strings.Cut(arg, "="); ok {
			arg = v // --cd=dir
		}
		if arg == "" || len(arg) > maxPathArg || strings.ContainsRune(arg, '\n') {
			continue
		}
		if !filepath.IsAbs(arg) {
			if wr.cwd == "" {
				continue
			}
			arg = filepath.Join(wr.cwd, arg)
		}
		wr.paths = append(wr.paths, filepath.Clean(arg), resolved(arg))
	}
	return wr, true
}

// maxPathArg is the longest argument taken for a path: longer ones are
// prompts.
const maxPathArg = 4096

// resolved is path with its symlinks resolved, itself if that fails.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}

// Unowned reports whether the last scan found no live process of agent
// that can be writing session id, whose workspace is dir (absolute,
// symlinks resolved), and when that scan began reading the process
// table: zero when it could not. An agent the table cannot show (no
// driver that tells its process), or a directory not on this machine (a
// record from elsewhere), is never unowned.
func (a *agentScanner) Unowned(dir, id, agentName string) (time.Time, bool) {
	a.mu.Lock()
	t := a.table
	a.mu.Unlock()
	if t.at.IsZero() {
		return t.at, false
	}
	if !a.shows(agentName) {
		return t.at, false
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return t.at, false
	}
	for _, p := range t.procs {
		if p.agent == agentName && p.mayWrite(dir, id) {
			return t.at, false
		}
	}
	return t.at, true
}

// shows reports whether the process table can show agentName's runs.
func (a *agentScanner) shows(agentName string) bool {
	for _, ag := range a.agents {
		if _, ok := ag.(agent.Process); ok && ag.Name() == agentName {
			return true
		}
	}
	return false
}

// mayWrite reports whether the process can be writing session id of dir.
func (p writer) mayWrite(dir, id string) bool {
	if p.session == id || p.serves || p.cwd == "" || within(p.cwd, dir) {
		return true
	}
	for _, path := range p.paths {
		if within(path, dir) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
