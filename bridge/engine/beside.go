package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"

	"time"

	"conductorbridge/bridge/transcript"
)

// besideAgents is what a session knows of the agent-*.jsonl files Claude
// Code 2.0 writes beside the transcripts of its project folder. The
// folder holds every session's, so each file's first line says whose it
// is (sessionId); that is read once per file.
type besideAgents struct {
	dirMod  time.Time
	pending map[string]bool // no complete first line yet: looked at again on each read
	foreign map[string]bool // another session's
}

// firstLineMax bounds what is read to find a file's first line; a 2.0
// subagent's first line is its prompt, a few KB.
const firstLineMax = 256 << 10

// isBeside reports whether p is a subagent file beside the session's
// record (Claude Code 2.0's), by the agent's pattern.
func (f *tail) isBeside(p string) bool {
	glob := f.besideGlob()
	ok, _ := filepath.Match(glob, p)
	return glob != "" && ok
}

// besideGlob is the agent's pattern of subagent files beside the
// session's record, "" if none.
func (f *tail) besideGlob() string {
	if f.nest == nil {
		return ""
	}
	return f.nest.BesideGlob(f.reader.Path)
}

// findBeside adds the session's 2.0 subagent files. With look, the
// folder is listed when its modification time changed (or within two
// seconds of it, for coarse clocks), like the 2.1 subagents folder.
func (f *tail) findBeside(w *workspace, cold, look bool) {
	glob := f.besideGlob()
	if glob == "" {
		return
	}
	dir := filepath.Dir(f.reader.Path)
	if f.beside == nil {
		f.beside = &besideAgents{}
	}
	b := f.beside
	if look && dirChanged(dir, &b.dirMod) {
		names, _ := filepath.Glob(glob)
		for _, p := range names {
			if _, ok := f.subs[p]; ok || b.foreign[p] {
				continue
			}
			if b.pending == nil {
				b.pending = make(map[string]bool)
			}
			b.pending[p] = true
		}
	}
	for p := range b.pending {
		sid, decided := agentSession(p)
		if !decided {
			continue
		}
		delete(b.pending, p)
		if sid != f.id {
			if b.foreign == nil {
				b.foreign = make(map[string]bool)
			}
			b.foreign[p] = true
			continue
		}
		f.addSub(w, p, cold)
	}
}

// agentSession reads the session id on a subagent file's first line.
// decided is false while that line is not complete (the file was just
// made); a file that is gone or whose first line names no session is
// decided with no session.
func agentSession(p string) (sid string, decided bool) {
	fh, err := transcript.OpenRegular(p) // a FIFO named agent-*.jsonl must not hang the workspace
	if err != nil {
		return "", true
	}
	defer fh.Close()
	buf := make([]byte, 4096)
	var line []byte
	for len(line) < firstLineMax {
		n, err := fh.Read(buf)
		seen := len(line)
		line = append(line, buf[:n]...)
		if i := bytes.IndexByte(line[seen:], '\n'); i >= 0 {
			i += seen
			var first struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(line[:i], &first) != nil {
				return "", true
			}
			return first.SessionID, true
		}
		if err == io.EOF {
			return "", false
		}
		if err != nil {
			return "", true
		}
	}
	return "", true // no line break in the first 256 KB: not a transcript we read
}
