package fakemodel

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// cursorFrame is one Connect frame of a RunSSE answer.
type cursorFrame struct {
	flag byte
	data []byte
}

func readFrames(t *testing.T, r io.Reader) []cursorFrame {
	t.Helper()
	var out []cursorFrame
	for {
		var head [5]byte
		if _, err := io.ReadFull(r, head[:]); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("frame header: %v", err)
		}
		data := make([]byte, binary.BigEndian.Uint32(head[1:]))
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatalf("frame: %v", err)
		}
		out = append(out, cursorFrame{head[0], data})
	}
}

// postCursor sends one of the SDK's requests.
func postCursor(t *testing.T, s *Server, path, contentType string, body []byte) *http.Response {
	t.Helper()
	rsp, err := http.Post(s.URL()+path, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rsp.Body.Close() })
	return rsp
}

// sendPrompt posts the BidiAppend carrying prompt for request id, nested
// as the SDK nests it (the field numbers written out, not the fake's
// constants).
func sendPrompt(t *testing.T, s *Server, id, prompt string) {
	t.Helper()
	user := pbMessage{}.str(1, prompt)                                                      // UserMessage.text
	action := pbMessage{}.bytes(1, pbMessage{}.bytes(1, user))                              // ConversationAction.user_message_action.user_message
	client := pbMessage{}.bytes(1, pbMessage{}.bytes(2, action))                            // AgentClientMessage.run_request.action
	body := pbMessage{}.str(1, hex.EncodeToString(client)).bytes(2, pbMessage{}.str(1, id)) // BidiAppendRequest
	if rsp := postCursor(t, s, "/aiserver.v1.BidiService/BidiAppend", "application/proto", body); rsp.StatusCode != 200 {
		t.Fatalf("BidiAppend: %s", rsp.Status)
	}
}

// runSSE posts the RunSSE of request id and reads its frames.
func runSSE(t *testing.T, s *Server, id string) []cursorFrame {
	t.Helper()
	msg := pbMessage{}.str(1, id) // BidiRequestId.request_id
	frame := append([]byte{0, 0, 0, 0, byte(len(msg))}, msg...)
	rsp := postCursor(t, s, "/agent.v1.AgentService/RunSSE", "application/connect+proto", frame)
	if ct := rsp.Header.Get("Content-Type"); rsp.StatusCode != 200 || ct != "application/connect+proto" {
		t.Fatalf("RunSSE: %s %s", rsp.Status, ct)
	}
	return readFrames(t, rsp.Body)
}

// field reads the varint field num of msg.
func field(t *testing.T, msg []byte, num int) uint64 {
	t.Helper()
	fields, err := pbFields(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if f.num == num && f.wire == wireVarint {
			return f.value
		}
	}
	return 0
}

func path(t *testing.T, msg []byte, nums ...int) string {
	t.Helper()
	b, ok := pbPath(msg, nums...)
	if !ok {
		t.Fatalf("no field %v in %x", nums, msg)
	}
	return string(b)
}

