package api

import (
	"path/filepath"
	"slices"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/conductor"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// TestUsageOfAGoneWorkspaceIsNamed: a Cursor tab's turn (counted from
// Conductor's rows) in a workspace whose folder is gone is in the report
// under the folder Conductor placed the workspace in, for the CLI and for
// a browser that sees every workspace: the usage page groups the day's
// cost by that folder and names it by its last element, Conductor's name
// for the workspace. It was counted under no workspace ("(unknown)").
func TestUsageOfAGoneWorkspaceIsNamed(t *testing.T) {
	shape := conductordb.Shapes(t)[0]
	w, err := conductordb.Create(filepath.Join(t.TempDir(), "conductor.db"), shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	root := t.TempDir() // Conductor's folder: no workspaces/shop/w-gone in it
	if err := w.AddTab(shape, "w-gone", "s-cursor", "cursor", "Tab"); err != nil {
		t.Fatal(err)
	}
	if err := w.PlaceWorkspace("w-gone", "shop", "/src/shop", "", "main"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ role, content string }{
		{"user", "make the header blue"},
		{"assistant", `{"type":"result","subtype":"success","session_id":"cur-1","total_cost_usd":0.5,"duration_ms":4200,"usage":{"input_tokens":2500,"output_tokens":52}}`},
	} {
		if _, err := w.Message("s-cursor", m.role, m.content); err != nil {
			t.Fatal(err)
		}
	}
	gone := filepath.Join(root, "workspaces", "shop", "w-gone")
	e := newEnv(t)
	e.srv.Usage = usage.Source{Formats: []driver.Format{conductor.Agent{DB: w.Path, Root: root}}}
	code, body := e.do(t, req{path: "/api/usage?by=workspace", bearer: e.token.Value()})
	if got := workspacesOf(body); code != 200 || !slices.Equal(got, []string{gone}) || body["total"].(map[string]any)["cost_usd"] != 0.5 {
		t.Errorf("CLI: %d %v, want the turn of $0.5 in %s", code, body, gone)
	}
	e.pairing.SetExposure(pairing.ExposeAll)
	viewer := req{path: "/api/usage?by=day", cookie: e.browserCookie(t), hdr: map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}}
	viewer.bearer = e.srv.Sessions.PageKey(viewer.cookie)
	code, body = e.do(t, viewer)
	rows, _ := body["rows"].([]any)
	if code != 200 || len(rows) != 1 {
		t.Fatalf("the page's answer: %d %v", code, body)
	}
	parts, _ := rows[0].(map[string]any)["workspaces"].([]any)
	if len(parts) != 1 || parts[0].(map[string]any)["workspace"] != gone || parts[0].(map[string]any)["cost_usd"] != 0.5 {
		t.Errorf("the page's day split by workspace: %v, want $0.5 in %s", parts, gone)
	}
}
