package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// response renders one turn for one request in the API's wire formats.
type response struct {
	id      string
	model   string
	turn    Turn
	toolIDs []string
}

func newResponse(r Request, t Turn) response {
	model := t.Model
	if model == "" {
		model = r.Body.Model
	}
	if model == "" {
		model = "claude-fake"
	}
	rsp := response{id: fmt.Sprintf("msg_fake%04d", r.Seq), model: model, turn: t}
	for i, b := range t.Blocks {
		id := b.ID
		if id == "" && b.Type == "tool_use" {
			id = fmt.Sprintf("toolu_fake%04d_%d", r.Seq, i)
		}
		rsp.toolIDs = append(rsp.toolIDs, id)
	}
	return rsp
}

func (b Block) signature() string {
	if b.Signature != "" {
		return b.Signature
	}
	return "ZmFrZS1zaWduYXR1cmU=" // base64("fake-signature"): opaque to Claude Code
}

// contentJSON is a block as it appears in a complete (non-streamed) message.
func (rsp response) contentJSON(i int) map[string]any {
	b := rsp.turn.Blocks[i]
	switch b.Type {
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.signature()}
	case "tool_use":
		return map[string]any{"type": "tool_use", "id": rsp.toolIDs[i], "name": b.Name, "input": json.RawMessage(b.inputJSON())}
	default:
		return map[string]any{"type": "text", "text": b.Text}
	}
}

func (rsp response) writeJSON(w http.ResponseWriter) {
	content := make([]map[string]any, 0, len(rsp.turn.Blocks))
	for i := range rsp.turn.Blocks {
		content = append(content, rsp.contentJSON(i))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": rsp.id, "type": "message", "role": "assistant", "model": rsp.model,
		"content": content, "stop_reason": rsp.turn.stopReason(), "stop_sequence": nil,
		"usage": rsp.turn.usage(),
	})
}

func (rsp response) writeError(w http.ResponseWriter) {
	typ := rsp.turn.ErrorType
	if typ == "" {
		typ = "api_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rsp.turn.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": "fakemodel scripted " + typ},
	})
}

// sse writes server-sent events, flushing each so the client sees the
// stream progress in real time (the point of ChunkDelay).
type sse struct {
	ctx context.Context
	w   http.ResponseWriter
	f   http.Flusher
}

func (s sse) send(event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", event, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return fmt.Errorf("write %s: %w", event, err)
	}
	s.f.Flush()
	return nil
}

func (s sse) sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return s.ctx.Err()
	case <-t.C:
		return nil
	}
}

func (rsp response) stream(ctx context.Context, w http.ResponseWriter) error {
	f, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("response writer cannot flush")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	s := sse{ctx: ctx, w: w, f: f}
	t := rsp.turn
	if err := s.sleep(t.Delay); err != nil {
		return err
	}
	if t.Hold != nil {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.Hold:
		}
	}
	u := t.usage()
	start := u
	start.OutputTokens = 1 // the real API opens with a token or so, finalised in message_delta
	if err := s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": rsp.id, "type": "message", "role": "assistant", "model": rsp.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start,
	}}); err != nil {
		return err
	}
	if err := s.send("ping", map[string]any{"type": "ping"}); err != nil {
		return err
	}
	for i := range t.Blocks {
		if err := rsp.streamBlock(s, i); err != nil {
			return err
		}
	}
	if err := s.send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": t.stopReason(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens},
	}); err != nil {
		return err
	}
	return s.send("message_stop", map[string]any{"type": "message_stop"})
}

func (rsp response) streamBlock(s sse, i int) error {
	b := rsp.turn.Blocks[i]
	var start map[string]any
	var deltas []map[string]any
	switch b.Type {
	case "thinking":
		start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		for _, c := range chunks(b.Text, rsp.turn.chunkRunes()) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b.signature()})
	case "tool_use":
		start = map[string]any{"type": "tool_use", "id": rsp.toolIDs[i], "name": b.Name, "input": map[string]any{}}
		deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": ""})
		for _, c := range chunks(b.inputJSON(), rsp.turn.chunkRunes()) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	default:
		start = map[string]any{"type": "text", "text": ""}
		for _, c := range chunks(b.Text, rsp.turn.chunkRunes()) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
	}
	if err := s.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}); err != nil {
		return err
	}
	for _, d := range deltas {
		if err := s.sleep(rsp.turn.ChunkDelay); err != nil {
			return err
		}
		if err := s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}); err != nil {
			return err
		}
	}
	return s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

// chunks splits s into pieces of at most n runes, never inside a UTF-8
// sequence, so each delta is valid text on its own.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		cut, count := 0, 0
		for cut < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut += size
			count++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
