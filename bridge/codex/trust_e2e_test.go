package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealCodexTrustsTheBridgesHooks asks the real 0.169 (its app
// server's hooks/list) what it makes of a config.toml where the person has
// Stop and PermissionRequest groups of their own before the bridge's: it
// must find the bridge's hooks under the trust keys InstallHooks wrote,
// with the hashes it wrote, and so trust them; the person's own hooks
// stay as they were (untrusted here, since nobody trusted them).
func TestRealCodexTrustsTheBridgesHooks(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	srv := fakemodel.NewTest(t)
	home := t.TempDir()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home}
	dir := filepath.Join(home, "work", "demo")
	mine := "\n[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"my-stop\" }]\n\n" +
		"[[hooks.PermissionRequest]]\nmatcher = \"Bash\"\nhooks = [{ type = \"command\", command = \"my-approver\" }]\n"
	if err := os.MkdirAll(o.CodexHome(), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := codextest.Config(srv.URL(), dir, codextest.ModelFor(codextest.Latest)) + mine
	if err := os.WriteFile(ConfigPath(o.CodexHome()), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := HookSpec{Stop: "/opt/cb/conductor-bridge hook stop --state-dir '/s d'", Permission: "/opt/cb/conductor-bridge hook permission-request --state-dir '/s d'"}
	if _, err := InstallHooks(o.CodexHome(), spec); err != nil {
		t.Fatal(err)
	}
	ctx, app := startAppServer(t, o)
	res, err := app.Call(ctx, "hooks/list", map[string]any{"cwds": []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			Hooks []struct {
				Key, EventName, Command, CurrentHash, TrustStatus string
			}
		}
	}
	if err := json.Unmarshal(res, &list); err != nil || len(list.Data) != 1 {
		t.Fatalf("hooks/list: %s (%v)", res, err)
	}
	trust := map[string]string{}
	for _, h := range list.Data[0].Hooks {
		trust[h.Command] = h.TrustStatus
	}
	for cmd, want := range map[string]string{spec.Stop: "trusted", spec.Permission: "trusted", "my-stop": "untrusted", "my-approver": "untrusted"} {
		if trust[cmd] != want {
			t.Errorf("%s: %q, want %q (hooks/list: %s)", cmd, trust[cmd], want, res)
		}
	}
}
