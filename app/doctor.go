package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/hooks"
	"conductorbridge/bridge/inject"
	"conductorbridge/bridge/localsock"
	"conductorbridge/tray"
)

// A finding is one thing doctor checked.
type finding struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Status string   `json:"status"` // ok, warn or fail
	Detail string   `json:"detail"`
	Fix    string   `json:"fix,omitempty"`
	Items  []string `json:"items,omitempty"` // the workspaces or files concerned
}

const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
)

// doctor checks the setup and explains each problem with its fix. It exits
// 0 only when all is well; --json is for tools; --fix rewrites hooks and
// Chrome native host manifests and the login item that call a binary that
// is no longer there (the app was moved).
func doctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON, fix *bool
	c, fs, err := clientFlags("doctor", args, stderr, func(fs *flag.FlagSet) {
		asJSON = fs.Bool("json", false, "print the findings as JSON")
		fix = fs.Bool("fix", false, "rewrite hooks, Chrome native host manifests and the login item whose binary no longer exists (or that are wrong) to call this one")
	})
	if err != nil {
		return err
	}
	addrGiven := false
	fs.Visit(func(f *flag.Flag) { addrGiven = addrGiven || f.Name == "addr" })
	if ri, err := readRunFile(c.StateDir); err == nil && ri.Addr != "" && !addrGiven {
		c.Addr = ri.Addr // the bridge of this state dir runs elsewhere than the default
	}
	d := &doctorRun{c: c, fix: *fix}
	findings := d.run(ctx)
	ok := true
	for _, f := range findings {
		ok = ok && f.Status == statusOK
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"ok": ok, "version": version(), "checks": findings})
	} else {
		printFindings(stdout, findings)
	}
	if !ok {
		return errDoctor
	}
	return nil
}

// errDoctor makes the exit code 1 without a second message.
var errDoctor = errors.New("some checks did not pass")

func printFindings(w io.Writer, fs []finding) {
	mark := map[string]string{statusOK: "✓", statusWarn: "!", statusFail: "✗"}
	for _, f := range fs {
		fmt.Fprintf(w, "%s %-14s %s\n", mark[f.Status], f.Title, f.Detail)
		for _, it := range f.Items {
			fmt.Fprintf(w, "  %-14s   %s\n", "", it)
		}
		if f.Fix != "" {
			fmt.Fprintf(w, "  %-14s   fix: %s\n", "", f.Fix)
		}
	}
}

type doctorRun struct {
	c       config
	fix     bool
	running *health // this state dir's bridge, answering on its socket, if any
}

func (d *doctorRun) run(ctx context.Context) []finding {
	out := []finding{d.port(ctx), d.conductor(ctx), d.projects()}
	list, err := d.workspaces(ctx)
	if err != nil {
		out = append(out, finding{ID: "workspaces", Title: "Workspaces", Status: statusFail, Detail: err.Error()})
	} else {
		out = append(out, d.hooks(list)...)
	}
	out = append(out, d.codex(), d.extension())
	out = append(out, d.tray(), d.notifications(ctx), d.loginItem(), d.state())
	return out
}

