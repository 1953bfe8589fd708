package fakemodel

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Cursor's backend, as the Cursor SDK (npm @cursor/sdk, pinned 1.0.32)
// talks to it when CURSOR_BACKEND_URL is an http:// URL: plain HTTP/1.1,
// JSON for the key exchange and the model list, Connect RPC (connect-es)
// for the rest. A local agent's turn is two calls sharing a request id:
// RunSSE, a server stream of AgentServerMessages (the answer), and
// BidiAppend, which carries the prompt. The fake answers RunSSE once the
// BidiAppend of its request id has come, as the real backend can only
// answer a prompt it has, and renders a Turn so:
//
//	block                 InteractionUpdate
//	Text                  text_delta, in ChunkRunes pieces
//	Thinking              thinking_delta, then thinking_completed
//	ToolUse "read"        tool_call_started and tool_call_completed of a read_tool_call
//	                      (Input {"path"}; Output is the content read)
//	ToolUse "shell"       the same with a shell_tool_call (Input {"command"}; Output is stdout)
//	(others)              left out
//
// then a conversation checkpoint, turn_ended with the turn's Usage
// (input_tokens = InputTokens, cache_read_tokens = CacheReadInputTokens,
// cache_write_tokens = CacheCreationInputTokens) and the end of the stream.
// A turn with Status ends the stream at once with a Connect error (code
// ErrorType, default "internal"); one with Fail sends its blocks first.
// The SDK retries most codes, backing off for seconds, with a new RunSSE
// (which takes the next turn); "permission_denied" it gives up on at once.
// The other unary calls the SDK makes get an empty success.
const (
	cursorAuthPath   = "/auth/exchange_user_api_key"
	cursorRunPath    = "/agent.v1.AgentService/RunSSE"
	cursorAppendPath = "/aiserver.v1.BidiService/BidiAppend"
	// cursorModels answers the SDK's GET /v1/models: its model "auto".
	cursorModels = `{"items":[{"id":"auto","displayName":"Auto"}]}`
)

// Field numbers of the messages the fake writes and reads. Each comes from
// the compact schema strings ("Message|number name type|…") in the SDK's
// bundle, node_modules/@cursor/sdk/dist/esm/index.js of 1.0.32 (the same
// strings are in dist/cjs/index.js and dist/bundled/index.js); the comment
// quotes the parts used.
const (
	// "AgentServerMessage|1 interaction_update #0 message|…|3 conversation_checkpoint_update #3 message"
	serverInteractionUpdate = 1
	serverCheckpointUpdate  = 3

	// "InteractionUpdate|1 text_delta #0 message|…|2 tool_call_started #3 message|
	// 3 tool_call_completed #4 message|4 thinking_delta #5 message|
	// 5 thinking_completed #6 message|…|14 turn_ended #14 message"
	updateTextDelta         = 1
	updateToolCallStarted   = 2
	updateToolCallCompleted = 3
	updateThinkingDelta     = 4
	updateThinkingCompleted = 5
	updateTurnEnded         = 14

	// "TextDeltaUpdate|1 text 9", "ThinkingDeltaUpdate|1 text 9"
	deltaText = 1
	// "ThinkingCompletedUpdate|1 thinking_duration_ms 5"
	thinkingDurationMS = 1

	// "ToolCallStartedUpdate|1 call_id 9|2 tool_call #0" (ToolCallCompletedUpdate alike)
	updateCallID   = 1
	updateToolCall = 2
	// "ToolCall|1 shell_tool_call #0 tool|…|8 read_tool_call #4 tool"
	toolShell = 1
	toolRead  = 8
	// "ReadToolCall|1 args #0|2 result #1", "ShellToolCall|1 args #0|2 result #1"
	callArgs   = 1
	callResult = 2
	// "ReadToolResult|1 success #0 result", "ShellResult|1 success #0 result"
	resultSuccess = 1
	// "ReadToolArgs|1 path 9"
	readArgsPath = 1
	// "ReadToolSuccess|1 content 9 output|…|4 total_lines 13|5 file_size 13"
	readContent    = 1
	readTotalLines = 4
	readFileSize   = 5
	// "ShellArgs|1 command 9|2 working_directory 9"
	shellArgsCommand = 1
	// "ShellSuccess|1 command 9|2 working_directory 9|3 exit_code 5|4 signal 9|5 stdout 9"
	shellCommand = 1
	shellStdout  = 5

	// "TurnEndedUpdate|1 input_tokens 3?|2 output_tokens 3?|3 cache_read_tokens 3?|
	// 4 cache_write_tokens 3?|5 reasoning_tokens 3?"
	endedInput      = 1
	endedOutput     = 2
	endedCacheRead  = 3
	endedCacheWrite = 4
	endedReasoning  = 5

	// "ConversationStateStructure|…|17 self_summary_count 13": a checkpoint
	// with one field set, enough for the SDK to save one.
	stateSelfSummaryCount = 17

	// Requests. RunSSE's body: "BidiRequestId|1 request_id 9".
	// BidiAppend's: "BidiAppendRequest|1 data 9|2 request_id #0", data the
	// hex of an "AgentClientMessage|1 run_request #0 message|…", whose
	// prompt is at "AgentRunRequest|…|2 action #1",
	// "ConversationAction|1 user_message_action #0 action",
	// "UserMessageAction|1 user_message #0", "UserMessage|1 text 9".
	bidiRequestID     = 1
	appendData        = 1
	appendRequestID   = 2
	clientRunRequest  = 1
	runAction         = 2
	actionUserMessage = 1
	userMessage       = 1
	userMessageText   = 1
)

