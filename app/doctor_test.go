package main

import (
	"database/sql"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"conductorbridge/bridge/hooks"
)

// conductorHome is a fake home with Conductor: a real conductor.db and
// the workspace folders it names, plus a Claude Code projects folder.
func conductorHome(t *testing.T, schema, rows string, workspaces ...string) string {
	t.Helper()
	home := t.TempDir()
	dbPath := filepath.Join(home, "Library", "Application Support", "com.conductor.app", "conductor.db")
	os.MkdirAll(filepath.Dir(dbPath), 0o755)
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{schema, rows} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, w := range workspaces {
		os.MkdirAll(filepath.Join(home, "conductor", "workspaces", "shop", w), 0o755)
	}
	os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755)
	return home
}

const fullSchema = `
CREATE TABLE repos (id TEXT PRIMARY KEY, name TEXT, root_path TEXT, default_branch TEXT);
CREATE TABLE workspaces (id TEXT PRIMARY KEY, repository_id TEXT, directory_name TEXT, branch TEXT,
	state TEXT, derived_status TEXT, active_session_id TEXT);
CREATE TABLE sessions (id TEXT PRIMARY KEY, workspace_id TEXT, status TEXT, model TEXT, claude_session_id TEXT, updated_at TEXT);`

const twoWorkspaces = `
INSERT INTO repos VALUES ('r1', 'shop', '/src/shop', 'main');
INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', 'me/tokyo', 'ready', 'idle', NULL),
	('w2', 'r1', 'osaka', 'me/osaka', 'ready', 'idle', NULL);`

