package discover

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestPathID(t *testing.T) {
	re := regexp.MustCompile(`^p-[0-9a-f]{12}$`)
	ids := make(map[string]string)
	for _, dir := range []string{"/", "/a", "/a/b", "/Users/me/conductor/workspaces/webapp/tokyo", "/Users/me/conductor/workspaces/webapp/paris"} {
		id := PathID(dir)
		if !re.MatchString(id) {
			t.Errorf("PathID(%q) = %q, not p-<12 hex>", dir, id)
		}
		if PathID(dir) != id || PathID(dir+"/") != id {
			t.Errorf("PathID(%q) not stable", dir)
		}
		if other, dup := ids[id]; dup {
			t.Errorf("PathID(%q) = PathID(%q)", dir, other)
		}
		ids[id] = dir
	}
	// Pinned: ids name event journals on disk and must not change between releases.
	if got, want := PathID("/Users/me/project"), "p-8779b387e6b0"; got != want {
		t.Errorf("PathID(/Users/me/project) = %s, want %s", got, want)
	}
}

func TestResolvePath(t *testing.T) {
	root := resolvePath(t.TempDir())
	real := mkdir(t, filepath.Join(root, "real"))
	if err := os.Symlink(real, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{filepath.Join(root, "link"), real},
		{filepath.Join(root, "link", "gone", "deeper"), filepath.Join(real, "gone", "deeper")},
		{filepath.Join(root, "link", "..", "real"), real},
		{filepath.Join(root, "nothing"), filepath.Join(root, "nothing")},
	}
	for _, tt := range tests {
		if got := resolvePath(tt.in); got != tt.want {
			t.Errorf("resolvePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, root string
		want    bool
	}{
		{"/a/repos", "/a/repos", true},
		{"/a/repos/x/.git", "/a/repos", true},
		{"/a/repos2/x", "/a/repos", false},
		{"/a", "/a/repos", false},
		{"/x", "/", true},
	}
	for _, tt := range tests {
		if got := within(tt.p, tt.root); got != tt.want {
			t.Errorf("within(%q, %q) = %v", tt.p, tt.root, got)
		}
	}
}
