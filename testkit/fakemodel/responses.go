package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// ResponsesRequest is the part of a Responses API request body tests look
// at; Raw keeps everything.
type ResponsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Stream       bool            `json:"stream"`
	Input        []InputItem     `json:"input"`
	Tools        []ResponsesTool `json:"tools,omitempty"`
	Reasoning    json.RawMessage `json:"reasoning,omitempty"`
	Store        bool            `json:"store"`
	PromptCache  string          `json:"prompt_cache_key,omitempty"`
}

// ResponsesTool is a tool definition offered on the Responses API.
// Built-in tools (web_search, local_shell) have a Type and no Name.
type ResponsesTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// InputItem is one item of the conversation sent back to the model.
type InputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Output  json.RawMessage `json:"output"`
}

// Text joins the text parts of a message item.
func (it InputItem) Text() string { return textOf(it.Content, "\n", nil) }

func (b ResponsesRequest) userTexts() []string {
	var out []string
	for _, it := range b.Input {
		if (it.Type == "message" || it.Type == "") && it.Role == "user" {
			out = append(out, it.Text())
		}
	}
	return out
}

func (b ResponsesRequest) texts() []string {
	var out []string
	for _, it := range b.Input {
		out = append(out, it.Text())
	}
	return out
}

func (b ResponsesRequest) toolOutputs() map[string]string {
	out := map[string]string{}
	for _, it := range b.Input {
		if it.CallID != "" && len(it.Output) > 0 {
			out[it.CallID] = textOf(it.Output, "", nil)
		}
	}
	return out
}

// runningSession is how Codex's exec_command and write_stdin say the
// command goes on after the call yielded.
var runningSession = regexp.MustCompile(`(?m)^Process running with session ID (\d+)$`)

// running returns the session of the command still running whose output
// is the request's newest item, if it is one.
func (b ResponsesRequest) running() (int, bool) {
	if len(b.Input) == 0 {
		return 0, false
	}
	it := b.Input[len(b.Input)-1]
	if it.Type != "function_call_output" {
		return 0, false
	}
	m := runningSession.FindStringSubmatch(textOf(it.Output, "", nil))
	if m == nil {
		return 0, false
	}
	id, err := strconv.Atoi(m[1])
	return id, err == nil
}

// pollTurn answers a KindPoll request: write_stdin with nothing to write
// polls the session for as long as an empty poll may wait (5 min; it
// returns as soon as the command ends), spending no tokens.
func pollTurn(r Request) Turn {
	id, _ := r.Responses.running()
	return Turn{Blocks: []Block{ToolUse("write_stdin", map[string]any{"session_id": id, "chars": "", "yield_time_ms": 300000})}, noUsage: true}
}

// itemTypes names each block's Responses API output item, and the prefix
// of its generated id.
var itemTypes = map[string][2]string{
	"text":        {"message", "msg"},
	"thinking":    {"reasoning", "rs"},
	"tool_use":    {"function_call", "fc"},
	"custom_tool": {"custom_tool_call", "ctc"},
	"web_search":  {"web_search_call", "ws"},
}

// item is a block as a Responses API output item.
type item struct {
	Block
	typ string // the item's type
	id  string // the item's id (the block's ID is its call_id)
}

func (a answer) items() []item {
	out := make([]item, 0, len(a.blocks))
	for i, b := range a.blocks {
		t, ok := itemTypes[b.Type]
		if !ok {
			t = itemTypes["text"]
		}
		out = append(out, item{Block: b, typ: t[0], id: fmt.Sprintf("%s_fake%04d_%d", t[1], a.seq, i)})
	}
	return out
}

// done is the item as it appears when complete (output_item.done and the
// final response's output).
func (it item) done() map[string]any {
	switch it.typ {
	case "reasoning":
		summary := []any{}
		if it.Text != "" {
			summary = append(summary, map[string]any{"type": "summary_text", "text": it.Text})
		}
		return map[string]any{"type": "reasoning", "id": it.id, "summary": summary, "encrypted_content": nil}
	case "function_call":
		return map[string]any{"type": "function_call", "id": it.id, "status": "completed", "call_id": it.ID, "name": it.Name, "arguments": it.inputJSON()}
	case "custom_tool_call":
		return map[string]any{"type": "custom_tool_call", "id": it.id, "status": "completed", "call_id": it.ID, "name": it.Name, "input": it.freeform()}
	case "web_search_call":
		return map[string]any{"type": "web_search_call", "id": it.id, "status": "completed", "action": map[string]any{"type": "search", "query": it.Text}}
	default:
		return map[string]any{"type": "message", "id": it.id, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}}}
	}
}

// added is the item as output_item.added announces it: empty.
func (it item) added() map[string]any {
	switch it.typ {
	case "reasoning":
		return map[string]any{"type": "reasoning", "id": it.id, "summary": []any{}}
	case "function_call":
		return map[string]any{"type": "function_call", "id": it.id, "status": "in_progress", "call_id": it.ID, "name": it.Name, "arguments": ""}
	case "custom_tool_call":
		return map[string]any{"type": "custom_tool_call", "id": it.id, "status": "in_progress", "call_id": it.ID, "name": it.Name, "input": ""}
	case "web_search_call":
		return map[string]any{"type": "web_search_call", "id": it.id, "status": "in_progress"}
	default:
		return map[string]any{"type": "message", "id": it.id, "status": "in_progress", "role": "assistant", "content": []any{}}
	}
}

