package claude

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// BesideSession is the session a 2.0 subagent file belongs to (besideOwner).
// decided is false while that cannot be told yet (the file was just made, or
// a warm-up waits for its answer); a file that is gone or whose first line
// names no session is decided with no session.
func (Agent) BesideSession(file string) (session string, decided bool) {
	return besideOwner(file)
}

// besideOwner tells whose a 2.0 agent-*.jsonl beside the session files
// is: the session its first line names — but for a warm-up (a lone
// "Warmup" prompt) whose first line names a session whose own record is
// empty or missing. `claude -p --resume <id>` (2.0.77) starts under an id
// of its own, makes an empty <new id>.jsonl that it never writes to, and
// sends its warm-ups before it takes the resumed session's id: their
// prompts name the empty session, their answers (what they cost) the
// resumed one. The answer's session owns such a file; until the answer is
// written, whose it is waits. (A new session's warm-ups can be written
// before its own record too: their answers name the same session.) When
// the run takes the resumed id late (a SessionStart hook holds it up),
// the answer too names the empty session: then the file is the session's
// whose prompt came next in the folder (resumedAfter), as a resumed run
// writes it a moment after its warm-ups; while none has, and the warm-up
// is younger than resumeWindow, whose it is waits.
func besideOwner(file string) (session string, decided bool) {
	return besideOwnerAt(file, time.Now())
}

func besideOwnerAt(file string, now time.Time) (session string, decided bool) {
	fh, err := regular.Open(file) // a FIFO named agent-*.jsonl must not hang the workspace
	if err != nil {
		return "", true
	}
	defer fh.Close()
	buf := make([]byte, 4096)
	var data []byte
	first := -1 // where the first line ends, once known
	sid, warm := "", false
	var asked time.Time // when the warm-up was sent
	for {
		n, err := fh.Read(buf)
		data = append(data, buf[:n]...)
		if first < 0 {
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				first = i
				var line struct {
					SessionID string    `json:"sessionId"`
					Timestamp time.Time `json:"timestamp"`
					Message   struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				}
				if json.Unmarshal(data[:i], &line) != nil {
					return "", true
				}
				sid, asked = line.SessionID, line.Timestamp
				warm = sid != "" && isWarmup(line.Message.Content) && emptyRecord(filepath.Join(filepath.Dir(file), sid+".jsonl"))
				if !warm {
					return sid, true
				}
			} else if len(data) >= firstLineMax {
				return "", true // no line break in the first 256 KB: not a transcript we read
			}
		}
		if first >= 0 {
			if owner, ok := answerSession(data[first+1:]); ok {
				if !emptyRecord(filepath.Join(filepath.Dir(file), owner+".jsonl")) {
					return owner, true
				}
				if resumed := resumedAfter(filepath.Dir(file), asked); resumed != "" {
					return resumed, true
				}
				if now.Sub(asked) < resumeWindow {
					return "", false
				}
				return owner, true // no session's prompt came: the empty one's, which counts nowhere
			}
			if len(data) >= firstLineMax {
				return sid, true // no answer near its start: the prompt's session's
			}
		}
		if err == io.EOF {
			return "", false
		}
		if err != nil {
			return "", true
		}
	}
}

// isWarmup reports whether a prompt's content is 2.0's warm-up: "Warmup".
func isWarmup(content json.RawMessage) bool {
	var s string
	return json.Unmarshal(content, &s) == nil && strings.TrimSpace(s) == "Warmup"
}

// emptyRecord reports whether a session's record holds nothing (or is
// missing).
func emptyRecord(path string) bool {
	info, err := os.Stat(path)
	return err != nil || info.Size() == 0
}

// answerSession is the session named by the first whole assistant line
// of rest, and whether there is one.
func answerSession(rest []byte) (string, bool) {
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "", false
		}
		var line struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(rest[:i], &line) == nil && line.Type == "assistant" && line.SessionID != "" {
			return line.SessionID, true
		}
		rest = rest[i+1:]
	}
}
