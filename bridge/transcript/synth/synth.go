// Package synth writes realistic Claude Code transcripts (the 2.1.x
// format) for benchmarks and load tests: prompts, thinking, text, tool
// calls whose results range from a line to a large file, cost-state and
// file-history records — the mix a real working session produces.
package synth

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Writer emits one session's lines.
type Writer struct {
	W         io.Writer
	SessionID string
	Cwd       string
	Rand      *rand.Rand
	Now       time.Time

	n    int
	cost float64
}

// Continue makes the writer go on after a file's n lines: its ids then
// follow theirs rather than repeat them (a bench appending to a session).
func (s *Writer) Continue(n int) { s.n = n }

// New returns a Writer for a session in cwd, reproducible for a seed.
func New(w io.Writer, sessionID, cwd string, seed uint64) *Writer {
	return &Writer{W: w, SessionID: sessionID, Cwd: cwd, Rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		Now: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
}

func (s *Writer) line(rec map[string]any) error {
	s.n++
	s.Now = s.Now.Add(time.Duration(200+s.Rand.IntN(3000)) * time.Millisecond)
	rec["uuid"] = fmt.Sprintf("%s-%08d", s.SessionID[:8], s.n)
	rec["sessionId"] = s.SessionID
	rec["cwd"] = s.Cwd
	rec["version"] = "2.1.328"
	rec["gitBranch"] = "main"
	rec["isSidechain"] = false
	// As Claude Code (JavaScript's toISOString) writes it: always milliseconds.
	rec["timestamp"] = s.Now.UTC().Format("2006-01-02T15:04:05.000Z")
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = s.W.Write(b)
	return err
}

// Prompt writes a typed user prompt; text may carry a marker the reader
// looks for (the latency benchmark puts a timestamp there).
func (s *Writer) Prompt(text string) error {
	return s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

// Text writes one assistant text line; end marks the response that ends the turn.
func (s *Writer) Text(text string, end bool) error {
	stop := any(nil)
	if end {
		stop = "end_turn"
	}
	return s.assistant([]any{map[string]any{"type": "text", "text": text}}, stop)
}

func (s *Writer) assistant(content []any, stop any) error {
	id := fmt.Sprintf("msg_%s_%d", s.SessionID[:8], s.n)
	return s.line(map[string]any{
		"type": "assistant", "requestId": "req_" + id,
		"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens": 3 + s.Rand.IntN(50), "output_tokens": 20 + s.Rand.IntN(800),
				"cache_creation_input_tokens": s.Rand.IntN(4000), "cache_read_input_tokens": 10000 + s.Rand.IntN(60000),
			},
		},
	})
}

var commands = []string{"go test ./...", "git status", "ls -la", "npm run build", "grep -rn TODO src", "cat package.json"}

// Turn writes a whole turn: a prompt, thinking, a few tool calls with
// results of realistic sizes, a final answer, cost-state and a snapshot.
func (s *Writer) Turn(prompt string) error {
	if err := s.Prompt(prompt); err != nil {
		return err
	}
	think := map[string]any{"type": "thinking", "thinking": words(s.Rand, 40+s.Rand.IntN(200)), "signature": strings.Repeat("Sig", 100)}
	if err := s.assistant([]any{think}, nil); err != nil {
		return err
	}
	for i, n := 0, 1+s.Rand.IntN(5); i < n; i++ {
		if err := s.ToolCall(); err != nil {
			return err
		}
	}
	if err := s.Text(words(s.Rand, 20+s.Rand.IntN(150)), true); err != nil {
		return err
	}
	s.cost += 0.01 + s.Rand.Float64()*0.2
	if err := s.line(map[string]any{"type": "cost-state", "totalCostUSD": s.cost}); err != nil {
		return err
	}
	return s.line(map[string]any{"type": "file-history-snapshot", "messageId": "m", "snapshot": map[string]any{
		"trackedFileBackups": map[string]any{"src/file.go": map[string]any{"version": s.n, "backupFileName": "abc@v2"}}}})
}

// ToolCall writes one tool call of a turn and its result, of a realistic
// size: the unit a long agentic turn repeats.
func (s *Writer) ToolCall() error {
	id := fmt.Sprintf("toolu_%s_%d", s.SessionID[:8], s.n)
	name, input, size := "Bash", map[string]any{"command": commands[s.Rand.IntN(len(commands))]}, 200+s.Rand.IntN(3000)
	switch s.Rand.IntN(4) {
	case 0:
		name, input, size = "Read", map[string]any{"file_path": s.Cwd + "/src/file.go"}, 2000+s.Rand.IntN(30000)
	case 1:
		name, input, size = "Edit", map[string]any{"file_path": s.Cwd + "/src/file.go", "old_string": words(s.Rand, 30), "new_string": words(s.Rand, 40)}, 300
	}
	if s.Rand.IntN(100) == 0 {
		size = 512 << 10 // now and then a huge output (a big file, a long log)
	}
	if err := s.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}, "tool_use"); err != nil {
		return err
	}
	result := map[string]any{"type": "tool_result", "tool_use_id": id, "content": words(s.Rand, size/6), "is_error": s.Rand.IntN(10) == 0}
	if err := s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{result}},
		"toolUseResult": map[string]any{"stdout": "(elided)", "stderr": ""}}); err != nil {
		return err
	}
	return nil
}

var vocab = strings.Fields(`the func return error value test file package import string build
 run check fix handle parse read write stream event workspace agent session token cost turn line
 über naïve 日本 ok if else for range map slice struct interface nil true false`)

// words returns n pseudo-random words.
func words(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if i%12 == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[r.IntN(len(vocab))])
	}
	return b.String()
}
