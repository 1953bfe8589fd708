package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
)

// TestMain lets the test binary double as a tiny MCP server (stdio,
// newline-delimited JSON-RPC) for the Codex end-to-end tests: Codex starts
// it with CODEX_TEST_MCP=1.
func TestMain(m *testing.M) {
	if os.Getenv("CODEX_TEST_MCP") == "1" {
		serveMCP()
		return
	}
	os.Exit(m.Run())
}

// serveMCP answers initialize, tools/list and tools/call with one tool,
// "lookup", until stdin closes.
func serveMCP() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			result = map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "docs", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "lookup", "description": "Look a word up.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []string{"q"}}}}}
		case "tools/call":
			var p struct {
				Arguments struct{ Q string } `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &p)
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "definition of " + p.Arguments.Q}}, "isError": p.Arguments.Q == "fail"}
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": fmt.Sprintf("no method %s", req.Method)}})
			continue
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

// TestMCPToolOn047 runs a real MCP server (this test binary) under Codex
// 0.47: the model calls its tool by the name Codex offered, the server's
// answer reaches the next request, and the stream names the call
// mcp__<server>__<tool>, as Claude Code does, with its arguments.
func TestMCPToolOn047(t *testing.T) {
	bin := codextest.Find(t, codextest.Legacy)
	var offered []string
	srv := fakemodel.NewTest(t,
		fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
			offered = r.ToolNames()
			return []fakemodel.Block{fakemodel.ToolUse("docs__lookup", map[string]any{"q": "bridge"})}
		}),
		fakemodel.Reply(fakemodel.Text("It means a bridge.")))
	home := t.TempDir()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: "look it up", Model: codextest.ModelFor(codextest.Legacy)}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := codextest.Config(srv.URL(), filepath.Join(home, "work", "demo"), o.Model) +
		"\n[mcp_servers.docs]\ncommand = " + strconv.Quote(self) + "\nenv = { CODEX_TEST_MCP = \"1\" }\n"
	if err := os.MkdirAll(o.CodexHome(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ConfigPath(o.CodexHome()), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := codextest.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(offered, "docs__lookup") {
		t.Fatalf("Codex did not offer the MCP tool as docs__lookup: %v", offered)
	}
	if reqs := srv.MainRequests(); len(reqs) != 2 || !reqs[1].Contains("definition of bridge") {
		t.Fatalf("the MCP result did not reach the model")
	}
	got := eventtest.Describe(parseRollout(t, codextest.Rollouts(t, o.CodexHome())[0]))
	if !strings.Contains(got, `tool_use mcp__docs__lookup call_fake0001_0 "{\"q\":\"bridge\"}"`) ||
		!strings.Contains(got, `tool_result mcp__docs__lookup call_fake0001_0 error=false "definition of bridge"`) {
		t.Errorf("MCP call on the stream:\n%s", got)
	}
}
