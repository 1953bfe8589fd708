package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// answer is one turn made ready for one request: the model to echo and the
// blocks, tool call ids filled in, that the request's API can carry.
type answer struct {
	seq    int
	model  string
	turn   Turn
	blocks []Block
}

func newAnswer(r Request, t Turn) answer {
	a := answer{seq: r.Seq, model: cmpModel(t.Model, r.Model(), r.API), turn: t}
	for i, b := range t.blocks(r) {
		if b.Type == "web_search" && r.API != Responses {
			continue // only the Responses API reports a search the model ran
		}
		if b.ID == "" && b.isCall() {
			if r.API == Messages {
				b.ID = fmt.Sprintf("toolu_fake%04d_%d", r.Seq, i)
			} else {
				b.ID = fmt.Sprintf("call_fake%04d_%d", r.Seq, i)
			}
		}
		a.blocks = append(a.blocks, b)
	}
	return a
}

// cmpModel is the model to echo: the turn's, else the request's, else a
// fake name in the API's family.
func cmpModel(turn, asked string, api API) string {
	switch {
	case turn != "":
		return turn
	case asked != "":
		return asked
	case api == Messages:
		return "claude-fake"
	}
	return "gpt-fake"
}

// write answers w in the request's API: an error status, one JSON body, or
// a stream. An error while streaming means the client went away or the
// server is closing: there is no one left to tell.
func (a answer) write(ctx context.Context, w http.ResponseWriter, r Request) {
	switch {
	case r.API == Messages && a.turn.Status != 0:
		a.messageError(w)
	case a.turn.Status != 0:
		a.openAIError(w)
	case r.API == Messages && !r.Streamed():
		a.messageJSON(w)
	case r.API == Messages:
		_ = a.messageStream(ctx, w)
	case r.API == Responses && !r.Streamed():
		a.responseJSON(w)
	case r.API == Responses:
		_ = a.responseStream(ctx, w)
	case !r.Streamed():
		a.chatJSON(w)
	default:
		_ = a.chatStream(ctx, w)
	}
}

// openAIError is the error body both OpenAI APIs answer with.
func (a answer) openAIError(w http.ResponseWriter) {
	typ := a.turn.ErrorType
	if typ == "" {
		typ = "server_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.turn.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"type": typ, "code": typ, "message": "fakemodel scripted " + typ},
	})
}

// sse writes server-sent events, flushing each so the client sees the
// stream progress in real time (the point of ChunkDelay).
type sse struct {
	ctx   context.Context
	w     http.ResponseWriter
	f     http.Flusher
	chunk time.Duration
}

// startStream sends the stream's headers, then waits out the turn's Delay
// and Hold.
func startStream(ctx context.Context, w http.ResponseWriter, t Turn) (*sse, error) {
	return startStreamOf(ctx, w, t, "text/event-stream")
}

// startStreamOf is startStream for a stream of another content type.
func startStreamOf(ctx context.Context, w http.ResponseWriter, t Turn, contentType string) (*sse, error) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, fmt.Errorf("response writer cannot flush")
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	s := &sse{ctx: ctx, w: w, f: f, chunk: t.ChunkDelay}
	if err := s.sleep(t.Delay); err != nil {
		return nil, err
	}
	if t.Hold != nil {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.Hold:
		}
	}
	return s, nil
}

// event sends v as an event named name.
func (s *sse) event(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	s.f.Flush()
	return nil
}

// data sends one unnamed event (the Chat API's form); v is JSON-encoded
// unless it is already a string.
func (s *sse) data(v any) error {
	line, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode chunk: %w", err)
		}
		line = string(b)
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", line); err != nil {
		return fmt.Errorf("write chunk: %w", err)
	}
	s.f.Flush()
	return nil
}

// pause waits the turn's ChunkDelay between two deltas.
func (s *sse) pause() error { return s.sleep(s.chunk) }

func (s *sse) sleep(d time.Duration) error {
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
