package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	usagerep "conductorbridge/bridge/usage"
)

// TestCLISaysWhatWentWrong: the small things a newcomer met (issue 26),
// each from the real binary on an empty home.
func TestCLISaysWhatWentWrong(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		fails bool
		want  []string
		not   []string
	}{
		{"help names one command", []string{"help", "send"}, false, []string{"send <ws>[/<session>] <message>", "-wait"}, []string{"demo ", "register"}},
		{"help serve names serve's flags", []string{"help", "serve"}, false, []string{"serve        run the bridge", "-headless", "-claude-projects", "-conductor-db", "-log-dir", "-allow-origin"}, []string{"commands:", "demo "}},
		{"serve -h names serve's flags", []string{"serve", "-h"}, false, []string{"-headless", "-conductor-root"}, []string{"commands:"}},
		{"help help names help", []string{"help", "help"}, false, []string{"help [<command>]", "a command's lines"}, []string{"commands:", "flags:"}},
		{"-h alone names the commands", []string{"-h"}, false, []string{"commands:", "demo ", "serve "}, nil},
		{"a typo gets a suggestion, not the usage", []string{"tial"}, true, []string{`unknown command "tial"; did you mean "tail"?`}, []string{"commands:"}},
		{"since after until", []string{"usage", "--home", home, "--since", "2026-02-01", "--until", "2026-01-01"}, true, []string{"--since 2026-02-01 is after --until 2026-01-01"}, nil},
		{"no token without a bridge", []string{"token", "--home", home}, true, []string{"no API token in", "no bridge has run with this state folder"}, nil},
		{"open with no bridge", []string{"open", "--print", "--home", home}, true, []string{"not running"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCLI(t, tt.args...)
			if (err != nil) != tt.fails {
				t.Errorf("exit: %v, want failure %v\n%s", err, tt.fails, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%q not in:\n%s", w, out)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out, w) {
					t.Errorf("%q in:\n%s", w, out)
				}
			}
			if tt.fails && strings.Count(strings.TrimSpace(out), "\n") > 1 {
				t.Errorf("an error of %d lines:\n%s", strings.Count(out, "\n"), out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "conductor-bridge")); !os.IsNotExist(err) {
		t.Errorf("a command made a state folder: %v", err)
	}
}

// TestOpenSaysThereIsNoBrowser: with no way to open a browser, open prints
// the link, says so and fails.
func TestOpenSaysThereIsNoBrowser(t *testing.T) {
	home := t.TempDir()
	p := startBridgeProc(t, home, 0)
	out, err := runCLIEnv(t, []string{"PATH=" + t.TempDir()}, "open", "--home", home, "--addr", strings.TrimPrefix(p.base, "http://"))
	if err == nil || !strings.Contains(out, "/open/") || !strings.Contains(out, "open the link above in a browser yourself") {
		t.Errorf("open with no browser: %v\n%s", err, out)
	}
}

// TestUsageTableShowsWorkspacesWhereRowsHaveThem: a day's row has no one
// workspace, so the day view has no WORKSPACE column (always empty before);
// the session view has it, filled.
func TestUsageTableShowsWorkspacesWhereRowsHaveThem(t *testing.T) {
	for _, tt := range []struct {
		rep  usagerep.Report
		want bool
	}{
		{usagerep.Report{By: "day", Rows: []usagerep.Row{{Key: "2026-12-05", Turns: 3}}}, false},
		{usagerep.Report{By: "session", Rows: []usagerep.Row{{Key: "claude:s1", Turns: 3, Workspace: "/w/tokyo"}}}, true},
	} {
		var b strings.Builder
		printUsage(&b, &tt.rep)
		if got := strings.Contains(b.String(), "WORKSPACE"); got != tt.want || (tt.want && !strings.Contains(b.String(), "/w/tokyo")) {
			t.Errorf("by %s:\n%s", tt.rep.By, b.String())
		}
	}
}
