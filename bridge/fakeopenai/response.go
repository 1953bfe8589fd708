package fakeopenai

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
	id    string
	model string
	turn  Turn
	items []Item // with ids filled in
	seq   int    // sequence_number of the next streamed event
}

func newResponse(r Request, t Turn) *response {
	model := t.Model
	if model == "" {
		model = r.Body.Model
	}
	if model == "" {
		model = "gpt-fake"
	}
	items := t.Items
	if t.Build != nil {
		items = t.Build(r)
	}
	rsp := &response{id: fmt.Sprintf("resp_fake%04d", r.Seq), model: model, turn: t}
	for i, it := range items {
		if it.ID == "" {
			prefix := map[string]string{"message": "msg", "reasoning": "rs", "function_call": "fc", "custom_tool_call": "ctc", "web_search_call": "ws"}[it.Type]
			if prefix == "" {
				prefix = "item"
			}
			it.ID = fmt.Sprintf("%s_fake%04d_%d", prefix, r.Seq, i)
		}
		if it.CallID == "" && (it.Type == "function_call" || it.Type == "custom_tool_call") {
			it.CallID = fmt.Sprintf("call_fake%04d_%d", r.Seq, i)
		}
		rsp.items = append(rsp.items, it)
	}
	return rsp
}

// itemJSON is an item as it appears when complete (output_item.done and
// the final response's output).
func itemJSON(it Item) map[string]any {
	switch it.Type {
	case "reasoning":
		summary := []any{}
		if it.Text != "" {
			summary = append(summary, map[string]any{"type": "summary_text", "text": it.Text})
		}
		return map[string]any{"type": "reasoning", "id": it.ID, "summary": summary, "encrypted_content": nil}
	case "function_call":
		return map[string]any{"type": "function_call", "id": it.ID, "status": "completed", "call_id": it.CallID, "name": it.Name, "arguments": it.argumentsJSON()}
	case "custom_tool_call":
		return map[string]any{"type": "custom_tool_call", "id": it.ID, "status": "completed", "call_id": it.CallID, "name": it.Name, "input": it.Input}
	case "web_search_call":
		return map[string]any{"type": "web_search_call", "id": it.ID, "status": "completed", "action": map[string]any{"type": "search", "query": it.Text}}
	default:
		return map[string]any{"type": "message", "id": it.ID, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}}}
	}
}

// startJSON is an item as output_item.added announces it: empty.
func startJSON(it Item) map[string]any {
	switch it.Type {
	case "reasoning":
		return map[string]any{"type": "reasoning", "id": it.ID, "summary": []any{}}
	case "function_call":
		return map[string]any{"type": "function_call", "id": it.ID, "status": "in_progress", "call_id": it.CallID, "name": it.Name, "arguments": ""}
	case "custom_tool_call":
		return map[string]any{"type": "custom_tool_call", "id": it.ID, "status": "in_progress", "call_id": it.CallID, "name": it.Name, "input": ""}
	case "web_search_call":
		return map[string]any{"type": "web_search_call", "id": it.ID, "status": "in_progress"}
	default:
		return map[string]any{"type": "message", "id": it.ID, "status": "in_progress", "role": "assistant", "content": []any{}}
	}
}

func (rsp *response) body(status string) map[string]any {
	out := []any{}
	if status != "in_progress" {
		for _, it := range rsp.items {
			out = append(out, itemJSON(it))
		}
	}
	b := map[string]any{
		"id": rsp.id, "object": "response", "created_at": time.Now().Unix(), "status": status,
		"model": rsp.model, "output": out,
	}
	if status == "completed" {
		b["usage"] = rsp.turn.usage().wire()
	}
	return b
}

func (rsp *response) writeJSON(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rsp.body("completed"))
}

func (rsp *response) writeError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rsp.turn.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"type": "server_error", "code": "server_error", "message": "fakeopenai scripted error"},
	})
}

// sse writes server-sent events, flushing each so the client sees the
// stream progress in real time (the point of ChunkDelay).
type sse struct {
	ctx context.Context
	w   http.ResponseWriter
	f   http.Flusher
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

// send writes one event; fields are merged into {"type": typ,
// "sequence_number": n}.
func (rsp *response) send(s sse, typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = rsp.seq
	rsp.seq++
	data, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encode %s: %w", typ, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", typ, data); err != nil {
		return fmt.Errorf("write %s: %w", typ, err)
	}
	s.f.Flush()
	return nil
}

