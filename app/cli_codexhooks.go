package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/hooks"
	"conductorbridge/bridge/inject"
)

// codexHooksCmd is `hooks install|uninstall|status --codex`: the bridge's
// Stop hook (how a message reaches a busy Codex 0.169 session, and its
// exact turn end) and notify program (the turn end of every release),
// merged into Codex's config.toml without touching anything else there.
// Codex runs them for every session on the machine, like user-scope hooks.
func codexHooksCmd(c config, verb string, stdout io.Writer) error {
	spec, err := hookSpec(c)
	if err != nil {
		return err
	}
	path := codex.ConfigPath(c.CodexHome)
	switch verb {
	case "install":
		changed, err := codex.InstallHooks(c.CodexHome, codexHookSpec(spec))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", path, changedWord(changed, "installed"))
		st, err := codex.HooksStatus(c.CodexHome)
		if err == nil && st.UserNotify != nil {
			fmt.Fprintf(stdout, "%s: your own notify program (%s) stays; Codex takes one, so the bridge relies on its Stop hook and the files for turn ends\n",
				path, strings.Join(st.UserNotify, " "))
		}
	case "uninstall":
		changed, err := codex.UninstallHooks(c.CodexHome)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", path, changedWord(changed, "uninstalled"))
	case "status":
		st, err := codex.HooksStatus(c.CodexHome)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", path, codexHookState(st))
	default:
		return fmt.Errorf("unknown hooks command %q", verb)
	}
	return nil
}

// codexHookSpec is what the bridge installs for Codex: `conductor-bridge
// hook stop` as the Stop hook, `conductor-bridge hook permission-request`
// as the PermissionRequest hook (the only sign that Codex waits for an
// approval), `conductor-bridge hook codex-notify` as the notify program
// (Codex appends its JSON as the last argument).
func codexHookSpec(spec hooks.Spec) codex.HookSpec {
	return codex.HookSpec{
		Stop:       spec.Command(inject.HookStop),
		Permission: spec.Command(inject.HookPermissionRequest),
		Notify:     []string{spec.Binary, "hook", codex.NotifyEvent, "--state-dir", spec.StateDir},
	}
}

// codexHookState says in words what of the bridge is in a config.toml.
func codexHookState(st codex.HookStatus) string {
	if !st.Installed {
		return "not installed"
	}
	var parts []string
	switch {
	case st.Stop == "":
		parts = append(parts, "no Stop hook")
	case !st.Trusted:
		parts = append(parts, "hooks NOT TRUSTED by Codex (run hooks install --codex again)")
	default:
		parts = append(parts, "Stop hook → "+st.Stop)
	}
	if st.Permission != "" {
		parts = append(parts, "PermissionRequest hook → "+st.Permission)
	} else if st.Stop != "" {
		parts = append(parts, "no PermissionRequest hook (approvals not shown: run hooks install --codex again)")
	}
	if st.Notify != nil {
		parts = append(parts, "notify → "+strings.Join(st.Notify, " "))
		if _, err := os.Stat(st.Notify[0]); err != nil {
			parts = append(parts, "(MISSING: run hooks install --codex again)")
		}
	} else if st.UserNotify != nil {
		parts = append(parts, "your own notify kept")
	}
	return "installed: " + strings.Join(parts, "; ")
}

func changedWord(changed bool, done string) string {
	if changed {
		return done
	}
	return "unchanged"
}
