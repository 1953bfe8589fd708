package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"conductorbridge/bridge/regular"
)

// resumeWindow is how long after its warm-ups a resumed run's prompt may
// come: 2.0.77 writes it a fraction of a second later, after its
// SessionStart hooks.
const resumeWindow = 30 * time.Second

// resumedAfter is the session in dir whose record holds the first prompt
// written at or after asked, within resumeWindow: the session a
// `claude -p --resume` run took once its warm-ups, sent under the id it
// started with, were out. "" if none has.
func resumedAfter(dir string, asked time.Time) string {
	if asked.IsZero() {
		return ""
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	best, bestAt := "", time.Time{}
	for _, p := range names {
		base := filepath.Base(p)
		if strings.HasPrefix(base, "agent-") {
			continue
		}
		info, err := os.Stat(p)
		if err != nil || info.Size() == 0 || info.ModTime().Before(asked.Add(-time.Second)) {
			continue // written before the warm-ups: no prompt after them (a second for coarse clocks)
		}
		if at, ok := firstPromptAfter(p, asked); ok && (best == "" || at.Before(bestAt)) {
			best, bestAt = strings.TrimSuffix(base, ".jsonl"), at
		}
	}
	return best
}

// firstPromptAfter is when the record at path holds its first prompt (a
// person's, not a tool's result nor a subagent's) at or after asked, and
// within resumeWindow of it.
func firstPromptAfter(path string, asked time.Time) (time.Time, bool) {
	f, err := regular.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"type":"user"`)) {
			continue
		}
		var l struct {
			Type        string    `json:"type"`
			IsSidechain bool      `json:"isSidechain"`
			Timestamp   time.Time `json:"timestamp"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &l) != nil || l.Type != "user" || l.IsSidechain || !isPrompt(l.Message.Content) {
			continue
		}
		if !l.Timestamp.Before(asked) {
			return l.Timestamp, !l.Timestamp.After(asked.Add(resumeWindow))
		}
	}
	return time.Time{}, false
}

// isPrompt reports whether a user line's content is a person's prompt: a
// string, or blocks of which none is a tool's result.
func isPrompt(content json.RawMessage) bool {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return true
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(content, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return false
		}
	}
	return true
}