func (rsp *response) stream(ctx context.Context, w http.ResponseWriter) error {
	f, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("response writer cannot flush")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	s := sse{ctx: ctx, w: w, f: f}
	if err := s.sleep(rsp.turn.Delay); err != nil {
		return err
	}
	if err := rsp.send(s, "response.created", map[string]any{"response": rsp.body("in_progress")}); err != nil {
		return err
	}
	if err := rsp.send(s, "response.in_progress", map[string]any{"response": rsp.body("in_progress")}); err != nil {
		return err
	}
	for i := range rsp.items {
		if err := rsp.streamItem(s, i); err != nil {
			return err
		}
	}
	if rsp.turn.Fail != "" {
		b := rsp.body("failed")
		b["error"] = map[string]any{"code": "server_error", "message": rsp.turn.Fail}
		return rsp.send(s, "response.failed", map[string]any{"response": b})
	}
	return rsp.send(s, "response.completed", map[string]any{"response": rsp.body("completed")})
}

// deltas sends text in chunks as events of type typ, with the given
// fields added to each.
func (rsp *response) deltas(s sse, typ, text string, fields map[string]any) error {
	for _, c := range chunks(text, rsp.turn.chunkRunes()) {
		if err := s.sleep(rsp.turn.ChunkDelay); err != nil {
			return err
		}
		ev := map[string]any{"delta": c}
		for k, v := range fields {
			ev[k] = v
		}
		if err := rsp.send(s, typ, ev); err != nil {
			return err
		}
	}
	return nil
}

func (rsp *response) streamItem(s sse, i int) error {
	it := rsp.items[i]
	at := map[string]any{"item_id": it.ID, "output_index": i}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range at {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	if err := rsp.send(s, "response.output_item.added", map[string]any{"output_index": i, "item": startJSON(it)}); err != nil {
		return err
	}
	var err error
	switch it.Type {
	case "reasoning":
		if it.Text == "" {
			break
		}
		part := map[string]any{"summary_index": 0}
		if err = rsp.send(s, "response.reasoning_summary_part.added", with(map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})); err != nil {
			return err
		}
		if err = rsp.deltas(s, "response.reasoning_summary_text.delta", it.Text, with(part)); err != nil {
			return err
		}
		if err = rsp.send(s, "response.reasoning_summary_text.done", with(map[string]any{"summary_index": 0, "text": it.Text})); err != nil {
			return err
		}
		err = rsp.send(s, "response.reasoning_summary_part.done", with(map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": it.Text}}))
	case "function_call":
		args := it.argumentsJSON()
		if err = rsp.deltas(s, "response.function_call_arguments.delta", args, at); err != nil {
			return err
		}
		err = rsp.send(s, "response.function_call_arguments.done", with(map[string]any{"arguments": args}))
	case "web_search_call":
		for _, phase := range []string{"in_progress", "searching", "completed"} {
			if err = rsp.send(s, "response.web_search_call."+phase, with(nil)); err != nil {
				return err
			}
		}
	case "custom_tool_call":
		if err = rsp.deltas(s, "response.custom_tool_call_input.delta", it.Input, at); err != nil {
			return err
		}
		err = rsp.send(s, "response.custom_tool_call_input.done", with(map[string]any{"input": it.Input}))
	default:
		empty := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		if err = rsp.send(s, "response.content_part.added", with(map[string]any{"content_index": 0, "part": empty})); err != nil {
			return err
		}
		if err = rsp.deltas(s, "response.output_text.delta", it.Text, with(map[string]any{"content_index": 0})); err != nil {
			return err
		}
		if err = rsp.send(s, "response.output_text.done", with(map[string]any{"content_index": 0, "text": it.Text})); err != nil {
			return err
		}
		err = rsp.send(s, "response.content_part.done", with(map[string]any{"content_index": 0,
			"part": map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}}))
	}
	if err != nil {
		return err
	}
	return rsp.send(s, "response.output_item.done", map[string]any{"output_index": i, "item": itemJSON(it)})
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