// openAIUsage is the usage on the Responses API's wire.
func responsesUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.openAIInput(),
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadInputTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.openAIInput() + u.OutputTokens,
	}
}

// response is the answer as a Responses API response object.
func (a answer) response(status string) map[string]any {
	out := []any{}
	if status != "in_progress" {
		for _, it := range a.items() {
			out = append(out, it.done())
		}
	}
	b := map[string]any{
		"id": fmt.Sprintf("resp_fake%04d", a.seq), "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": a.model, "output": out,
	}
	if status == "completed" {
		b["usage"] = responsesUsage(a.turn.usage())
	}
	return b
}

func (a answer) responseJSON(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a.response("completed"))
}

// responder streams one answer as Responses API events, numbering them.
type responder struct {
	answer
	s *sse
	n int // sequence_number of the next event
}

// send writes one event; fields are merged into {"type": typ,
// "sequence_number": n}.
func (r *responder) send(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = r.n
	r.n++
	return r.s.event(typ, fields)
}

func (a answer) responseStream(ctx context.Context, w http.ResponseWriter) error {
	s, err := startStream(ctx, w, a.turn)
	if err != nil {
		return err
	}
	r := &responder{answer: a, s: s}
	if err := r.send("response.created", map[string]any{"response": a.response("in_progress")}); err != nil {
		return err
	}
	if err := r.send("response.in_progress", map[string]any{"response": a.response("in_progress")}); err != nil {
		return err
	}
	for i, it := range a.items() {
		if err := r.item(i, it); err != nil {
			return err
		}
	}
	if a.turn.Fail != "" {
		b := a.response("failed")
		b["error"] = map[string]any{"code": "server_error", "message": a.turn.Fail}
		return r.send("response.failed", map[string]any{"response": b})
	}
	return r.send("response.completed", map[string]any{"response": a.response("completed")})
}

// deltas sends text in chunks as events of type typ, with the given
// fields added to each.
func (r *responder) deltas(typ, text string, fields map[string]any) error {
	for _, c := range chunks(text, r.turn.chunkRunes()) {
		if err := r.s.pause(); err != nil {
			return err
		}
		ev := map[string]any{"delta": c}
		maps.Copy(ev, fields)
		if err := r.send(typ, ev); err != nil {
			return err
		}
	}
	return nil
}

func (r *responder) item(i int, it item) error {
	at := map[string]any{"item_id": it.id, "output_index": i}
	with := func(extra map[string]any) map[string]any {
		m := maps.Clone(at)
		maps.Copy(m, extra)
		return m
	}
	if err := r.send("response.output_item.added", map[string]any{"output_index": i, "item": it.added()}); err != nil {
		return err
	}
	var err error
	switch it.typ {
	case "reasoning":
		if it.Text == "" {
			break
		}
		if err = r.send("response.reasoning_summary_part.added", with(map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})); err != nil {
			return err
		}
		if err = r.deltas("response.reasoning_summary_text.delta", it.Text, with(map[string]any{"summary_index": 0})); err != nil {
			return err
		}
		if err = r.send("response.reasoning_summary_text.done", with(map[string]any{"summary_index": 0, "text": it.Text})); err != nil {
			return err
		}
		err = r.send("response.reasoning_summary_part.done", with(map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": it.Text}}))
	case "function_call":
		args := it.inputJSON()
		if err = r.deltas("response.function_call_arguments.delta", args, at); err != nil {
			return err
		}
		err = r.send("response.function_call_arguments.done", with(map[string]any{"arguments": args}))
	case "web_search_call":
		for _, phase := range []string{"in_progress", "searching", "completed"} {
			if err = r.send("response.web_search_call."+phase, with(nil)); err != nil {
				return err
			}
		}
	case "custom_tool_call":
		if err = r.deltas("response.custom_tool_call_input.delta", it.freeform(), at); err != nil {
			return err
		}
		err = r.send("response.custom_tool_call_input.done", with(map[string]any{"input": it.freeform()}))
	default:
		empty := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		if err = r.send("response.content_part.added", with(map[string]any{"content_index": 0, "part": empty})); err != nil {
			return err
		}
		if err = r.deltas("response.output_text.delta", it.Text, with(map[string]any{"content_index": 0})); err != nil {
			return err
		}
		if err = r.send("response.output_text.done", with(map[string]any{"content_index": 0, "text": it.Text})); err != nil {
			return err
		}
		err = r.send("response.content_part.done", with(map[string]any{"content_index": 0,
			"part": map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}}))
	}
	if err != nil {
		return err
	}
	return r.send("response.output_item.done", map[string]any{"output_index": i, "item": it.done()})
}