// runDoctor runs `doctor --json` and returns its findings by id.
func runDoctor(t *testing.T, home string, env []string, args ...string) (map[string]finding, bool, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"doctor", "--json", "--home", home}, args...)...)
	cmd.Env = append(append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME=", "HOME="+home, "DBUS_SESSION_BUS_ADDRESS="), env...)
	out, _ := cmd.Output()
	var res struct {
		OK     bool      `json:"ok"`
		Checks []finding `json:"checks"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	byID := map[string]finding{}
	for _, f := range res.Checks {
		byID[f.ID] = f
	}
	return byID, res.OK, cmd.ProcessState.ExitCode()
}

func TestDoctorExplainsEachProblem(t *testing.T) {
	home := conductorHome(t, fullSchema, twoWorkspaces, "tokyo", "osaka")
	tokyo := filepath.Join(home, "conductor", "workspaces", "shop", "tokyo")
	// tokyo has hooks, installed by a binary that has since moved away.
	gone := filepath.Join(t.TempDir(), "Old Place", "conductor-bridge")
	if _, err := hooks.Install(settingsFile(tokyo), hooks.Spec{Binary: gone, StateDir: filepath.Join(home, "state")}); err != nil {
		t.Fatal(err)
	}
	// The port is taken by something that is not a bridge.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The state dir is readable by others.
	state := filepath.Join(home, ".local", "state", "conductor-bridge")
	os.MkdirAll(state, 0o755)
	os.Chmod(state, 0o755)

	got, ok, code := runDoctor(t, home, nil, "--addr", ln.Addr().String())
	if ok || code != 1 {
		t.Errorf("doctor says ok=%v exit %d with problems", ok, code)
	}
	want := map[string]string{
		"port":          statusFail,
		"conductor":     statusOK,
		"hooks":         statusWarn,
		"hook-binary":   statusFail,
		"menu-bar":      statusWarn,
		"notifications": statusWarn,
		"login-item":    statusWarn,
		"state":         statusFail,
	}
	for id, st := range want {
		f := got[id]
		if f.Status != st {
			t.Errorf("%s: %s (%s), want %s", id, f.Status, f.Detail, st)
		}
		if st != statusOK && f.Fix == "" {
			t.Errorf("%s: no fix offered", id)
		}
	}
	if h := got["hooks"]; len(h.Items) != 1 || !strings.Contains(h.Items[0], "osaka") {
		t.Errorf("hooks: %+v", h)
	}
	if b := got["hook-binary"]; len(b.Items) != 1 || !strings.Contains(b.Items[0], gone) || !strings.Contains(b.Fix, "doctor --fix") {
		t.Errorf("hook binary: %+v", b)
	}
	if !strings.Contains(got["port"].Detail, "another program") {
		t.Errorf("port: %+v", got["port"])
	}

	// --fix rewrites the moved binary's hooks to this one.
	got, _, _ = runDoctor(t, home, nil, "--addr", ln.Addr().String(), "--fix")
	if got["hook-binary"].Status != statusOK {
		t.Errorf("after --fix: %+v", got["hook-binary"])
	}
	if _, bin, _ := hooks.Status(settingsFile(tokyo)); bin != binary {
		t.Errorf("hooks now call %q, want %q", bin, binary)
	}
}

func TestDoctorConductorDatabaseProblems(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T) string
		status string
		detail string
	}{
		{"not installed", func(t *testing.T) string { return t.TempDir() }, statusWarn, "not installed"},
		{"corrupt", func(t *testing.T) string {
			home := conductorHome(t, fullSchema, twoWorkspaces)
			os.WriteFile(filepath.Join(home, "Library", "Application Support", "com.conductor.app", "conductor.db"), []byte("not a database at all, just text"), 0o644)
			return home
		}, statusFail, "cannot be read"},
		{"older schema", func(t *testing.T) string {
			return conductorHome(t, `CREATE TABLE repos (id TEXT, name TEXT);
				CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT);`,
				`INSERT INTO repos VALUES ('r1', 'shop'); INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo');`, "tokyo")
		}, statusWarn, "lacks"},
		{"rows that are not local", func(t *testing.T) string {
			return conductorHome(t, fullSchema+`ALTER TABLE workspaces ADD COLUMN sandbox_provider TEXT;`,
				`INSERT INTO repos VALUES ('r1', 'shop', '/src/shop', 'main');
				INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', 'b', 'ready', NULL, NULL, NULL),
					('w2', 'r1', 'lima', 'b', 'ready', NULL, NULL, 'modal'), ('w3', 'r1', 'oslo', 'b', 'ready', NULL, NULL, NULL),
					('w4', 'r1', 'paris', 'b', 'archived', NULL, NULL, NULL);`, "tokyo")
		}, statusOK, "3 rows are not local workspaces (1 cloud, 1 directory gone, 1 archived)"},
		{"empty database beside folders", func(t *testing.T) string {
			return conductorHome(t, fullSchema, "SELECT 1", "tokyo")
		}, statusWarn, "lists no local workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _ := runDoctor(t, tt.setup(t), nil, "--addr", "127.0.0.1:1")
			f := got["conductor"]
			if f.Status != tt.status || !strings.Contains(f.Detail, tt.detail) {
				t.Errorf("conductor: %+v", f)
			}
			if tt.name == "older schema" && !strings.Contains(strings.Join(f.Items, " "), "workspaces.branch") {
				t.Errorf("missing features not named: %v", f.Items)
			}
			if tt.name == "rows that are not local" {
				items := strings.Join(f.Items, "\n")
				for _, row := range []string{"b (lima) [w2]", "b (oslo) [w3]", "b (paris) [w4]"} {
					if !strings.Contains(items, row) {
						t.Errorf("row %s not named: %v", row, f.Items)
					}
				}
				if strings.Contains(items, "tokyo") {
					t.Errorf("the local workspace is named as not local: %v", f.Items)
				}
			}
		})
	}
}