// Connect's stream framing: each frame is a flag byte, a big-endian
// 4-byte length and the message; the last frame's flag says end of
// stream and carries JSON ({} or {"error":{…}}).
const (
	connectFlagMessage   = 0
	connectFlagEndStream = 2
)

// CursorRequest is what the fake reads of the SDK's protobuf requests.
type CursorRequest struct {
	// RequestID ties a RunSSE to the BidiAppend carrying its prompt.
	RequestID string
	// Prompt is a BidiAppend's user message.
	Prompt string
}

// isCursor tells a request of the Cursor SDK: its paths, or its header
// on the model list it shares with the OpenAI paths.
func isCursor(hr *http.Request) bool {
	p := hr.URL.Path
	return p == cursorAuthPath || strings.HasPrefix(p, "/agent.v1.") ||
		strings.HasPrefix(p, "/aiserver.v1.") || hr.Header.Get("X-Cursor-Client-Type") != ""
}

// decodeCursor fills r.Cursor from the body of a RunSSE or a BidiAppend.
func (r *Request) decodeCursor() {
	switch r.Path {
	case cursorRunPath:
		if len(r.Raw) < 5 {
			return
		}
		if id, ok := pbPath(r.Raw[5:], bidiRequestID); ok {
			r.Cursor.RequestID = string(id)
		}
	case cursorAppendPath:
		if id, ok := pbPath(r.Raw, appendRequestID, bidiRequestID); ok {
			r.Cursor.RequestID = string(id)
		}
		data, ok := pbPath(r.Raw, appendData)
		if !ok {
			return
		}
		msg, err := hex.DecodeString(string(data))
		if err != nil {
			return
		}
		if text, ok := pbPath(msg, clientRunRequest, runAction, actionUserMessage, userMessage, userMessageText); ok {
			r.Cursor.Prompt = string(text)
		}
	}
}

// classifyCursor: RunSSE is a turn, the model list a model list, the
// rest other.
func classifyCursor(r Request) Kind {
	switch {
	case r.Path == cursorRunPath:
		return KindMain
	case r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/models"):
		return KindModels
	}
	return KindOther
}

// serveCursor answers one request of the Cursor SDK.
func (s *Server) serveCursor(w http.ResponseWriter, hr *http.Request, r Request, turn Turn) {
	ct := hr.Header.Get("Content-Type")
	switch {
	case r.Path == cursorAuthPath:
		jwt := fakeJWT()
		writeJSON(w, map[string]string{"accessToken": jwt, "refreshToken": jwt})
	case r.Kind == KindModels:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(cursorModels))
	case r.Kind == KindMain:
		_ = s.cursorRun(hr.Context(), w, r, turn)
	case ct == "application/proto":
		w.Header().Set("Content-Type", ct)
	case strings.HasPrefix(ct, "application/json"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	case strings.HasPrefix(ct, "application/connect+"):
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(connectFrame(connectFlagEndStream, connectError("unimplemented", "fakemodel: no such stream")))
	default:
		http.NotFound(w, hr)
	}
}