func TestCursorTurn(t *testing.T) {
	turn := Turn{
		Blocks: []Block{
			Text("héllo wörld, long enough to chunk"),
			{Type: "tool_use", ID: "call_r", Name: "read", Input: map[string]any{"path": "/w/a.txt"}, Output: "one\ntwo\n"},
		},
		Usage:      Usage{InputTokens: 11, OutputTokens: 7, CacheReadInputTokens: 5, CacheCreationInputTokens: 3, ReasoningTokens: 2},
		ChunkRunes: 6,
	}
	s := NewTest(t, turn)
	sendPrompt(t, s, "req-1", "say hi") // the prompt may come first: RunSSE finds it
	frames := runSSE(t, s, "req-1")

	last := frames[len(frames)-1]
	if last.flag != 2 || string(last.data) != "{}" {
		t.Fatalf("last frame = %d %q, want the end of stream {}", last.flag, last.data)
	}
	var text strings.Builder
	var started, completed, ended, checkpoints int
	for _, f := range frames[:len(frames)-1] {
		if f.flag != 0 {
			t.Fatalf("frame flag %d before the end", f.flag)
		}
		if _, ok := pbPath(f.data, 3); ok { // AgentServerMessage.conversation_checkpoint_update
			checkpoints++
			continue
		}
		update, ok := pbPath(f.data, 1) // AgentServerMessage.interaction_update
		if !ok {
			t.Fatalf("frame %x is neither an update nor a checkpoint", f.data)
		}
		fields, _ := pbFields(update)
		switch fields[0].num { // InteractionUpdate's field numbers, from the SDK's schema
		case 1:
			text.WriteString(path(t, update, 1, 1))
		case 2, 3:
			if path(t, update, fields[0].num, 1) != "call_r" {
				t.Errorf("tool call id = %q", path(t, update, fields[0].num, 1))
			}
			// ToolCall.read_tool_call.args.path
			if got := path(t, update, fields[0].num, 2, 8, 1, 1); got != "/w/a.txt" {
				t.Errorf("read path = %q", got)
			}
			if fields[0].num == 2 {
				started++
				continue
			}
			completed++
			success, _ := pbPath(update, 3, 2, 8, 2, 1) // ….result.success
			if got := path(t, success, 1); got != "one\ntwo\n" {
				t.Errorf("read content = %q", got)
			}
			if field(t, success, 4) != 2 || field(t, success, 5) != uint64(len("one\ntwo\n")) {
				t.Errorf("read lines, size = %d, %d", field(t, success, 4), field(t, success, 5))
			}
		case 14:
			ended++
			te, _ := pbPath(update, 14)
			u := turn.Usage
			got := [5]uint64{field(t, te, 1), field(t, te, 2), field(t, te, 3), field(t, te, 4), field(t, te, 5)}
			want := [5]uint64{uint64(u.InputTokens), uint64(u.OutputTokens), uint64(u.CacheReadInputTokens), uint64(u.CacheCreationInputTokens), uint64(u.ReasoningTokens)}
			if got != want {
				t.Errorf("turn_ended tokens = %v, want %v", got, want)
			}
		default:
			t.Errorf("unexpected update field %d", fields[0].num)
		}
	}
	if text.String() != turn.Blocks[0].Text {
		t.Errorf("text = %q, want %q", text.String(), turn.Blocks[0].Text)
	}
	if started != 1 || completed != 1 || ended != 1 || checkpoints != 1 {
		t.Errorf("started, completed, turn_ended, checkpoints = %d, %d, %d, %d; want one each", started, completed, ended, checkpoints)
	}
	main := s.MainRequests()
	if len(main) != 1 || main[0].Cursor.RequestID != "req-1" {
		t.Fatalf("main requests = %+v", main)
	}
	var prompts []string
	for _, r := range s.Requests() {
		prompts = append(prompts, r.UserTexts()...)
	}
	if len(prompts) != 1 || prompts[0] != "say hi" {
		t.Errorf("prompts = %q, want [say hi]", prompts)
	}
}

func TestCursorErrors(t *testing.T) {
	tests := []struct {
		name     string
		turn     Turn
		wantCode string
		frames   int
	}{
		{"status", Turn{Status: 400, ErrorType: "invalid_argument"}, "invalid_argument", 1},
		{"in-stream failure", Turn{Blocks: []Block{Text("partial")}, Fail: "boom"}, "internal", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewTest(t, tt.turn)
			sendPrompt(t, s, "req-e", "go")
			frames := runSSE(t, s, "req-e")
			if len(frames) != tt.frames {
				t.Fatalf("%d frames, want %d", len(frames), tt.frames)
			}
			last := frames[len(frames)-1]
			var end struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(last.data, &end); err != nil || last.flag != 2 || end.Error.Code != tt.wantCode {
				t.Errorf("last frame = %d %s, want an end of stream with error %s", last.flag, last.data, tt.wantCode)
			}
			if tt.turn.Fail != "" && end.Error.Message != tt.turn.Fail {
				t.Errorf("error message = %q, want %q", end.Error.Message, tt.turn.Fail)
			}
		})
	}
}

func TestCursorUnaryCalls(t *testing.T) {
	s := NewTest(t)
	rsp := postCursor(t, s, "/auth/exchange_user_api_key", "application/json", []byte("{}"))
	var tokens struct{ AccessToken, RefreshToken string }
	if err := json.NewDecoder(rsp.Body).Decode(&tokens); err != nil || strings.Count(tokens.AccessToken, ".") != 2 {
		t.Errorf("key exchange = %+v, %v; want a JWT", tokens, err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"/v1/models", nil)
	req.Header.Set("X-Cursor-Client-Type", "sdk")
	models, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer models.Body.Close()
	var list struct{ Items []struct{ ID string } }
	if err := json.NewDecoder(models.Body).Decode(&list); err != nil || len(list.Items) == 0 || list.Items[0].ID != "auto" {
		t.Errorf("models = %+v, %v; want auto", list, err)
	}
	rsp = postCursor(t, s, "/aiserver.v1.ServerConfigService/GetServerConfig", "application/proto", nil)
	body, _ := io.ReadAll(rsp.Body)
	if rsp.StatusCode != 200 || rsp.Header.Get("Content-Type") != "application/proto" || len(body) != 0 {
		t.Errorf("unary proto call = %s %q %q, want an empty 200", rsp.Status, rsp.Header.Get("Content-Type"), body)
	}
	if s.Remaining() != 0 || len(s.MainRequests()) != 0 {
		t.Errorf("unary calls took turns: %d main requests", len(s.MainRequests()))
	}
}
