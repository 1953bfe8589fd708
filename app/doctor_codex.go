package main

import (
	"os"
	"os/exec"

	"conductorbridge/bridge/codex"
)

// codex: Codex's home and the bridge's hooks in its config.toml, which a
// busy Codex session needs to take a message (and Codex 0.47 to end its
// turns exactly), and a codex binary to resume an idle session with one.
func (d *doctorRun) codex() finding {
	f := finding{ID: "codex", Title: "Codex", Status: statusOK}
	if _, err := os.Stat(codex.SessionsDir(d.c.CodexHome)); err != nil {
		f.Detail = "no Codex sessions at " + codex.SessionsDir(d.c.CodexHome) + ": nothing to read"
		return f
	}
	st, err := codex.HooksStatus(d.c.CodexHome)
	if err != nil {
		f.Status, f.Detail = statusWarn, "Codex's config.toml is unreadable: "+err.Error()
		f.Fix = "fix the file; the bridge reads Codex sessions without it"
		return f
	}
	notifyGone := st.Notify != nil && !exists(st.Notify[0])
	if d.fix && st.Installed && (notifyGone || !st.Trusted || st.Permission == "") {
		if spec, err := hookSpec(d.c); err == nil {
			if _, err := codex.InstallHooks(d.c.CodexHome, codexHookSpec(spec)); err == nil {
				st, _ = codex.HooksStatus(d.c.CodexHome)
				f.Items = append(f.Items, "hooks rewritten to call "+spec.Binary)
				notifyGone = false
			}
		}
	}
	f.Detail = "sessions read from " + d.c.CodexHome + "; " + codexHookState(st)
	switch {
	case !st.Installed:
		f.Status = statusWarn
		f.Detail = "the bridge's Codex hooks are not installed: a message to a busy Codex session is refused until it is idle"
		f.Fix = "conductor-bridge hooks install --codex"
	case st.Stop == "" || !st.Trusted || notifyGone:
		f.Status = statusFail
		f.Fix = "conductor-bridge doctor --fix (or hooks install --codex again)"
	case st.Permission == "":
		// An install from before the hook existed: all works but the
		// needs-input state while Codex waits for an approval.
		f.Status = statusWarn
		f.Fix = "conductor-bridge doctor --fix (or hooks install --codex again)"
	}
	if bin, err := exec.LookPath("codex"); err != nil {
		f.Items = append(f.Items, "no codex on PATH: a message to an idle Codex session cannot be delivered")
		if f.Status == statusOK {
			f.Status = statusWarn
		}
	} else {
		f.Items = append(f.Items, "idle sessions are resumed with "+bin)
	}
	return f
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