// port: this state dir's bridge runs (its socket answers), or the port is
// free, or someone else holds it.
func (d *doctorRun) port(ctx context.Context) finding {
	f := finding{ID: "port", Title: "Port"}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h, herr := probeHealth(pctx, d.c.client())
	switch {
	case herr == nil:
		d.running = &h
		f.Status, f.Detail = statusOK, fmt.Sprintf("Conductor Bridge %s is running on %s", h.Version, d.c.Addr)
		return f
	case errors.Is(herr, localsock.ErrUnsafe):
		f.Status, f.Detail = statusFail, herr.Error()
		f.Fix = "the state folder must be yours alone (chmod 700 " + d.c.StateDir + "); remove whatever is in the socket's place"
		return f
	}
	ln, err := net.Listen("tcp", d.c.Addr)
	if err == nil {
		ln.Close()
		f.Status, f.Detail = statusWarn, d.c.Addr+" is free: Conductor Bridge is not running"
		f.Fix = "start it: conductor-bridge (or conductor-bridge service install, to start it at login and hold its port)"
		return f
	}
	// Whose listener it is: this user's own comes first (a bridge of
	// another state folder: a demo, a --home run), whoever this user is —
	// root's own is not launchd's.
	uid, err := listenerUID(pctx, d.c.Addr)
	switch {
	case err == nil && uid == os.Getuid():
		if h, err := portHealth(pctx, d.c.Addr); err == nil {
			f.Status = statusWarn
			f.Detail = fmt.Sprintf("Conductor Bridge %s of another state folder runs on %s; this state folder's is not running", h.Version, d.c.Addr)
			f.Fix = "use that bridge's --state-dir, or start this one on another port"
			if h.StateDir != "" {
				f.Detail = fmt.Sprintf("Conductor Bridge %s of another state folder (%s) runs on %s; this state folder's (%s) is not running",
					h.Version, h.StateDir, d.c.Addr, d.c.StateDir)
				f.Fix = fmt.Sprintf("to check that bridge, pass --state-dir %s (or set %s=%s); or start this one on another port",
					shellWord(h.StateDir), stateDirEnv, shellWord(h.StateDir))
			}
			return f
		}
	case err == nil && uid == 0 && runtime.GOOS == "darwin":
		f.Status, f.Detail = statusWarn, d.c.Addr+" is held by the system (launchd holds it for the login item), but this state folder's bridge is not running"
		f.Fix = "the login item starts it on the first connection; or start it: conductor-bridge"
		return f
	case err == nil:
		f.Status, f.Detail = statusFail, fmt.Sprintf("%s is held by another user of this machine (uid %d) while Conductor Bridge is not running: "+
			"a browser reaching this port talks to them", d.c.Addr, uid)
		f.Fix = "start the bridge on another port (conductor-bridge serve --addr 127.0.0.1:<port>); install the login item so the port is held for you"
		return f
	}
	f.Status, f.Detail = statusFail, d.c.Addr+" is taken by another program, and this state folder's bridge is not running"
	f.Fix = "stop that program, or run the bridge elsewhere: conductor-bridge serve --addr 127.0.0.1:<port>"
	return f
}

// conductor: the database, and which of its features this version lacks.
func (d *doctorRun) conductor(ctx context.Context) (f finding) {
	f = finding{ID: "conductor", Title: "Conductor"}
	read, err := discover.ReadConductor(ctx, d.c.ConductorDB, d.c.ConductorRoot, listAs[discover.Agent](d.c.agents)...)
	ws, missing := read.Workspaces, read.Missing
	defer func() { d.notLocal(&f, read) }()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(d.c.ConductorRoot); serr == nil {
			f.Status, f.Detail = statusWarn, "no database at "+d.c.ConductorDB+"; workspaces are found from "+d.c.ConductorRoot+" instead"
			f.Fix = "open Conductor once, or pass --conductor-db if it keeps its database elsewhere"
			return f
		}
		f.Status, f.Detail = statusWarn, "Conductor is not installed (no "+d.c.ConductorDB+"): only plain Claude Code projects and registered worktrees are shown"
		f.Fix = "install Conductor, or register worktrees with: conductor-bridge register <dir>"
	case err != nil:
		f.Status, f.Detail = statusFail, "the database cannot be read: "+err.Error()
		f.Fix = "check the file's permissions; the bridge falls back to Conductor's folders meanwhile"
	case len(missing) > 0:
		f.Status, f.Detail, f.Items = statusWarn, fmt.Sprintf("database readable (%d workspaces), but this Conductor lacks:", len(ws)), missing
		f.Fix = "update Conductor; until then those details are left empty"
	default:
		f.Status, f.Detail = statusOK, fmt.Sprintf("database readable: %d workspaces", len(ws))
	}
	return f
}

