package api

import (
	"encoding/json"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// rollout writes a Codex rollout run in cwd whose one token_count line
// records plan limits, as Codex writes them.
func rollout(t *testing.T, codexHome, id, cwd, seen, limits string) {
	t.Helper()
	day := filepath.Join(codexHome, "sessions", "2026", "12", "03")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{"timestamp":"` + seen + `","type":"session_meta","payload":{"id":"` + id + `","cwd":"` + cwd + `","cli_version":"0.169.0"}}` + "\n" +
		`{"timestamp":"` + seen + `","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":` + limits + `}}` + "\n"
	if err := os.WriteFile(filepath.Join(day, "rollout-2026-12-03T09-00-00-"+id+".jsonl"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 24, finding 7: one rollout line with a reset past the year 9999
// made Time.MarshalJSON fail, and /api/usage answered 200 with an empty
// body (so did usage --json, with nothing). A reset no calendar can write
// is unknown; the report is whole.
func TestFarFutureResetKeepsTheReportWhole(t *testing.T) {
	e := newEnv(t)
	h := t.TempDir()
	rollout(t, h, "t1", "/w/tokyo", "2026-12-03T09:00:00Z",
		`{"primary":{"used_percent":12.5,"window_minutes":300,"resets_at":300000000000},`+
			`"secondary":{"used_percent":40,"window_minutes":10080,"resets_in_seconds":100000000000000000},"plan_type":"plus"}`)
	e.srv.Usage = usage.Source{Formats: []driver.Format{codexagent.Agent{Home: h}}}
	resp := e.send(t, req{path: "/api/usage", bearer: e.token.Value()})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var rep struct {
		Limits []map[string]any `json:"limits"`
	}
	if err := json.Unmarshal(b, &rep); resp.StatusCode != 200 || err != nil {
		t.Fatalf("/api/usage: %d %v %q", resp.StatusCode, err, b)
	}
	if len(rep.Limits) != 2 {
		t.Fatalf("limits: %v", rep.Limits)
	}
	for _, l := range rep.Limits {
		if _, ok := l["resets_at"]; ok {
			t.Errorf("a reset no calendar can write was given as %v", l["resets_at"])
		}
		if l["used_percent"] == nil {
			t.Errorf("limit lost its use: %v", l)
		}
	}
}

// Whatever cannot be encoded is a 500 with a JSON error, never a 200 with
// no body.
func TestEncodeErrorIsNeverAnEmpty200(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, 200, map[string]float64{"x": math.Inf(1)})
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != 500 || err != nil || body["error"] == "" {
		t.Errorf("encode error: %d %q", rec.Code, rec.Body.String())
	}
}

// Issue 24, finding 7: plan limits recorded in a workspace the browser may
// not see (osaka is not paired) are not shown to it; the CLI sees them.
func TestBrowserSeesPlanLimitsOfVisibleWorkspacesOnly(t *testing.T) {
	e := newEnv(t)
	h := t.TempDir()
	rollout(t, h, "t-osaka", "/w/osaka", "2026-12-03T10:00:00Z",
		`{"primary":{"used_percent":77,"window_minutes":300},"plan_type":"pro"}`)
	e.srv.Usage = usage.Source{Formats: []driver.Format{codexagent.Agent{Home: h}}}
	limits := func(r req) []any {
		t.Helper()
		r.path = "/api/usage"
		code, body := e.do(t, r)
		if code != 200 {
			t.Fatalf("/api/usage: %d %v", code, body)
		}
		l, _ := body["limits"].([]any)
		return l
	}
	if l := limits(req{bearer: e.token.Value()}); len(l) != 1 {
		t.Errorf("CLI limits: %v", l)
	}
	if l := limits(req{cookie: e.browserCookie(t), origin: extOrigin}); len(l) != 0 {
		t.Errorf("a browser that sees tokyo only got osaka's plan limits: %v", l)
	}
	// Recorded in tokyo (paired), the browser sees them.
	rollout(t, h, "t-tokyo", "/w/tokyo/web", "2026-12-03T11:00:00Z",
		`{"primary":{"used_percent":80,"window_minutes":300},"plan_type":"pro"}`)
	if l := limits(req{cookie: e.browserCookie(t), origin: extOrigin}); len(l) != 1 || l[0].(map[string]any)["used_percent"] != 80.0 {
		t.Errorf("a browser that sees tokyo: limits %v", l)
	}
}
