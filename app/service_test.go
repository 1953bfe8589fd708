package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"howett.net/plist"

	"conductorbridge/bridge/activation"
	"conductorbridge/packaging/units"
)

// fakeSystemctl puts a systemctl on PATH that records its arguments: CI
// has no systemd user session, and what matters here is the unit file we
// write and that it is enabled for the user's session.
func fakeSystemctl(t *testing.T) (env []string, calls func() string) {
	t.Helper()
	bin := t.TempDir()
	record := filepath.Join(bin, "calls")
	script := "#!/bin/sh\necho \"$@\" >> " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, func() string { b, _ := os.ReadFile(record); return string(b) }
}

func TestServiceInstallsAUserUnit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the systemd unit is Linux's login item")
	}
	home := t.TempDir()
	env, calls := fakeSystemctl(t)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, append([]string{"service"}, args...)...)
		cmd.Env = append(os.Environ(), append(env, "HOME="+home)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("service %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("install")
	unit := filepath.Join(home, ".config", "systemd", "user", "conductor-bridge.service")
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ExecStart=" + binary + ` "serve" "--if-not-running"`,
		"Restart=on-failure", // a crash restarts it; Quit (exit 0) does not
		"StandardOutput=null",
		"WantedBy=default.target", // starts with the user's session, not multi-user.target
		"StartLimitBurst=5",       // a failing start is not retried for ever
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("unit lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "Restart=always") || strings.Contains(string(b), "multi-user.target") {
		t.Errorf("unit has kardianos' defaults:\n%s", b)
	}
	if c := calls(); !strings.Contains(c, "enable --user conductor-bridge.service") || !strings.Contains(c, "daemon-reload --user") {
		t.Errorf("systemctl calls: %q", c)
	}
	// The port is held for it from the next login on: a socket unit the
	// service wants, enabled for the session's sockets.target.
	for _, want := range []string{"Wants=conductor-bridge.socket", "After=graphical-session.target conductor-bridge.socket"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("unit lacks %q:\n%s", want, b)
		}
	}
	socketUnit := strings.TrimSuffix(unit, ".service") + ".socket"
	if sb, err := os.ReadFile(socketUnit); err != nil || string(sb) != units.SystemdSocket {
		t.Errorf("socket unit: %v\n%s", err, sb)
	}
	if c := calls(); !strings.Contains(c, "enable --user conductor-bridge.socket") {
		t.Errorf("socket unit not enabled: %q", c)
	}
	if out := run("install"); !strings.Contains(out, "already installed") {
		t.Errorf("second install: %s", out)
	}
	if out := run("status"); !strings.Contains(out, "installed true") {
		t.Errorf("status: %s", out)
	}
	run("uninstall")
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Error("unit still there after uninstall")
	}
	if _, err := os.Stat(socketUnit); !os.IsNotExist(err) {
		t.Error("socket unit still there after uninstall")
	}
	if c := calls(); !strings.Contains(c, "disable --user conductor-bridge.service") {
		t.Errorf("systemctl calls: %q", c)
	}
}

// renderKardianos fills our plist template the way kardianos/service's
// template engine does for the keys it uses (it runs only on macOS).
func renderPlist(name, path string, args []string) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace
	var argLines strings.Builder
	for _, a := range args {
		argLines.WriteString("\t\t<string>" + esc(a) + "</string>\n")
	}
	s := units.Launchd
	s = strings.Replace(s, "{{range Arguments}}\t\t<string>{{. | html}}</string>\n{{end}}", argLines.String(), 1)
	s = strings.ReplaceAll(s, "{{Name | html}}", esc(name))
	s = strings.ReplaceAll(s, "{{Path | html}}", esc(path))
	return s
}

func TestLaunchAgentPlist(t *testing.T) {
	out := renderPlist("com.conductor-bridge.agent", "/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge", serviceArgs)
	if strings.Contains(out, "{{") {
		t.Fatalf("template left unrendered:\n%s", out)
	}
	var p struct {
		Label            string
		ProgramArguments []string
		RunAtLoad        bool
		KeepAlive        map[string]bool
		ProcessType      string
		ThrottleInterval int
	}
	if _, err := plist.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not a plist: %v\n%s", err, out)
	}
	if p.Label != "com.conductor-bridge.agent" || !p.RunAtLoad || p.ProcessType != "Interactive" || p.ThrottleInterval < 10 {
		t.Errorf("plist: %+v", p)
	}
	if len(p.ProgramArguments) != 3 || p.ProgramArguments[1] != "serve" || p.ProgramArguments[2] != "--if-not-running" {
		t.Errorf("arguments: %q", p.ProgramArguments)
	}
	// KeepAlive only for a crash: Quit from the menu stays quit.
	if v, ok := p.KeepAlive["SuccessfulExit"]; !ok || v || len(p.KeepAlive) != 1 {
		t.Errorf("KeepAlive: %v", p.KeepAlive)
	}
	if strings.Contains(out, "StandardOutPath") || strings.Contains(out, "StandardErrorPath") {
		t.Error("launchd would duplicate the bridge's own log")
	}
	// launchd holds the port between runs and hands it over under the
	// name the bridge checks in with.
	var sockets struct {
		Sockets map[string]map[string]string
	}
	plist.Unmarshal([]byte(out), &sockets)
	l, ok := sockets.Sockets[activation.LaunchdName]
	_, port, _ := net.SplitHostPort(DefaultAddr)
	if len(sockets.Sockets) != 1 || !ok || l["SockNodeName"] != "127.0.0.1" || l["SockServiceName"] != port ||
		l["SockFamily"] != "IPv4" || l["SockType"] != "stream" {
		t.Errorf("Sockets: %v, want %s on 127.0.0.1:%s", sockets.Sockets, activation.LaunchdName, port)
	}
	checkLaunchdKeys(t, out)
}