// notLocal names the database rows that are not local workspaces (cloud,
// directory gone, archived), and warns when the database lists no local
// workspace although Conductor's folders or transcripts are not empty (an
// organisation or cloud install whose local tables stay empty).
func (d *doctorRun) notLocal(f *finding, read discover.ConductorRead) {
	if f.Status == statusFail {
		return
	}
	counts := map[string]int{}
	for _, n := range read.NotLocal {
		counts[n.Why]++
		name := n.Name
		if n.DisplayName != "" && n.DisplayName != n.Name {
			name = n.DisplayName + " (" + n.Name + ")"
		}
		f.Items = append(f.Items, fmt.Sprintf("not local (%s): %s [%s]", n.Why, name, n.ID))
	}
	if len(read.NotLocal) > 0 {
		f.Detail += fmt.Sprintf("; %d rows are not local workspaces (%d cloud, %d directory gone, %d archived)",
			len(read.NotLocal), counts[discover.NotLocalCloud], counts[discover.NotLocalNoDirectory], counts[discover.NotLocalArchived])
	}
	if f.Status != statusOK || len(read.Workspaces) > 0 {
		return
	}
	if nonEmpty(filepath.Join(d.c.ConductorRoot, "workspaces")) || nonEmpty(d.c.ClaudeProjects) {
		f.Status = statusWarn
		f.Detail += "; but the database lists no local workspace while Conductor's folders or Claude Code's transcripts are not empty"
		f.Fix = "an organisation or cloud install can keep its local tables empty: workspaces are found from the folders and transcripts instead"
	}
}

