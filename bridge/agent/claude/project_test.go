package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/discover"
)

// The driver is what discovery asks for Claude Code's folders and tabs.
var (
	_ discover.Projects   = Agent{}
	_ discover.TabRecords = Agent{}
	_ discover.Aliased    = Agent{}
)

func TestEncodeProjectDir(t *testing.T) {
	long := "/tmp/cch/" + strings.Repeat("a", 120) + "/" + strings.Repeat("b", 100) + "/é"
	tests := []struct{ in, want string }{
		{"/Users/me/.x", "-Users-me--x"},
		{"/Users/me/conductor/workspaces/web-app/tokyo", "-Users-me-conductor-workspaces-web-app-tokyo"},
		{"/home/me/My Project_2", "-home-me-My-Project-2"},
		{"/tmp/café", "-tmp-caf-"}, // one UTF-16 unit: one '-'
		{"/tmp/a😀b", "-tmp-a--b"},  // a surrogate pair: two
		{"/tmp/日本", "-tmp---"},
		{"/tmp/cch/x😀é.y", "-tmp-cch-x----y"}, // as Claude Code 2.1.328 wrote it
		{"", ""},
		// Claude Code 2.1.328 wrote this folder for this cwd (232 units).
		{long, "-tmp-cch-" + strings.Repeat("a", 120) + "-" + strings.Repeat("b", 70) + "-pgmyyj"},
	}
	for _, tt := range tests {
		if got := EncodeProjectDir(tt.in); got != tt.want {
			t.Errorf("EncodeProjectDir(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Exactly 200 units is not cut.
	exact := "/" + strings.Repeat("x", 199)
	if got := EncodeProjectDir(exact); got != "-"+strings.Repeat("x", 199) {
		t.Errorf("200 units cut: %q", got)
	}
}

// TestTabRecord: a tab's transcript is a regular file named by the id in
// the folder of the tab's directory; an id that is not one path element
// names none.
func TestTabRecord(t *testing.T) {
	projects := t.TempDir()
	dir := "/Users/me/conductor/workspaces/web/tokyo"
	folder := filepath.Join(projects, "-Users-me-conductor-workspaces-web-tokyo")
	if err := os.MkdirAll(filepath.Join(folder, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(folder, "s1.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(projects, "up.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := Agent{Projects: projects}
	for _, c := range []struct{ id, want string }{
		{"s1", file},
		{"s2", ""},
		{"sub", ""}, // a folder: sub.jsonl does not exist
		{"../up", ""},
		{"..", ""},
		{"", ""},
	} {
		if got := a.TabRecord(dir, c.id); got != c.want {
			t.Errorf("TabRecord(%q) = %q, want %q", c.id, got, c.want)
		}
	}
	if got := (Agent{}).TabRecord(dir, "s1"); got != "" {
		t.Errorf("no projects folder: %q", got)
	}
}
