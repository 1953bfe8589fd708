package codex

import (
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// mcpConfig is a config the bridge never wrote a line of: what the
// review's uninstall cut away (approval policy, sandbox, MCP servers).
const mcpConfig = `approval_policy = "never"
sandbox_mode = "workspace-write"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "7000"]
`

// Issue 24, finding 8: a begin marker inside a """ string, with no end
// marker, and uninstall cut the file from there to its end — approval
// policy, sandbox and MCP servers gone, and no longer TOML. Uninstall (and
// install, which removes an earlier block first) must take away only what
// the bridge added, and write only what still parses.
func TestUninstallNeverRemovesWhatItDidNotAdd(t *testing.T) {
	t.Parallel()
	inString := "developer_instructions = \"\"\"\nKeep these lines as they are:\n" + blockBegin + "\n\"\"\"\n" + mcpConfig
	wholeInString := "developer_instructions = \"\"\"\n" + blockBegin + "\nnotify = [\"x\"]\n" + blockEnd + "\n\"\"\"\n" + mcpConfig
	edited := mcpConfig + "\n" + blockBegin + "\nmodel = \"gpt-5.5\"\n[[hooks.Stop]]\nhooks = [{ type = \"command\", command = " +
		tomlString(spec.Stop) + ", timeout = 10 }]\n" + blockEnd + "\n"
	broken := "approval_policy = \"never\n" + blockBegin + "\nnotify = [\"/opt/cb/conductor-bridge\", \"hook\", \"codex-notify\"]\n" + blockEnd + "\n"
	for _, tt := range []struct {
		name, config string
		wantErr      string // "": no error, the file unchanged
	}{
		{"a begin marker in a multi-line string, no end marker", inString, ""},
		{"both markers in a multi-line string", wholeInString, "left as is"},
		{"the user's own key inside the bridge's block", edited, "left as is"},
		{"not TOML", broken, "not valid TOML"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := t.TempDir()
			if err := os.WriteFile(ConfigPath(h), []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			changed, err := UninstallHooks(h)
			if got, _ := os.ReadFile(ConfigPath(h)); string(got) != tt.config {
				t.Errorf("uninstall changed a file it must leave (changed %v, %v):\n%s", changed, err, got)
			}
			switch {
			case tt.wantErr == "" && (err != nil || changed):
				t.Errorf("uninstall: %v %v; want nothing to do", changed, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("uninstall: %v; want an error saying %q", err, tt.wantErr)
			}
		})
	}

	// With the marker inside a string, install and uninstall still work,
	// each keeping every line of the user's.
	t.Run("install and uninstall beside a marker in a string", func(t *testing.T) {
		h := t.TempDir()
		os.WriteFile(ConfigPath(h), []byte(inString), 0o600)
		if _, err := InstallHooks(h, spec); err != nil {
			t.Fatalf("install: %v", err)
		}
		data, _ := os.ReadFile(ConfigPath(h))
		var doc struct {
			DeveloperInstructions string         `toml:"developer_instructions"`
			ApprovalPolicy        string         `toml:"approval_policy"`
			McpServers            map[string]any `toml:"mcp_servers"`
		}
		if _, err := toml.Decode(string(data), &doc); err != nil || !strings.Contains(doc.DeveloperInstructions, blockBegin) ||
			doc.ApprovalPolicy != "never" || doc.McpServers["docs"] == nil {
			t.Fatalf("installed: %+v %v\n%s", doc, err, data)
		}
		if st, err := HooksStatus(h); err != nil || !st.Installed || st.Stop != spec.Stop {
			t.Errorf("status: %+v %v", st, err)
		}
		if changed, err := UninstallHooks(h); err != nil || !changed {
			t.Fatalf("uninstall: %v %v", changed, err)
		}
		if got, _ := os.ReadFile(ConfigPath(h)); string(got) != inString {
			t.Errorf("uninstall did not give the file back:\n%s\nwant\n%s", got, inString)
		}
	})

	// A bridge built under another name (issue 24, finding 12) installs
	// and uninstalls its Codex hooks just the same.
	t.Run("a binary called cb", func(t *testing.T) {
		h := t.TempDir()
		os.WriteFile(ConfigPath(h), []byte(mcpConfig), 0o600)
		cb := HookSpec{Stop: "/opt/x/cb hook stop --state-dir /s", Permission: "/opt/x/cb hook permission-request --state-dir /s",
			Notify: []string{"/opt/x/cb", "hook", "codex-notify", "--state-dir", "/s"}}
		for range 2 {
			if _, err := InstallHooks(h, cb); err != nil {
				t.Fatal(err)
			}
		}
		if st, err := HooksStatus(h); err != nil || !st.Installed || !st.Trusted || st.Stop != cb.Stop || len(st.Notify) != 5 {
			t.Errorf("status: %+v %v", st, err)
		}
		if _, err := UninstallHooks(h); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(ConfigPath(h)); string(got) != mcpConfig {
			t.Errorf("after uninstall:\n%s", got)
		}
	})
}