func nonEmpty(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

// projects: where Claude Code keeps its transcripts.
func (d *doctorRun) projects() finding {
	f := finding{ID: "claude-projects", Title: "Claude Code"}
	entries, err := os.ReadDir(d.c.ClaudeProjects)
	if err != nil {
		f.Status, f.Detail = statusWarn, "no transcripts at "+d.c.ClaudeProjects+": no agent has run here yet"
		f.Fix = "run Claude Code once (or set CLAUDE_CONFIG_DIR / --claude-projects if it keeps them elsewhere)"
		return f
	}
	f.Status, f.Detail = statusOK, fmt.Sprintf("%d projects in %s", len(entries), d.c.ClaudeProjects)
	return f
}

// workspaces come from the running bridge (which knows when hooks called
// in), else from a direct scan.
func (d *doctorRun) workspaces(ctx context.Context) ([]apiWorkspace, error) {
	if d.running != nil {
		if list, err := listWorkspaces(ctx, d.c.client(), d.c.token()); err == nil {
			return list, nil
		}
	}
	list, err := scanDirect(ctx, d.c)
	if err != nil {
		return nil, err
	}
	seen, _ := inject.ReadSeen(filepath.Join(d.c.StateDir, hooksSeenFile))
	for i := range list {
		h := seen[list[i].ID]
		list[i].LastHookAt, list[i].LastHookEvent = h.At, h.Event
	}
	return list, nil
}

// hooks: installed where messages need them, and calling a binary that is
// still there.
func (d *doctorRun) hooks(list []apiWorkspace) []finding {
	missing := finding{ID: "hooks", Title: "Hooks"}
	broken := finding{ID: "hook-binary", Title: "Hook binary", Status: statusOK}
	type calling struct{ file, name, bin string }
	var ours []calling // every settings file with our hooks, and the binary they call
	if on, bin, err := hooks.Status(d.c.ClaudeSettings); err == nil && on {
		ours = append(ours, calling{d.c.ClaudeSettings, "your user settings", bin})
	}
	var adopted, installed int
	var lines []string
	for _, w := range list {
		file := settingsFile(w.Directory)
		on, bin, err := hooks.Status(file)
		isAdopted := !agentFolder(d.c.agents, w.Source)
		if isAdopted {
			adopted++
		}
		switch {
		case err != nil:
			lines = append(lines, w.Name+": settings unreadable: "+err.Error())
		case on:
			ours = append(ours, calling{file, w.Name, bin})
			installed++
			last := "no hook has reached the bridge yet"
			if !w.LastHookAt.IsZero() {
				last = "last hook " + ago(time.Since(w.LastHookAt)) + " (" + w.LastHookEvent + ")"
			}
			lines = append(lines, w.Name+": installed; "+last)
		case isAdopted:
			missing.Items = append(missing.Items, w.Name+" ("+w.Directory+")")
		}
	}
	if len(missing.Items) > 0 {
		missing.Status = statusWarn
		missing.Detail = fmt.Sprintf("%d of %d Conductor or registered workspaces cannot receive messages (no hooks):", len(missing.Items), adopted)
		missing.Fix = "conductor-bridge hooks install --all (or accept \"Set up hooks\" in the menu bar)"
	} else {
		missing.Status = statusOK
		missing.Detail = fmt.Sprintf("installed in %d workspaces", installed)
		missing.Items = lines
	}

	// Hooks call the binary by its path: an app moved elsewhere breaks them.
	spec, specErr := hookSpec(d.c)
	broken.Detail = "every installed hook calls a binary that exists"
	for _, h := range ours {
		if _, err := os.Stat(h.bin); err == nil {
			continue
		}
		item := fmt.Sprintf("%s: calls %s, which no longer exists", h.name, h.bin)
		if d.fix && specErr == nil {
			if _, err := hooks.Install(h.file, spec); err == nil {
				broken.Items = append(broken.Items, item+" — rewritten to call "+spec.Binary)
				broken.Detail = "hooks rewritten to call " + spec.Binary
				continue
			}
		}
		broken.Items = append(broken.Items, item)
		broken.Status = statusFail
	}
	if broken.Status == statusFail {
		broken.Detail = "hooks call a conductor-bridge that was moved or deleted: messages cannot reach those agents"
		broken.Fix = "conductor-bridge doctor --fix (rewrites them to call this binary)"
	}
	return []finding{missing, broken}
}

func (d *doctorRun) tray() finding {
	return desktop(finding{ID: "menu-bar", Title: "Menu bar", Detail: "a tray host is available",
		Fix: "the bridge works without it (headless); in a desktop session on GNOME, install the AppIndicator extension"},
		"no menu-bar icon: ", tray.Available())
}

// desktop is a check of something the desktop provides: f as given when
// it works, a warning saying why not (with f's fix) when it does not.
func desktop(f finding, missing string, err error) finding {
	if err != nil {
		f.Status, f.Detail = statusWarn, missing+err.Error()
		return f
	}
	f.Status, f.Fix = statusOK, ""
	return f
}

// state: the bridge's own files are private.
func (d *doctorRun) state() finding {
	f := finding{ID: "state", Title: "State"}
	info, err := os.Stat(d.c.StateDir)
	if err != nil {
		f.Status, f.Detail = statusOK, "no state yet at "+d.c.StateDir+" (made on first start)"
		return f
	}
	var loose []string
	if info.Mode().Perm()&0o077 != 0 {
		loose = append(loose, fmt.Sprintf("%s is %v", d.c.StateDir, info.Mode().Perm()))
	}
	for _, name := range []string{tokenFile, hookSecretFile} {
		if fi, err := os.Stat(filepath.Join(d.c.StateDir, name)); err == nil && fi.Mode().Perm()&0o077 != 0 {
			loose = append(loose, fmt.Sprintf("%s is %v", name, fi.Mode().Perm()))
		}
	}
	if len(loose) > 0 {
		f.Status, f.Detail, f.Items = statusFail, "secrets readable by other users:", loose
		f.Fix = "chmod 700 " + d.c.StateDir + " && chmod 600 " + filepath.Join(d.c.StateDir, "*")
		return f
	}
	f.Status, f.Detail = statusOK, "private ("+d.c.StateDir+")"
	return f
}

// ago is a short "3m ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
