package main

import (
	"os"
	"testing"

	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/codex"
)

// codexagent.HookedOnce follows config.toml: no file, the bridge's hooks
// installed, then removed; each answer matches a fresh read of the file.
func TestHookedFollowsCodexConfig(t *testing.T) {
	home := t.TempDir()
	var c config
	c.Home, c.Addr = t.TempDir(), "127.0.0.1:34568"
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	c.CodexHome = home
	hooked := codexagent.HookedOnce(home)
	if hooked() {
		t.Fatal("hooked with no config.toml")
	}
	spec, err := hookSpec(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codex.InstallHooks(home, codexHookSpec(spec)); err != nil {
		t.Fatal(err)
	}
	if !hooked() || !hooked() {
		t.Fatal("not hooked after hooks install --codex")
	}
	if _, err := codex.UninstallHooks(home); err != nil {
		t.Fatal(err)
	}
	if hooked() {
		b, _ := os.ReadFile(codex.ConfigPath(home))
		t.Fatalf("still hooked after uninstall:\n%s", b)
	}
}