// TestDoctorAllWell sets up everything doctor asks for — a running bridge,
// hooks that have called in, a tray host and a notification server on a
// private D-Bus, the login item — and expects exit 0.
func TestDoctorAllWell(t *testing.T) {
	env, bus := doctorDesktop(t)
	home := conductorHome(t, fullSchema, twoWorkspaces, "tokyo", "osaka")
	p := startBridgeProc(t, home, 0)
	addr := strings.TrimPrefix(p.base, "http://")
	for _, w := range []string{"tokyo", "osaka"} {
		p.waitFor(func(a apiWorkspace) bool { return a.Name == w })
		if out, err := runCLI(t, "hooks", "install", "--home", home, "--addr", addr, w); err != nil {
			t.Fatalf("hooks install: %v %s", err, out)
		}
	}
	// tokyo's hooks have reached the bridge; osaka's not yet.
	tokyo := filepath.Join(home, "conductor", "workspaces", "shop", "tokyo")
	ve := &viewerEnv{t: t, p: p}
	ve.hook("stop", map[string]any{"session_id": "s", "cwd": tokyo, "hook_event_name": "Stop"})
	unit := filepath.Join(home, ".config", "systemd", "user", "conductor-bridge.service")
	os.MkdirAll(filepath.Dir(unit), 0o755)
	os.WriteFile(unit, []byte("[Service]\nExecStart="+binary+" \"serve\" \"--if-not-running\"\n"), 0o644)
	os.WriteFile(strings.TrimSuffix(unit, ".service")+".socket", []byte("[Socket]\n"), 0o644) // it holds the port
	// Chromium ran here, and the side panel is installed for it.
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
	if out, err := runCLIEnv(t, browserEnv(home), "extension", "install", "--home", home); err != nil {
		t.Fatalf("extension install: %v %s", err, out)
	}
	env = append(env, browserEnv(home)...)

	got, ok, code := runDoctor(t, home, env, "--addr", addr)
	for id, f := range got {
		if f.Status != statusOK {
			t.Errorf("%s: %s: %s %v", id, f.Status, f.Detail, f.Items)
		}
	}
	if !ok || code != 0 {
		t.Errorf("all well, but ok=%v exit %d", ok, code)
	}
	if d := got["port"].Detail; !strings.Contains(d, "is running") {
		t.Errorf("port: %s", d)
	}
	items := strings.Join(got["hooks"].Items, "\n")
	if !strings.Contains(items, "tokyo: installed; last hook just now (stop)") || !strings.Contains(items, "osaka: installed; no hook has reached the bridge yet") {
		t.Errorf("hook activity:\n%s", items)
	}
	// Without --addr, doctor finds the bridge where it runs (not the default port).
	got, _, _ = runDoctor(t, home, env)
	if d := got["port"].Detail; got["port"].Status != statusOK || !strings.Contains(d, addr) {
		t.Errorf("port without --addr: %+v", got["port"])
	}
	// With the bridge stopped, doctor reads the same from the state dir.
	p.kill(syscall.SIGTERM)
	got, _, _ = runDoctor(t, home, env, "--addr", addr)
	if items := strings.Join(got["hooks"].Items, "\n"); !strings.Contains(items, "tokyo: installed; last hook just now (stop)") {
		t.Errorf("hook activity with the bridge stopped:\n%s", items)
	}
	_ = bus
}

// TestDoctorNamesTheOtherStateFolder: a bridge of another state folder of
// this user's (a demo, a --home run) holds the port. doctor says so and
// names its folder, as the other commands do — also run as root, whose own
// listener is not launchd's (issue 26: it said "held by the system").
func TestDoctorNamesTheOtherStateFolder(t *testing.T) {
	other := t.TempDir()
	p := startBridgeProc(t, other, 0)
	otherState := filepath.Join(other, ".local", "state", "conductor-bridge")
	home := conductorHome(t, fullSchema, twoWorkspaces, "tokyo", "osaka")

	got, _, _ := runDoctor(t, home, nil, "--addr", strings.TrimPrefix(p.base, "http://"))
	f := got["port"]
	if f.Status != statusWarn || !strings.Contains(f.Detail, "of another state folder ("+otherState+") runs on "+strings.TrimPrefix(p.base, "http://")) ||
		strings.Contains(f.Detail, "launchd") || !strings.Contains(f.Fix, "pass --state-dir "+otherState) {
		t.Errorf("port (doctor run as uid %d): %s: %s; fix: %s", os.Getuid(), f.Status, f.Detail, f.Fix)
	}
}
