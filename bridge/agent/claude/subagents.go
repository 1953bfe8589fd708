package claude

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/regular"
	"conductorbridge/bridge/transcript"
)

// Claude Code 2.1 writes each subagent's (Task/Agent) transcript to
// <project>/<session id>/subagents/agent-*.jsonl, and 2.0 to
// <project>/agent-*.jsonl beside the session's own file (each line names
// its session in sessionId); 1.0 wrote them inline (isSidechain), which
// the session's own parser reads. The engine follows the files of a live
// session with its transcript (agent.Nested).

// SubagentGlob is 2.1's subagent files of the session in record:
// <project>/<session id>/subagents/*.jsonl.
func (Agent) SubagentGlob(record string) string {
	id := strings.TrimSuffix(filepath.Base(record), filepath.Ext(record))
	return filepath.Join(filepath.Dir(record), id, "subagents", "*.jsonl")
}

// BesideGlob is 2.0's subagent files, beside every session's transcript
// in the project folder.
func (Agent) BesideGlob(record string) string {
	return filepath.Join(filepath.Dir(record), "agent-*.jsonl")
}

// NewSubParser resumes the parser of one subagent file.
func (Agent) NewSubParser(saved json.RawMessage) (agent.SubParser, error) {
	return transcript.NewSubParser(saved)
}

// firstLineMax bounds what is read to find a file's first line; a 2.0
// subagent's first line is its prompt, a few KB.
const firstLineMax = 256 << 10

// BesideSession reads the session id on a 2.0 subagent file's first
// line. decided is false while that line is not complete (the file was
// just made); a file that is gone or whose first line names no session is
// decided with no session.
func (Agent) BesideSession(file string) (session string, decided bool) {
	fh, err := regular.Open(file) // a FIFO named agent-*.jsonl must not hang the workspace
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