// fakeJWT is an access token the SDK can decode (it reads exp); the
// signature is not checked by anyone.
func fakeJWT() string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc([]byte(`{"sub":"auth0|user_fake","exp":4102444800,"iat":1700000000}`)) + "." + enc([]byte("sig"))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// cursorRun streams turn as RunSSE's answer to r.
func (s *Server) cursorRun(ctx context.Context, w http.ResponseWriter, r Request, turn Turn) error {
	if r.Cursor.RequestID != "" {
		_, err := s.WaitRequest(ctx, func(q Request) bool {
			return q.Path == cursorAppendPath && q.Cursor.RequestID == r.Cursor.RequestID
		})
		if err != nil {
			return err
		}
	}
	st, err := startStreamOf(ctx, w, turn, "application/connect+proto")
	if err != nil {
		return err
	}
	if turn.Status != 0 {
		return st.frame(connectFlagEndStream, connectError(cmpErr(turn.ErrorType), "fakemodel scripted error"))
	}
	a := newAnswer(r, turn)
	for _, b := range a.blocks {
		if err := st.cursorBlock(b, turn.chunkRunes()); err != nil {
			return err
		}
	}
	if turn.Fail != "" {
		return st.frame(connectFlagEndStream, connectError("internal", turn.Fail))
	}
	u := turn.usage()
	checkpoint := pbMessage{}.varint(stateSelfSummaryCount, 1)
	ended := pbMessage{}.
		varint(endedInput, uint64(u.InputTokens)).
		varint(endedOutput, uint64(u.OutputTokens)).
		varint(endedCacheRead, uint64(u.CacheReadInputTokens)).
		varint(endedCacheWrite, uint64(u.CacheCreationInputTokens)).
		varint(endedReasoning, uint64(u.ReasoningTokens))
	if err := st.frame(connectFlagMessage, pbMessage{}.bytes(serverCheckpointUpdate, checkpoint)); err != nil {
		return err
	}
	if err := st.update(updateTurnEnded, ended); err != nil {
		return err
	}
	return st.frame(connectFlagEndStream, []byte("{}"))
}

func cmpErr(code string) string {
	if code == "" {
		return "internal"
	}
	return code
}

// cursorBlock sends one block of the turn.
func (st *sse) cursorBlock(b Block, runes int) error {
	switch b.Type {
	case "text", "thinking":
		kind := updateTextDelta
		if b.Type == "thinking" {
			kind = updateThinkingDelta
		}
		for i, c := range chunks(b.Text, runes) {
			if i > 0 {
				if err := st.pause(); err != nil {
					return err
				}
			}
			if err := st.update(kind, pbMessage{}.str(deltaText, c)); err != nil {
				return err
			}
		}
		if b.Type == "thinking" {
			return st.update(updateThinkingCompleted, pbMessage{}.varint(thinkingDurationMS, 1))
		}
		return nil
	case "tool_use":
		args, result, tool, ok := cursorTool(b)
		if !ok {
			return nil
		}
		started := pbMessage{}.bytes(tool, pbMessage{}.bytes(callArgs, args))
		done := pbMessage{}.bytes(tool, pbMessage{}.bytes(callArgs, args).bytes(callResult, result))
		if err := st.update(updateToolCallStarted, pbMessage{}.str(updateCallID, b.ID).bytes(updateToolCall, started)); err != nil {
			return err
		}
		return st.update(updateToolCallCompleted, pbMessage{}.str(updateCallID, b.ID).bytes(updateToolCall, done))
	}
	return nil
}

// cursorTool renders a tool_use block as one of Cursor's tool calls: its
// args, its successful result and its ToolCall field; ok is false for a
// tool the fake does not render.
func cursorTool(b Block) (args, result pbMessage, field int, ok bool) {
	var in struct {
		Path    string `json:"path"`
		Command string `json:"command"`
	}
	_ = json.Unmarshal([]byte(b.inputJSON()), &in)
	switch b.Name {
	case "read":
		args = pbMessage{}.str(readArgsPath, in.Path)
		success := pbMessage{}.str(readContent, b.Output).
			varint(readTotalLines, uint64(strings.Count(b.Output, "\n"))).
			varint(readFileSize, uint64(len(b.Output)))
		return args, pbMessage{}.bytes(resultSuccess, success), toolRead, true
	case "shell":
		args = pbMessage{}.str(shellArgsCommand, in.Command)
		success := pbMessage{}.str(shellCommand, in.Command).str(shellStdout, b.Output)
		return args, pbMessage{}.bytes(resultSuccess, success), toolShell, true
	}
	return nil, nil, 0, false
}

// update sends an AgentServerMessage carrying one InteractionUpdate.
func (st *sse) update(field int, msg pbMessage) error {
	return st.frame(connectFlagMessage, pbMessage{}.bytes(serverInteractionUpdate, pbMessage{}.bytes(field, msg)))
}

// frame sends one Connect frame.
func (st *sse) frame(flag byte, payload []byte) error {
	if _, err := st.w.Write(connectFrame(flag, payload)); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	st.f.Flush()
	return nil
}

func connectFrame(flag byte, payload []byte) []byte {
	out := make([]byte, 5, 5+len(payload))
	out[0] = flag
	binary.BigEndian.PutUint32(out[1:], uint32(len(payload)))
	return append(out, payload...)
}

// connectError is the JSON of an end-of-stream frame carrying a Connect
// error.
func connectError(code, message string) []byte {
	data, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	return data
}