// checkLaunchdKeys holds every key of a LaunchAgent to launchd.plist(5):
// documented, of its type, with a value the page allows.
func checkLaunchdKeys(t *testing.T, doc string) {
	t.Helper()
	spec, err := os.ReadFile(filepath.Join("testdata", "launchd.plist.5.keys"))
	if err != nil {
		t.Fatal(err)
	}
	type rule struct{ types, values []string }
	rules := map[string]rule{}
	for _, line := range strings.Split(string(spec), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		r := rule{types: strings.Split(f[1], "|")}
		if len(f) > 2 {
			r.values = strings.Split(f[2], "|")
		}
		rules[f[0]] = r
	}
	var job map[string]any
	if _, err := plist.Unmarshal([]byte(doc), &job); err != nil {
		t.Fatal(err)
	}
	typeOf := func(v any) string {
		switch v.(type) {
		case string:
			return "string"
		case bool:
			return "boolean"
		case uint64, int64:
			return "integer"
		case []any:
			return "array"
		case map[string]any:
			return "dictionary"
		}
		return fmt.Sprintf("%T", v)
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		r, ok := rules[key]
		if !ok {
			t.Errorf("%s is not a key launchd.plist(5) documents", key)
			return
		}
		if !slices.Contains(r.types, typeOf(v)) {
			t.Errorf("%s is a %s, launchd.plist(5) says %v", key, typeOf(v), r.types)
		}
		if s, ok := v.(string); ok && r.values != nil && !slices.Contains(r.values, s) {
			t.Errorf("%s = %q, launchd.plist(5) allows %v", key, s, r.values)
		}
		if m, ok := v.(map[string]any); ok {
			for k, sub := range m {
				if key == "Sockets" {
					k = "*" // an entry's name is the job's own
				}
				walk(key+"."+k, sub)
			}
		}
	}
	for k, v := range job {
		walk(k, v)
	}
}

// The login item holds the port the bridge it starts listens on.
func TestLoginItemHoldsTheDefaultPort(t *testing.T) {
	if !strings.Contains(units.SystemdSocket, "ListenStream="+DefaultAddr+"\n") {
		t.Errorf("socket unit does not hold %s:\n%s", DefaultAddr, units.SystemdSocket)
	}
	if strings.Contains(units.SystemdSocket, "Accept=yes") {
		t.Error("the socket unit would start a bridge per connection")
	}
}

func TestSecondStartAtLoginExitsQuietly(t *testing.T) {
	home := t.TempDir()
	p := startBridgeProc(t, home, 0)
	port, _ := freePort()
	out, err := runCLI(t, "serve", "--headless", "--if-not-running", "--home", home, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil || !strings.Contains(out, "already running") {
		t.Errorf("--if-not-running with a bridge running: %v %s", err, out)
	}
	_ = p
}

// A start at login that finds another bridge on the port (another state
// dir, or the demo) is a success too: no restart loop.
func TestStartAtLoginWithAnotherBridgeOnThePort(t *testing.T) {
	p := startBridgeProc(t, t.TempDir(), 0)
	addr := strings.TrimPrefix(p.base, "http://")
	out, err := runCLI(t, "serve", "--headless", "--if-not-running", "--home", t.TempDir(), "--addr", addr)
	if err != nil || !strings.Contains(out, "already running") {
		t.Errorf("--if-not-running, a bridge of another home on the port: %v %s", err, out)
	}
	// Without the flag it is an error, as before.
	if _, err := runCLI(t, "serve", "--headless", "--home", t.TempDir(), "--addr", addr); err == nil {
		t.Error("a second bridge on a taken port exited 0 without --if-not-running")
	}
}

// A login item an earlier version installed does not hold the port:
// doctor says so, and --fix installs it again, after which it does.
func TestDoctorFlagsALoginItemThatDoesNotHoldThePort(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the systemd units are Linux's login item")
	}
	home := t.TempDir()
	env, _ := fakeSystemctl(t)
	unit := filepath.Join(home, ".config", "systemd", "user", "conductor-bridge.service")
	os.MkdirAll(filepath.Dir(unit), 0o755)
	os.WriteFile(unit, []byte("[Service]\nExecStart="+binary+" serve --if-not-running\n"), 0o644)
	got, _, _ := runDoctor(t, home, env)
	if f := got["login-item"]; f.Status != statusWarn || !strings.Contains(f.Detail, "does not hold the bridge's port") || !strings.Contains(f.Fix, "doctor --fix") {
		t.Errorf("an old login item: %+v", f)
	}
	got, _, _ = runDoctor(t, home, env, "--fix")
	if f := got["login-item"]; f.Status != statusOK || !strings.Contains(f.Detail, "now holds the bridge's port") {
		t.Errorf("doctor --fix: %+v", f)
	}
	if _, err := os.Stat(strings.TrimSuffix(unit, ".service") + ".socket"); err != nil {
		t.Errorf("no socket unit after doctor --fix: %v", err)
	}
	if got, _, _ := runDoctor(t, home, env); got["login-item"].Status != statusOK {
		t.Errorf("after the fix: %+v", got["login-item"])
	}
}
